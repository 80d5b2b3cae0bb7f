import type { PlanQuota } from './daily-quota.js';
import type { Diagnostic } from './diagnostics.js';
import type { Plan } from './plan-data.js';
import type { GuardResult } from './safety.js';

/**
 * One environment's part of `plan --all-envs`: its plan (with id and deletion guards), the
 * diagnostics that kept the plan from being made (`invalid`), or the failure that kept it from
 * being read (`failed`: the target could not be resolved, opened or read). `target` says where
 * the calls went, never a secret, once it is known.
 *
 * Invariants: `name` is a declared environment's; a `planned` outcome's `diagnostics` are warnings.
 */
export interface EnvironmentPlan {
  readonly name: string;
  readonly target?: string;
  readonly outcome:
    | {
        readonly kind: 'planned';
        readonly plan: Plan;
        readonly planId: string;
        readonly guards: readonly GuardResult[];
        readonly diagnostics: readonly Diagnostic[];
        /** What its calls need of the environment's quotas today, when they were read. */
        readonly quota?: PlanQuota;
      }
    | { readonly kind: 'invalid'; readonly diagnostics: readonly Diagnostic[] }
    | { readonly kind: 'failed'; readonly message: string };
}

/**
 * How one environment of `apply --all-envs` ended: `interrupted` when the stop signal (Ctrl-C)
 * came while it ran and it did not finish; `skipped` when it was not started, after an earlier
 * failure or once the stop signal came.
 */
export interface EnvironmentApply {
  readonly name: string;
  /** `unchanged`: its plan had no changes, so nothing was applied. */
  readonly status: 'applied' | 'unchanged' | 'failed' | 'interrupted' | 'skipped';
  /** Why it failed or was not started, when known (human text shows it). */
  readonly message?: string;
}
