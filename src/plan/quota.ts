import type { ApplyResult, Plan, PlannedOperation } from '../core/plan.js';
import {
  nextQuotaReset,
  type OperationNeed,
  type OperationShortfall,
  type PlanQuota,
  type QuotaRead,
  type QuotaShortfall,
} from '../core/quota.js';

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
  return { status: 'read', needs, fitsToday: needs.every((n) => n.calls <= n.quota.remain) };
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
  const guides = new Map<string, boolean>();
  for (const o of result.outcomes) {
    const subject = plan.calls[o.index]?.subject;
    if (subject?.kind !== 'guide') continue;
    guides.set(subject.address, (guides.get(subject.address) ?? true) && o.status === 'done');
  }
  const done = [...guides.values()].filter((d) => d).length;
  return { operations, guides: { done, notDone: guides.size - done }, resetsAt: nextQuotaReset(nowMs) };
}
