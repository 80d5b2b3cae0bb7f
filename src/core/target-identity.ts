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
 * same `baseUrl`.
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

/** How a recorded target and the one resolved now differ (see {@link compareTargets}). */
export type TargetDifference = 'kind' | 'base-url' | 'database' | 'account';

/**
 * How the target `now` differs from `recorded`, or undefined when both are the same account as
 * far as they tell: the same database; or the same base URL, and the same appid when both know it
 * (an access token on one side does not tell the account, so it is not a difference — the plan's
 * digest of the account as read still is).
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
  return a !== undefined && b !== undefined && a !== b ? 'account' : undefined;
}
