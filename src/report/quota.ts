import { formatCount } from '../core/count.js';
import { QUOTA_RESET, type QuotaRead } from '../core/quota.js';
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
