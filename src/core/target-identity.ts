import { ifDefined } from './records.js';
/**
 * Which account a target is, as far as guidectl can tell without a call — what every saved plan
 * records, and what `apply PLAN.json` compares with the target resolved then:
 * - `remote`: the API at `baseUrl` (normalised: scheme and host in lower case, no default port,
 *   no trailing `/`), and `appidDigest`, a digest of the appid, when app credentials are used. An
 *   access token does not say which account it belongs to: then it is absent.
 * - `embedded`: the embedded service over `database`, an absolute path or `:memory:`.
 *
 * Invariants: it holds no secret and no credential (the appid only as a digest, 16 lowercase hex
 * digits); the same account reached with an access token or with its appid and secret has the
 * same `baseUrl`, and so has every account of one API.
 */
export type TargetIdentity =
  | { readonly kind: 'remote'; readonly baseUrl: string; readonly appidDigest?: string }
  | { readonly kind: 'embedded'; readonly database: string };

/**
 * What a plan was made against: the identity of the target it read and, for files with
 * environments, the environment's name. Part of what the plan id covers, so that a saved plan is
 * never applied to another account and its target cannot be edited by hand.
 */
export interface PlannedTarget {
  readonly target?: TargetIdentity;
  readonly environment?: string;
}

/** A target resolved now: in words for messages, and which account it is. */
export interface TargetNow {
  readonly description: string;
  readonly identity: TargetIdentity;
}

/**
 * Whether `identity` names no account: the API reached with an access token. A plan saved so is
 * applied only with `--plan-id`, since its account cannot be confirmed then.
 */
export function namesNoAccount(identity: TargetIdentity): boolean {
  return identity.kind === 'remote' && identity.appidDigest === undefined;
}

/**
 * How a recorded target and the one resolved now differ (see {@link compareTargets}):
 * `unconfirmed` is not a difference found, but one that cannot be ruled out — the same API
 * reached with an access token on either side, which names no account.
 */
export type TargetDifference = 'kind' | 'base-url' | 'database' | 'account' | 'unconfirmed';

/**
 * How the target `now` differs from `recorded`, or undefined when both are the same account: the
 * same database; or the same base URL and the same appid. One base URL serves every account (as
 * `api.weixin.qq.com` does) and an access token does not say which account it belongs to (the
 * API has no call that answers the appid of a token), so with a token on either side the account
 * is `unconfirmed`, however alike the two accounts read.
 */
export function compareTargets(recorded: TargetIdentity, now: TargetIdentity): TargetDifference | undefined {
  if (recorded.kind === 'embedded' || now.kind === 'embedded') {
    if (recorded.kind !== now.kind) return 'kind';
    return recorded.kind === 'embedded' && now.kind === 'embedded' && recorded.database !== now.database
      ? 'database'
      : undefined;
  }
  if (recorded.baseUrl !== now.baseUrl) return 'base-url';
  const [a, b] = [recorded.appidDigest, now.appidDigest];
  if (a === undefined || b === undefined) return 'unconfirmed';
  return a !== b ? 'account' : undefined;
}

/** A target's identity as JSON, as saved plans and the plans of `--json` hold it (`target_id`). */
export function targetIdentityToJson(identity: TargetIdentity): Record<string, unknown> {
  return identity.kind === 'embedded'
    ? { kind: 'embedded', database: identity.database }
    : {
        kind: 'remote',
        base_url: identity.baseUrl,
        ...ifDefined('appid_digest', identity.appidDigest),
      };
}
