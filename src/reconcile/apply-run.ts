import type { Applied, ApplyRun, CancelReason, Drift, Reviewed } from '../core/apply-run-data.js';
import { type Clock, systemClock } from '../core/clock.js';
import {
  nextQuotaReset,
  type PlanQuota,
  quotaChange,
  quotaRemain,
  shortOperations,
} from '../core/daily-quota.js';
import type { DesiredState } from '../core/desired.js';
import type { Diagnostic } from '../core/diagnostics.js';
import type { LiveState } from '../core/live.js';
import type { ApplyResult, Plan } from '../core/plan-data.js';
import { ifDefined } from '../core/records.js';
import type { GuardResult, Refusal } from '../core/safety.js';
import {
  checkProtection,
  desiredDigest,
  detectReplacedWords,
  type GuardFlags,
  liveDigest,
  type PlanBasis,
  partialFit,
  planBasis,
  planId,
  protectionFromNames,
  quotaShortfall,
  type SavedPlan,
} from '../plan/index.js';
import type { LoadedFiles } from './files.js';
import {
  evaluateGuards,
  type LiveSource,
  makePlan,
  planReadScope,
  planRun,
  readPlanQuota,
} from './plan-run.js';
import { staleReport } from './stale-facts.js';
import { type VerifyMode, type VerifyRead, verifyRead, withVouched } from './verify.js';

/**
 * What apply makes its calls from: desired-state files (planned now), or a saved plan (with the
 * files to check it against when they are at hand; `paths` are those files as the user names them).
 */
export type ApplySource =
  | { readonly kind: 'files'; readonly files: LoadedFiles }
  | {
      readonly kind: 'saved';
      readonly saved: SavedPlan;
      /** The saved plan's file, as the user named it. */
      readonly file: string;
      readonly files: LoadedFiles | undefined;
      readonly paths: readonly string[];
    };

/** What apply is given to do its work: how it reads, asks, writes, and learns it was stopped. */
export interface ApplyDeps extends LiveSource {
  /** Told the plan once it is made and checked, before it is refused, found empty or approved. */
  review?(reviewed: Reviewed): void;
  /** Whether to make the calls (a confirmation): false (the user said no) or `cancelled` cancels. */
  approve(reviewed: Reviewed, source: ApplySource): Promise<boolean | { readonly cancelled: CancelReason }>;
  /**
   * Makes the plan's calls (e.g. `executePlan` with a client) and says how each went; `live` is
   * the account as the plan read it, which a lost answer of an append is settled against, and
   * `quotaRemain` what remains today of the quotas of the operations it uses, as just read (empty
   * when none was): of each, only the first `remain` calls in plan order are to start.
   */
  execute(plan: Plan, live: LiveState, quotaRemain: ReadonlyMap<string, number>): Promise<ApplyResult>;
  /** Writes given up without an answer, which may still land (see the client's `abandonedWrites`). */
  abandonedWrites(): number;
  /** Aborted when the user stops the run: the check after the calls is then skipped. */
  readonly signal?: AbortSignal;
  /** The time, for when the daily quotas reset after calls met one used up; the system's by default. */
  readonly clock?: Clock;
}

export interface ApplyFlags extends GuardFlags {
  /** `--plan-id`: refuse unless the plan applied has this id (hex digits, in either case). */
  readonly planId?: string;
  /** `--verify`: what the check after the calls reads again (`targeted` by default). */
  readonly verify?: VerifyMode;
  /**
   * `--allow-partial`: start a plan that cannot finish within today's quotas. Of each operation
   * short of its quota, the calls past what remains are not started (nor those that depend on
   * them), so what is made is the plan's first guides, whole; apply again after the reset to finish.
   */
  readonly allowPartial?: boolean;
}

/**
 * `guidectl apply` as a use case. From files: reads the live state, plans, checks protections and
 * guards, then (approved) makes the calls and plans again to check convergence. From a saved plan:
 * reads the live state with the plan's read scope, refuses it when the account or the files
 * changed since it was made (`stale`), checks it without trusting it (see {@link checkSaved}),
 * then makes exactly its calls.
 */
export async function applyRun(source: ApplySource, deps: ApplyDeps, flags: ApplyFlags): Promise<ApplyRun> {
  return source.kind === 'files' ? applyFiles(source, deps, flags) : applySaved(source, deps, flags);
}

/**
 * The plan id `--plan-id` pins, as plan ids are written (lower-case hex): an id copied in upper
 * case, or retyped so, is the same id.
 */
function pinnedPlanId(flags: ApplyFlags): string | undefined {
  return flags.planId?.toLowerCase();
}

