import type { Plan, PlannedOperation } from '../core/plan.js';
import type { OperationNeed, PlanQuota, QuotaRead } from '../core/quota.js';

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
