import {
  callsPastQuota,
  nextQuotaReset,
  type OperationNeed,
  type OperationShortfall,
  type PartialFit,
  type PlanQuota,
  type QuotaRead,
  type QuotaShortfall,
  quotaRemain,
} from '../core/daily-quota.js';
import type { ApplyResult, Plan, PlannedOperation } from '../core/plan-data.js';

/** The operations `plan`'s calls use, in the order of their first call. */
export function plannedOperations(plan: Plan): PlannedOperation[] {
  return [...new Set(plan.calls.map((c) => c.operation))];
}

/** What `plan`'s calls need of the quotas `read` tells: per operation used, its calls and quota. */
export function planQuota(plan: Plan, read: QuotaRead<PlannedOperation>): PlanQuota {
  if (read.status === 'unreadable') return read;
  const counts = new Map<PlannedOperation, number>();
  for (const call of plan.calls) counts.set(call.operation, (counts.get(call.operation) ?? 0) + 1);
  const needs: OperationNeed[] = [];
  for (const [operation, calls] of counts) {
    const quota = read.quotas[operation];
    if (quota !== undefined) needs.push({ operation, calls, quota });
  }
  const quota: PlanQuota = {
    status: 'read',
    needs,
    fitsToday: needs.every((n) => n.calls <= n.quota.remain),
  };
  // What --allow-partial would make, so that plan and apply say alike when it would make nothing.
  if (quota.fitsToday || partialFit(plan, quota).calls.made > 0) return quota;
  return { ...quota, fitsNone: true };
}

/**
 * What the daily quotas left undone of `plan`'s calls (`result`), with when they reset after
 * `nowMs`; undefined when no call met a used-up quota. A guide is done when every call on it was
 * made: the calls that depend on a call not made do not start, so the others are not half made.
 */
export function quotaShortfall(plan: Plan, result: ApplyResult, nowMs: number): QuotaShortfall | undefined {
  const exhausted = result.quotaExhausted;
  if (exhausted === undefined || exhausted.size === 0) return undefined;
  const operations: OperationShortfall[] = [];
  for (const operation of plannedOperations(plan)) {
    if (!exhausted.has(operation)) continue;
    const outcomes = result.outcomes.filter((o) => o.operation === operation);
    const made = outcomes.filter((o) => o.status === 'done').length;
    operations.push({ operation, calls: outcomes.length, made });
  }
  const done = new Set(result.outcomes.filter((o) => o.status === 'done').map((o) => o.index));
  const guides = guidesWhole(plan, done);
  return {
    operations,
    guides: { done: guides.whole, notDone: guides.total - guides.whole },
    resetsAt: nextQuotaReset(nowMs),
  };
}

/**
 * What an apply with `--allow-partial` makes today of `plan`, given `quota` as read: every call
 * but those past what remains of their operation's quota (see {@link callsPastQuota}) and those
 * that depend on one of them, as apply starts them.
 */
export function partialFit(plan: Plan, quota: PlanQuota): PartialFit {
  const left = callsPastQuota(plan.calls, quotaRemain(quota));
  // Every call's dependsOn names earlier calls: one pass in plan order carries what is left.
  plan.calls.forEach((call, index) => {
    if (call.dependsOn.some((d) => left.has(d))) left.add(index);
  });
  const made = new Set(plan.calls.map((_, index) => index).filter((index) => !left.has(index)));
  const guides = guidesWhole(plan, made);
  return {
    guides: { made: guides.whole, total: guides.total },
    calls: { made: made.size, total: plan.calls.length },
  };
}

/** The guides `plan`'s calls are on, and how many of them have every such call in `made`. */
function guidesWhole(plan: Plan, made: ReadonlySet<number>): { whole: number; total: number } {
  const guides = new Map<string, boolean>();
  plan.calls.forEach((call, index) => {
    if (call.subject.kind !== 'guide') return;
    guides.set(call.subject.address, (guides.get(call.subject.address) ?? true) && made.has(index));
  });
  return { whole: [...guides.values()].filter((w) => w).length, total: guides.size };
}
