import { countOf, formatCount } from '../core/count.js';
import {
  type OperationNeed,
  type PartialFit,
  type PlanQuota,
  QUOTA_RESET,
  type QuotaChange,
  type QuotaRead,
  type QuotaShortfall,
  quotaUnreadableLine,
  shortOperations,
} from '../core/daily-quota.js';
import { isoLocalTime, shortLocalTime } from '../core/wall-time.js';
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
 * tenth of (`<operation>: 15,050 calls; 9,800 remain today`), and a warning when it cannot finish today;
 * or the one line that the quotas could not be read. Empty when nothing was read.
 */
export function planQuotaLines(quota: PlanQuota | undefined, partial?: PartialFit): string[] {
  if (quota === undefined) return [];
  if (quota.status === 'unreadable') return [escapeControls(quotaUnreadableLine(quota.reason))];
  // An operation the plan uses little of is noise in every everyday plan; --json keeps them all.
  const notable = quota.needs.filter((n) => n.calls * NOTABLE_SHARE >= n.quota.remain);
  if (notable.length === 0) return [];
  const lines = [`Daily quotas (they reset at ${QUOTA_RESET}):`];
  for (const n of notable)
    lines.push(`  ${n.operation}: ${countOf(n.calls, 'call')}; ${formatCount(n.quota.remain)} remain today`);
  const short = shortOperations(quota);
  if (short.length > 0) lines.push(cannotFinishLine(short, partial, quota.fitsNone === true));
  return lines;
}

/**
 * The warning of a plan that needs more calls of some operation than remain today: what apply
 * does of it, or, during an apply with `--allow-partial` (`partial`), what this one makes.
 */
export function cannotFinishLine(
  short: readonly OperationNeed[],
  partial?: PartialFit,
  fitsNone = false,
): string {
  const what = short
    .map((n) => `${n.operation} needs ${formatCount(n.calls)} and ${formatCount(n.quota.remain)} remain`)
    .join('; ');
  const then = `apply again after ${QUOTA_RESET} to finish.`;
  if (partial === undefined && fitsNone)
    return `Warning: this plan cannot finish today (${what}); no call of it fits today, so apply refuses to start it, even with --allow-partial; ${then}`;
  if (partial === undefined)
    return `Warning: this plan cannot finish today (${what}); apply refuses to start it unless --allow-partial, which makes what fits, whole; ${then}`;
  const { guides, calls } = partial;
  if (calls.made === 0)
    return `Warning: this plan cannot finish today (${what}). --allow-partial: no call of it fits today, so apply refuses to start it; ${then}`;
  const made =
    guides.total > 0
      ? `${formatCount(guides.made)} of ${countOf(guides.total, 'guide')}, each whole (${formatCount(calls.made)} of ${countOf(calls.total, 'call')})`
      : `${formatCount(calls.made)} of ${countOf(calls.total, 'call')}`;
  return `Warning: this plan cannot finish today (${what}). --allow-partial: this apply makes what fits today, ${made}; ${then}`;
}

/**
 * What the daily quotas left undone of an apply, for people: per operation whose quota ran out its
 * calls made and not, the guides done and not, when the quotas reset (in `timeZone`, the user's,
 * as guidectl prints every time), and the two ways to finish.
 */
export function renderQuotaShortfall(shortfall: QuotaShortfall, timeZone: string | undefined): string {
  const lines = ['', 'Daily quota used up:'];
  for (const o of shortfall.operations)
    lines.push(
      `  ${o.operation}: ${formatCount(o.made)} of ${countOf(o.calls, 'call')} made; ${formatCount(o.calls - o.made)} not made`,
    );
  const { done, notDone } = shortfall.guides;
  if (done + notDone > 0)
    lines.push(
      `  guides: ${formatCount(done)} of ${formatCount(done + notDone)} done, each whole; ${formatCount(notDone)} left for the next apply`,
    );
  const at = shortLocalTime(Math.floor(shortfall.resetsAt / 1000), timeZone);
  lines.push(
    `The quotas reset at ${at}, ${QUOTA_RESET}. Run guidectl apply again after then to finish: it makes only what is left.`,
    "To finish sooner, reset the account's quotas with POST /cgi-bin/clear_quota (ten times a month), then apply again.",
  );
  return `${lines.join('\n')}\n`;
}

/** An apply's `quota_shortfall` for machines. */
export function quotaShortfallToJson(
  shortfall: QuotaShortfall,
  timeZone: string | undefined,
): Record<string, unknown> {
  return {
    operations: Object.fromEntries(
      shortfall.operations.map((o) => [
        o.operation,
        { calls: o.calls, made: o.made, not_made: o.calls - o.made },
      ]),
    ),
    guides: { done: shortfall.guides.done, not_done: shortfall.guides.notDone },
    resets_at: isoLocalTime(Math.floor(shortfall.resetsAt / 1000), timeZone),
    resets: QUOTA_RESET,
  };
}

/** What changed of a saved plan's fit in today's quotas since it was saved, and what apply does. */
export function quotaChangeNote(change: QuotaChange): string {
  switch (change) {
    case 'now-short':
      return "note: when it was saved, this plan could finish within the day's quotas; it cannot now";
    case 'now-fits':
      return "note: when it was saved, this plan could not finish within the day's quotas; it can now, so it is applied whole";
    default: {
      const unreachable: never = change;
      return unreachable;
    }
  }
}
