import type { DeclaredEnvironment } from './environments.js';

/**
 * Which of an environment's credentials variables are set (never their values): `token` when
 * `PREFIX_ACCESS_TOKEN` is, `app` when `PREFIX_APPID` and `PREFIX_SECRET` both are, `incomplete`
 * when only one of those two is, `none` when none is.
 */
export type CredentialsState = 'token' | 'app' | 'incomplete' | 'none';

/**
 * Where an environment's calls go, as far as the files and the names of the set variables tell,
 * for listing (`guidectl envs`); it holds no secret, so that it can be printed and given to CI.
 * - `remote`: a base URL (the environment's `base_url`, or the WeChat API when it has none and
 *   names `credentials`); `wechat` says it is the WeChat API's.
 * - `embedded`: no `credentials` and no `base_url`: the embedded service over
 *   `.guidectl/<name>.db` (relative to the working directory).
 */
export type EnvironmentTargetKind =
  | { readonly kind: 'remote'; readonly baseUrl: string; readonly wechat: boolean }
  | { readonly kind: 'embedded'; readonly dbFile: string };

/** One environment's target and credentials, and why it cannot be used now, if it cannot. */
export interface EnvironmentTarget {
  readonly environment: DeclaredEnvironment;
  readonly target: EnvironmentTargetKind;
  /** Absent when the environment names no credentials prefix. */
  readonly credentials?: {
    readonly prefix: string;
    /** The variables that may hold them, in the order they are read. */
    readonly variables: readonly string[];
    readonly state: CredentialsState;
  };
  /** Why plan or apply would refuse this target now (a missing variable); absent when it is usable. */
  readonly problem?: string;
}