async function applyFiles(
  source: Extract<ApplySource, { kind: 'files' }>,
  deps: ApplyDeps,
  flags: ApplyFlags,
): Promise<ApplyRun> {
  const run = await planRun(source.files, deps, flags);
  if (run.status === 'invalid') return run;
  const { plan, planId: id, guards, live, scope, basis } = run;
  const refusals: Refusal[] = [];
  const expected = pinnedPlanId(flags);
  if (expected !== undefined && expected !== id) refusals.push({ kind: 'plan-id', expected, actual: id });
  refusals.push(...guardRefusals(guards));
  refusals.push(...quotaRefusals(run.quota, flags, deps));
  const reviewed: Reviewed = {
    ...{ plan, id, guards, diagnostics: run.diagnostics },
    ...quotaReview(plan, run.quota, flags),
  };
  const verify = flags.verify ?? 'targeted';
  return proceed(source, deps, { reviewed, live }, refusals, verify, (result) =>
    planAgain(deps, source.files, basis, verifyRead(verify, scope, plan, result, live), plan, live),
  );
}

async function applySaved(
  source: Extract<ApplySource, { kind: 'saved' }>,
  deps: ApplyDeps,
  flags: ApplyFlags,
): Promise<ApplyRun> {
  const { saved, files } = source;
  const expected = pinnedPlanId(flags);
  if (expected !== undefined && expected !== saved.planId) {
    return {
      status: 'refused',
      refusals: [{ kind: 'plan-id', expected, actual: saved.planId, file: source.file }],
    };
  }
  const scope = saved.basis.readScope;
  const live = await deps.read(scope);
  const liveChanged = liveDigest(live) !== saved.basis.liveDigest;
  const filesChanged = files !== undefined && desiredDigest(files.state) !== saved.basis.desiredDigest;
  if (liveChanged || filesChanged) {
    return {
      status: 'stale',
      report: staleReport(saved, { liveChanged, filesChanged, paths: source.paths, files, live }),
    };
  }
  // The guards are checked again with the files' settings and this run's flags. Without the
  // files, the defaults and the flags: the saved copy of the settings is not trusted, as anyone
  // can edit it and recompute the id with the library.
  const guards = evaluateGuards(files?.state.safety, saved.plan, live, flags);
  const checks = checkSaved(source, live);
  if (checks.status === 'invalid') return checks;
  // Today's quotas are read again: they change with every call, and only a change of whether the
  // plan fits in them changes what apply does.
  const quota = await readPlanQuota(saved.plan, deps);
  const change = quotaChange(saved.quota, quota);
  const reviewed: Reviewed = {
    ...{ plan: saved.plan, id: saved.planId, guards, diagnostics: checks.diagnostics },
    ...quotaReview(saved.plan, quota, flags),
    ...ifDefined('quotaChange', change),
  };
  const refusals = [
    ...checks.refusals,
    ...guardRefusals(guards),
    ...quotaRefusals(quota, flags, deps, change === 'now-short'),
  ];
  const verify = flags.verify ?? 'targeted';
  const check =
    files === undefined
      ? undefined
      : (result: ApplyResult) =>
          planAgain(
            deps,
            files,
            planBasis(files.state, live, scope, saved.basis),
            verifyRead(verify, scope, saved.plan, result, live),
            saved.plan,
            live,
          );
  return proceed(source, deps, { reviewed, live }, refusals, verify, check);
}

/**
 * The checks of a saved plan that do not trust it, as refusals: with the files at hand, the plan
 * the files make now against the account as read (the same files and account as when it was
 * made, the digests say) must have the saved plan's id — so calls, guards, protections and read
 * scope edited in the file, even with a recomputed id, are refused; without the files, the saved
 * protections (which the id covers) are checked on the saved calls.
 */
function checkSaved(
  source: Extract<ApplySource, { kind: 'saved' }>,
  live: LiveState,
):
  | { readonly status: 'invalid'; readonly diagnostics: readonly Diagnostic[] }
  | {
      readonly status: 'checked';
      readonly refusals: Refusal[];
      readonly diagnostics: readonly Diagnostic[];
    } {
  const { saved, files, file } = source;
  if (files !== undefined) {
    const now = makePlan(files.state, live);
    if (now.plan === undefined) return { status: 'invalid', diagnostics: now.diagnostics };
    // The target and environment as the plan recorded them: apply compared the target with the
    // one resolved now before reading (checkSavedTarget; an account an access token leaves
    // unconfirmed only with --plan-id); the id then checks the calls, guards and protections the
    // files make now.
    const basis = planBasis(files.state, live, planReadScope(files.state), saved.basis);
    const id = planId(now.plan, basis);
    const refusals: Refusal[] =
      id === saved.planId ? [] : [{ kind: 'saved-plan-edited', file, saved: saved.planId, now: id }];
    return { status: 'checked', refusals, diagnostics: now.diagnostics };
  }
  const desired: DesiredState = {
    groups: [],
    guides: [],
    prune: { guides: false, groups: false },
    protect: protectionFromNames(saved.basis.protect, { file, line: 1, column: 1 }),
  };
  const refusals = checkProtection(desired, live, saved.plan)
    .filter((d) => d.severity === 'error')
    .map((d): Refusal => ({ kind: 'protection', message: d.message }));
  return { status: 'checked', refusals, diagnostics: [] };
}

/**
 * The quota read of a plan about to be applied, and with `--allow-partial`, when the plan cannot
 * finish today, what this apply makes of it.
 */
