import type { PlanQuota, QuotaRead } from '../core/daily-quota.js';
import type { DesiredState, SafetyPolicy } from '../core/desired.js';
import { type Diagnostic, hasErrors } from '../core/diagnostics.js';
import type { LiveReadScope, LiveState } from '../core/live.js';
import type { Plan, PlannedOperation } from '../core/plan-data.js';
import { ifDefined } from '../core/records.js';
import type { GuardResult } from '../core/safety.js';
import type { PlannedTarget, TargetIdentity } from '../core/target-identity.js';
import { type LiveReader, type QuotaReader, readLiveState, readQuotas, readScopeFor } from '../live/index.js';
import {
  checkDeleteGuards,
  checkProtection,
  countDeletes,
  countLive,
  type GuardFlags,
  type PlanBasis,
  planBasis,
  planChanges,
  planId,
  plannedOperations,
  planQuota,
  resolveGuardPolicy,
} from '../plan/index.js';
import type { LoadedFiles } from './files.js';

/** Where the live state comes from: a read of what a scope names (the CLI adds progress lines). */
export interface LiveSource {
  read(scope: LiveReadScope): Promise<LiveState>;
  /**
   * Which account the reads go to: the plan id covers it (so a plan saved or pinned against one
   * account is refused on another). Needed to plan files of an environment; the CLI always gives it.
   */
  readonly target?: TargetIdentity;
  /**
   * Reads today's quotas of the write operations a plan uses (`quota/get`); without it, no quota
   * is read and the plan says nothing of them (a library caller's choice).
   */
  readonly quotas?: (operations: readonly PlannedOperation[]) => Promise<QuotaRead<PlannedOperation>>;
}

/**
 * A live source that reads through `reader` (a client's read calls): the one place plan and apply
 * read quotas from. `read` takes the place of the plain read of the live state (the CLI's adds
 * progress lines).
 */
export function liveSourceOf(
  reader: LiveReader & Partial<QuotaReader>,
  target?: TargetIdentity,
  read?: LiveSource['read'],
): LiveSource {
  const { readQuota } = reader;
  return {
    read: read ?? ((scope) => readLiveState(reader, scope)),
    ...(readQuota === undefined ? {} : { quotas: (operations) => readQuotas({ readQuota }, operations) }),
    ...ifDefined('target', target),
  };
}

/**
 * What `plan` needs of today's quotas, read from `source`: only when the plan makes calls, and
 * only of the operations it uses. Not part of the plan id: the counts change with every call
 * anyone makes, and the plan (its calls) does not depend on them.
 */
export async function readPlanQuota(plan: Plan, source: LiveSource): Promise<PlanQuota | undefined> {
  if (plan.calls.length === 0 || source.quotas === undefined) return undefined;
  return planQuota(plan, await source.quotas(plannedOperations(plan)));
}

/** What the plan id of `files` read from `source` covers of where it was made: target and environment. */
export function plannedTarget(files: LoadedFiles, source: LiveSource): PlannedTarget {
  const { target } = source;
  if (files.environment === undefined) return target === undefined ? {} : { target };
  if (target === undefined)
    throw new Error(`planning environment ${files.environment.name} needs the identity of its target`);
  return { target, environment: files.environment.name };
}

/**
 * What planning `desired` must read: the least that the plan needs, and — when a guide is
 * protected and `prune.groups` may delete groups — the members of every group, so that deleting
 * a group that holds a protected guide is caught by {@link checkProtection}.
 */
export function planReadScope(desired: DesiredState): LiveReadScope {
  const scope = readScopeFor(desired);
  const protectsGuides = (desired.protect?.guides.length ?? 0) > 0;
  return desired.prune.groups && protectsGuides ? { ...scope, groupMembers: 'all' } : scope;
}

/** A plan checked against the protections; `plan` is absent when any diagnostic is an error. */
export interface CheckedPlan {
  readonly plan?: Plan;
  readonly diagnostics: readonly Diagnostic[];
}

/** Plans `desired` against `live`, then checks the protections on the plan. */
export function makePlan(desired: DesiredState, live: LiveState): CheckedPlan {
  const result = planChanges(desired, live);
  if (result.plan === undefined) return { diagnostics: result.diagnostics };
  const diagnostics = [...result.diagnostics, ...checkProtection(desired, live, result.plan)];
  return hasErrors(diagnostics) ? { diagnostics } : { plan: result.plan, diagnostics };
}

/**
 * The deletion guards of `plan` against `live`, under the files' `safety` settings and this run's
 * flags (flags win).
 */
export function evaluateGuards(
  safety: Pick<SafetyPolicy, 'maxDeletes' | 'maxDeleteShare'> | undefined,
  plan: Plan,
  live: LiveState,
  flags: GuardFlags,
): GuardResult[] {
  return checkDeleteGuards(countDeletes(plan, live), countLive(live), resolveGuardPolicy(safety, flags));
}

/**
 * A plan run: `invalid` when the plan cannot be made (its diagnostics say why); else the plan
 * with everything it was made from and its id, guards and warnings.
 */
export type PlanRun =
  | { readonly status: 'invalid'; readonly diagnostics: readonly Diagnostic[] }
  | {
      readonly status: 'planned';
      readonly files: LoadedFiles;
      readonly live: LiveState;
      readonly scope: LiveReadScope;
      readonly basis: PlanBasis;
      readonly plan: Plan;
      readonly planId: string;
      readonly guards: readonly GuardResult[];
      /** What the calls need of today's quotas; absent when the plan makes none or none was read. */
      readonly quota?: PlanQuota;
      /** Warnings of the plan (errors make the run `invalid`). */
      readonly diagnostics: readonly Diagnostic[];
      /** Every warning: the files' (told when they were loaded), then the plan's (`diagnostics`). */
      readonly warnings: readonly Diagnostic[];
    };

/**
 * `guidectl plan` as a use case: reads the live state the files need, plans, checks protections
 * and evaluates the deletion guards. It only reads: give it a read-only source.
 */
export async function planRun(files: LoadedFiles, source: LiveSource, flags: GuardFlags): Promise<PlanRun> {
  const scope = planReadScope(files.state);
  const live = await source.read(scope);
  const { plan, diagnostics } = makePlan(files.state, live);
  if (plan === undefined) return { status: 'invalid', diagnostics };
  const basis = planBasis(files.state, live, scope, plannedTarget(files, source));
  const quota = await readPlanQuota(plan, source);
  return {
    status: 'planned',
    files,
    live,
    scope,
    basis,
    plan,
    planId: planId(plan, basis),
    guards: evaluateGuards(files.state.safety, plan, live, flags),
    ...ifDefined('quota', quota),
    diagnostics,
    warnings: [...(files.warnings ?? []), ...diagnostics],
  };
}
