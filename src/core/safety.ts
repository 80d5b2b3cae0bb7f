/**
 * The deletion guards: a plan that deletes many guides, groups or memberships at once is refused
 * unless the run acknowledges exactly how many. The guards are checked on the plan object itself
 * (as octoDNS checks its update and delete thresholds on its `Plan`), by pure code in `plan/`;
 * these are the types the checks produce and the renderers in `report/` read.
 */

import type { OperationNeed } from './daily-quota.js';
import type { DeleteKind } from './desired.js';
import type { PlannedCall } from './plan-data.js';

/** The most deletions of each kind a plan may make when nothing else is said. */
export const DEFAULT_MAX_DELETES = 10;
/** The largest share of the live count a plan may delete when nothing else is said. */
export const DEFAULT_MAX_DELETE_SHARE = 0.25;
/**
 * Whatever the share, a plan may delete at least this many of a kind: deleting one guide of three
 * is not a mass deletion (octoDNS likewise skips its thresholds for small zones).
 */
export const MIN_DELETE_LIMIT = 1;

/** Where a setting of the guards came from, so that a message can name what to change. */
export type SettingOrigin = 'default' | 'file' | 'flag';

export interface Setting {
  readonly value: number;
  readonly origin: SettingOrigin;
}

/**
 * The settings the guards are checked against, resolved from the defaults, the file's `safety`
 * section and the flags (flags win).
 *
 * Invariants: every `maxDeletes` and `allowDelete` value is a whole number ≥ 0; `maxDeleteShare`
 * is in [0, 1]. An `allowDelete` entry is always from a flag (`--allow-delete KIND=N`).
 */
export interface GuardPolicy {
  readonly maxDeletes: { readonly [K in DeleteKind]: Setting };
  readonly maxDeleteShare: Setting;
  readonly allowDelete: { readonly [K in DeleteKind]?: Setting };
}

/**
 * `ok`: within the limit; `allowed`: above the threshold but within an `--allow-delete`
 * acknowledgement; `refused`: above the limit that applies, the plan must not run.
 */
export type GuardStatus = 'ok' | 'allowed' | 'refused';

/**
 * The outcome of one guard.
 *
 * Invariants: `threshold = min(maxDeletes, max(MIN_DELETE_LIMIT, floor(share × live)))`;
 * `limit` is `allowance` when there is one, else `threshold`; `status` is `refused` exactly when
 * `deletes > limit`, else `allowed` when `deletes > threshold`, else `ok`.
 */
export interface GuardResult {
  readonly kind: DeleteKind;
  /** Deletions of this kind the plan makes: guide, group and membership deletions. */
  readonly deletes: number;
  /** Live guides, live groups, or live memberships of the groups whose members the plan read. */
  readonly live: number;
  readonly maxDeletes: Setting;
  readonly maxDeleteShare: Setting;
  /** `max(MIN_DELETE_LIMIT, floor(share × live))`. */
  readonly shareLimit: number;
  readonly threshold: number;
  readonly allowance?: Setting;
  readonly limit: number;
  readonly status: GuardStatus;
}

/** The counts the guards compare a plan with. */
export type DeleteCounts = { readonly [K in DeleteKind]: number };

/** One live resource that differs between the read a saved plan was made from and a new read. */
export interface LiveDifference {
  readonly resource: 'guide' | 'group' | 'account' | 'task';
  /** `alice_wx`, `openid oXYZ`, a group's name with its id, or an account setting's key. */
  readonly address: string;
  readonly change: 'added' | 'removed' | 'changed';
}

/** A call in one of two plans and not in the other. */
export interface CallDifference {
  /** `added`: in the plan made now, not in the saved one; `removed`: the other way round. */
  readonly change: 'added' | 'removed';
  readonly call: PlannedCall;
}

/** Why a saved plan is stale, and what is known of the difference. */
export interface StaleReport {
  readonly savedPlanId: string;
  /** The environment the saved plan was made for (`plan --env NAME`), if any. */
  readonly environment?: string;
  /** The live resources that differ from the read the plan was made from; absent when none. */
  readonly live?: readonly LiveDifference[];
  /** The files differ from those the plan was made from. */
  readonly filesChanged: boolean;
  /** The files checked, as the user would name them. */
  readonly paths: readonly string[];
  /** A plan made now from the files and the new live state, when the files could be read. */
  readonly now?: { readonly planId: string; readonly calls: readonly CallDifference[] };
  /** How many plan errors kept a plan from being made now, when the files were read but planning failed. */
  readonly nowErrors?: number;
}

/**
 * Why apply will not make a plan's calls (each is said, and nothing is changed):
 * - `guard`: a deletion guard refuses the plan;
 * - `plan-id`: `--plan-id` names another plan than the one made now (`actual`), or than the saved
 *   plan in `file` holds;
 * - `saved-plan-edited`: the files of a saved plan make another plan against the same account, so
 *   the saved calls were edited after the plan was made;
 * - `protection`: a saved plan, applied without its files, touches what its `protect` list keeps;
 * - `quota`, `quota-used-up`: today's quotas are short of what the plan needs.
 */
export type Refusal =
  | { readonly kind: 'guard'; readonly guard: GuardResult }
  | { readonly kind: 'plan-id'; readonly expected: string; readonly actual: string; readonly file?: string }
  | {
      readonly kind: 'saved-plan-edited';
      readonly file: string;
      readonly saved: string;
      readonly now: string;
    }
  | { readonly kind: 'protection'; readonly message: string }
  /** The calls of some operations need more than remains of its quota today (`--allow-partial` lifts it). */
  | {
      readonly kind: 'quota';
      readonly short: readonly OperationNeed[];
      /** A saved plan that fitted in the day's quotas when it was saved. */
      readonly sinceSaved?: true;
    }
  /**
   * No call of the plan can be made today, not even with `--allow-partial`: each needs an
   * operation with no quota left today (`used`), or waits on a call that does.
   */
  | {
      readonly kind: 'quota-used-up';
      readonly used: readonly OperationNeed[];
      /** When the quotas reset (the next midnight UTC+8), in ms since the epoch. */
      readonly resetsAt: number;
    };

/** Whether any deletion guard refuses the plan. */
export function isRefused(results: readonly GuardResult[]): boolean {
  return results.some((r) => r.status === 'refused');
}
