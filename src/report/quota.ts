import { countOf, formatCount } from '../core/count.js';
import {
  type OperationNeed,
  type PlanQuota,
  QUOTA_RESET,
  type QuotaRead,
  quotaUnreadableLine,
  shortOperations,
} from '../core/quota.js';
import { OPERATION_NAMES, OPERATIONS, type OperationName } from '../wire/operations.js';
import { escapeControls } from './escape.js';
import { alignColumns } from './table.js';

/** `guidectl quota`: one row per operation, writes first; or the one line that they could not be read. */
export function renderQuotaTable(read: QuotaRead<OperationName>, target: string): string {
  if (read.status === 'unreadable')
    return `Quotas of ${escapeControls(target)} could not be read: ${escapeControls(read.reason)}\n`;
  const rows = orderedQuotas(read.quotas).map(([op, q]) => [
    op,
    OPERATIONS[op].writes ? 'write' : 'read',
    formatCount(q.dailyLimit),
    formatCount(q.used),
    formatCount(q.remain),
  ]);
  return (
    `Daily quotas of ${escapeControls(target)}; they reset at ${QUOTA_RESET}\n\n` +
    alignColumns(['operation', 'kind', 'daily limit', 'used today', 'remain today'], rows, new Set([2, 3, 4]))
  );
}

/** `guidectl quota --json`. */
export function quotaToJson(read: QuotaRead<OperationName>): Record<string, unknown> {
  if (read.status === 'unreadable')
    return { format_version: 1, read: false, reason: read.reason, quotas: null };
  return {
    format_version: 1,
    read: true,
    resets: QUOTA_RESET,
    quotas: Object.fromEntries(
      orderedQuotas(read.quotas).map(([op, q]) => [
        op,
        { writes: OPERATIONS[op].writes, daily_limit: q.dailyLimit, used: q.used, remain: q.remain },
      ]),
    ),
  };
}

function orderedQuotas<Q>(quotas: Readonly<Partial<Record<OperationName, Q>>>): [OperationName, Q][] {
  const entries: [OperationName, Q][] = [];
  for (const writes of [true, false])
    for (const op of OPERATION_NAMES) {
      const q = quotas[op];
      if (q !== undefined && OPERATIONS[op].writes === writes) entries.push([op, q]);
    }
  return entries;
}

/** A plan that needs at least 1/NOTABLE_SHARE of what remains of an operation shows it. */
const NOTABLE_SHARE = 10;

/**
 * What a plan needs of today's quotas, for people: one line per write operation it uses at least a
 * tenth of (`addguideacct: 15,050 calls; 9,800 remain today`), and a warning when it cannot finish today;
 * or the one line that the quotas could not be read. Empty when nothing was read.
 */
export function planQuotaLines(quota: PlanQuota | undefined): string[] {
  if (quota === undefined) return [];
  if (quota.status === 'unreadable') return [escapeControls(quotaUnreadableLine(quota.reason))];
  // An operation the plan uses little of is noise in every everyday plan; --json keeps them all.
  const notable = quota.needs.filter((n) => n.calls * NOTABLE_SHARE >= n.quota.remain);
  if (notable.length === 0) return [];
  const lines = [`Daily quotas (they reset at ${QUOTA_RESET}):`];
  for (const n of notable)
    lines.push(`  ${n.operation}: ${countOf(n.calls, 'call')}; ${formatCount(n.quota.remain)} remain today`);
  const short = shortOperations(quota);
  if (short.length > 0) lines.push(cannotFinishLine(short));
  return lines;
}

/** The warning of a plan that needs more calls of some operation than remain today. */
export function cannotFinishLine(short: readonly OperationNeed[]): string {
  const what = short
    .map((n) => `${n.operation} needs ${formatCount(n.calls)} and ${formatCount(n.quota.remain)} remain`)
    .join('; ');
  return `Warning: this plan cannot finish today (${what}); apply refuses to start it unless --allow-partial, which makes what fits, whole; apply again after ${QUOTA_RESET} to finish.`;
}

/** A plan's `quota` for machines. */
export function planQuotaToJson(quota: PlanQuota): Record<string, unknown> {
  if (quota.status === 'unreadable') return { read: false, reason: quota.reason };
  return {
    read: true,
    fits_today: quota.fitsToday,
    resets: QUOTA_RESET,
    operations: Object.fromEntries(
      quota.needs.map((n) => [
        n.operation,
        { calls: n.calls, daily_limit: n.quota.dailyLimit, used: n.quota.used, remain: n.quota.remain },
      ]),
    ),
  };
}
