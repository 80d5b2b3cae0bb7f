import { type GuideClient, quotaUnreadable } from '../client/index.js';
import type { DailyQuota, QuotaRead } from '../core/daily-quota.js';
import type { OperationName } from '../wire/operations.js';

/** The one read call quotas need: plan mode may be handed it, as it is handed the live reads. */
export interface QuotaReader {
  readQuota: GuideClient['readQuota'];
}

/**
 * The daily quotas of `operations`, read at once (the client's parallelism bounds them). A target
 * that does not answer `quota/get` gives `unreadable`; any other failure is thrown, as a failed
 * read of the live state is.
 */
export async function readQuotas<Op extends OperationName>(
  reader: QuotaReader,
  operations: readonly Op[],
): Promise<QuotaRead<Op>> {
  const results = await Promise.allSettled(operations.map((op) => reader.readQuota(op)));
  const quotas: Partial<Record<Op, DailyQuota>> = {};
  let unreadable: string | undefined;
  for (const [i, result] of results.entries()) {
    const op = operations[i];
    if (op === undefined) continue;
    if (result.status === 'fulfilled') {
      const { daily_limit: dailyLimit, used, remain } = result.value;
      quotas[op] = { dailyLimit, used, remain };
    } else {
      const why = quotaUnreadable(result.reason);
      if (why === undefined) throw result.reason;
      unreadable ??= why;
    }
  }
  if (unreadable !== undefined)
    return {
      status: 'unreadable',
      reason: `the target does not answer quota/get: ${unreadable}`,
    };
  return { status: 'read', quotas };
}