function quotaReview(
  plan: Plan,
  quota: PlanQuota | undefined,
  flags: ApplyFlags,
): Pick<Reviewed, 'quota' | 'partial'> {
  if (quota === undefined) return {};
  const partial = flags.allowPartial === true && shortOperations(quota).length > 0;
  return partial ? { quota, partial: partialFit(plan, quota) } : { quota };
}

/**
 * A plan that cannot finish within today's quotas is refused, unless `--allow-partial`; one of
 * which no call fits today is refused either way, since the run could make nothing.
 */
function quotaRefusals(
  quota: PlanQuota | undefined,
  flags: ApplyFlags,
  deps: Pick<ApplyDeps, 'clock'>,
  sinceSaved = false,
): Refusal[] {
  const short = shortOperations(quota);
  if (short.length === 0 || quota?.status !== 'read') return [];
  if (quota.fitsNone === true) {
    const used = short.filter((n) => n.quota.remain === 0);
    return [{ kind: 'quota-used-up', used, resetsAt: nextQuotaReset((deps.clock ?? systemClock).now()) }];
  }
  if (flags.allowPartial === true) return [];
  return [{ kind: 'quota', short, ...(sinceSaved ? { sinceSaved: true } : {}) }];
}

function guardRefusals(guards: readonly GuardResult[]): Refusal[] {
  return guards.filter((g) => g.status === 'refused').map((guard) => ({ kind: 'guard', guard }));
}

/** What the check after the calls found: the plan made then (absent when it could not be made). */
interface Check {
  readonly drift?: Drift;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * What an apply of files and of a saved plan both do once the plan is made and checked: show it,
 * then refuse it, or say there is nothing to do, or, approved, make its calls and check them.
 */
async function proceed(
  source: ApplySource,
  deps: ApplyDeps,
  { reviewed, live }: { readonly reviewed: Reviewed; readonly live: LiveState },
  refusals: readonly Refusal[],
  verify: VerifyMode,
  check: ((result: ApplyResult) => Promise<Check>) | undefined,
): Promise<ApplyRun> {
  deps.review?.(reviewed);
  if (refusals.length > 0) return { status: 'refused', reviewed, refusals };
  if (reviewed.plan.calls.length === 0) return { status: 'unchanged', reviewed };
  const approval = await deps.approve(reviewed, source);
  if (approval !== true)
    return { status: 'cancelled', reviewed, reason: approval === false ? 'declined' : approval.cancelled };
  return makeCalls(deps, reviewed, live, verify, check);
}

/** Makes the calls, then (when it can) checks that the account converged. */
async function makeCalls(
  deps: ApplyDeps,
  reviewed: Reviewed,
  live: LiveState,
  verify: VerifyMode,
  check: ((result: ApplyResult) => Promise<Check>) | undefined,
): Promise<Applied> {
  const result = await deps.execute(reviewed.plan, live, quotaRemain(reviewed.quota));
  // Interrupted: skip the convergence check (it could not run anyway). Whatever fails after the
  // writes, the outcome of the writes is returned.
  const stopped = (): boolean => deps.signal?.aborted === true;
  let interrupted = stopped();
  let checked: Check | undefined;
  let checkError: unknown;
  if (check !== undefined && !interrupted) {
    try {
      checked = await check(result);
    } catch (error) {
      if (stopped()) interrupted = true;
      else checkError = error;
    }
  }
  const allDone = result.outcomes.every((o) => o.status === 'done');
  // A write given up without an answer may still land: what was read cannot be the final state.
  const abandoned = deps.abandonedWrites();
  const drift = checked?.drift;
  const shortfall = quotaShortfall(reviewed.plan, result, (deps.clock ?? systemClock).now());
  const converged =
    abandoned === 0 && (check === undefined ? allDone : drift !== undefined && drift.plan.calls.length === 0);
  return {
    status: 'applied',
    reviewed,
    result,
    interrupted,
    ...ifDefined('drift', drift),
    checkDiagnostics: checked?.diagnostics ?? [],
    ...ifDefined('checkError', checkError),
    allDone,
    canCheck: check !== undefined,
    verify,
    converged,
    abandoned,
    ...ifDefined('quotaShortfall', shortfall),
  };
}

/**
 * Plans the files again against a new read of the account, after the calls of `plan`: what
 * `verify` says to read again, with the configurations the answers vouch for filled in — the
 * same plan, drift and verdict as after a full read when the answers are right.
 */
async function planAgain(
  source: LiveSource,
  files: LoadedFiles,
  basis: PlanBasis,
  verify: VerifyRead,
  plan: Plan,
  before: LiveState,
): Promise<Check> {
  const after = withVouched(await source.read(verify.scope), verify);
  const now = makePlan(files.state, after);
  if (now.plan === undefined) return { diagnostics: now.diagnostics };
  const wordsReplaced = detectReplacedWords(plan, before.account, after.account);
  const drift: Drift = {
    plan: now.plan,
    // The same files and read scope as the plan's basis: only the account's digest is new.
    planId: planId(now.plan, { ...basis, liveDigest: liveDigest(after) }),
    ...ifDefined('wordsReplaced', wordsReplaced),
  };
  return { drift, diagnostics: now.diagnostics };
}
