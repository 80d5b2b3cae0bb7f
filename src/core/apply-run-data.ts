import type { PartialFit, PlanQuota, QuotaChange, QuotaShortfall } from './daily-quota.js';
import type { Diagnostic } from './diagnostics.js';
import type { ApplyResult, Plan, PlannedOperation } from './plan-data.js';
import type { GuardResult, Refusal, StaleReport } from './safety.js';

/**
 * What the apply use case (`reconcile/`'s `applyRun`) returns, as data: the renderers of `report/`
 * and the CLI read it; nothing in it is a function or a secret.
 */

/** A plan about to be applied: its calls, its id, its deletion guards as checked now, its warnings. */
export interface Reviewed {
  readonly plan: Plan;
  readonly id: string;
  readonly guards: readonly GuardResult[];
  readonly diagnostics: readonly Diagnostic[];
  /** What the calls need of today's quotas, as read now; absent when none was read. */
  readonly quota?: PlanQuota;
  /** A saved plan whose fit in today's quotas changed since it was saved. */
  readonly quotaChange?: QuotaChange;
  /** What this apply makes today of a plan that cannot finish, with `--allow-partial`. */
  readonly partial?: PartialFit;
}

/** What is left to do after the calls: the files planned again against a new read of the account. */
export interface Drift {
  readonly plan: Plan;
  readonly planId: string;
  /** Set when the read shows that the target replaced the sensitive words it was to append to. */
  readonly wordsReplaced?: WordsReplaced;
}

/**
 * A target that was told `semantics: append` replaced the sensitive-word list instead (see
 * `detectReplacedWords` in kinds/account/semantics.ts).
 */
export interface WordsReplaced {
  /** Words that were live, were not to be deleted, and are gone after the append; sorted. */
  readonly lost: readonly string[];
}

/** How the calls of an apply went, and what the check after them found. */
export interface Applied {
  readonly status: 'applied';
  readonly reviewed: Reviewed;
  readonly result: ApplyResult;
  /** The user stopped the run: calls not made are `not-started`, and no check was made. */
  readonly interrupted: boolean;
  /** What a plan made after the calls would do; absent when it was not made. */
  readonly drift?: Drift;
  /** The diagnostics of the plan made after the calls (its errors, when it could not be made). */
  readonly checkDiagnostics: readonly Diagnostic[];
  /** Why the check after the calls failed (a read failed), when it did. */
  readonly checkError?: unknown;
  readonly allDone: boolean;
  /** Whether the files were at hand to check convergence with. */
  readonly canCheck: boolean;
  /**
   * What the check read again: `full`, everything the plan read; `targeted`, all but the guide
   * configurations that the answers of their calls vouch for (see `reconcile/`'s verify).
   */
  readonly verify: 'targeted' | 'full';
  /**
   * The account, as the check read it (and, under `targeted`, as the answers vouch for the rest),
   * matches the files, and no write given up on can still land.
   */
  readonly converged: boolean;
  /** Writes given up without an answer that may still land (convergence is then not claimed). */
  readonly abandoned: number;
  /** What the daily quotas left undone, when a call met one used up (45009). */
  readonly quotaShortfall?: QuotaShortfall;
}

/**
 * Why an apply was not approved (nothing changed): the user said no at the question (`declined`),
 * or there is no terminal to ask on and the calls were not approved beforehand (`no-terminal`).
 */
export type CancelReason = 'declined' | 'no-terminal';

/**
 * The outcome of an apply, as data: the plan could not be made (`invalid`), the saved plan is
 * `stale`, the plan is `refused` (nothing changed), there is nothing to do (`unchanged`), it was
 * not approved (`cancelled`), or the calls were made (`applied`).
 */
export type ApplyRun =
  | { readonly status: 'invalid'; readonly diagnostics: readonly Diagnostic[] }
  | { readonly status: 'stale'; readonly report: StaleReport }
  | { readonly status: 'refused'; readonly reviewed?: Reviewed; readonly refusals: readonly Refusal[] }
  | { readonly status: 'unchanged'; readonly reviewed: Reviewed }
  | { readonly status: 'cancelled'; readonly reviewed: Reviewed; readonly reason: CancelReason }
  | Applied;

/**
 * What happens to a plan's calls as they run (`apply/`'s `runCalls`), for progress lines and the
 * `--json-stream` events: each call's start and end, its retries, the calls left unstarted, and
 * the two stops (the first lets the calls in flight finish; the second abandons them).
 */
export type CallsEvent =
  | { readonly type: 'start' | 'done'; readonly index: number; readonly operation: PlannedOperation }
  | {
      readonly type: 'failed';
      readonly index: number;
      readonly operation: PlannedOperation;
      readonly error: string;
      /** On the wire when the run was abandoned: it may have taken effect. */
      readonly abandoned: boolean;
    }
  | {
      readonly type: 'retry';
      readonly index: number;
      /** The operation retried: the call's own, or a read confirming its lost answer. */
      readonly operation: string;
      /** The attempt that failed, from 1. */
      readonly attempt: number;
      readonly delayMs: number;
      readonly reason: string;
      readonly errcode?: number;
    }
  | {
      readonly type: 'not-started';
      readonly index: number;
      readonly operation: PlannedOperation;
      readonly reason: string;
    }
  | { readonly type: 'stop' | 'abandon'; readonly inFlight: number };
