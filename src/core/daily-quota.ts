/**
 * The daily call quotas of an account, as the target tells them (`quota/get`): per guide
 * operation, calls a day, made today and left today. The platform's quotas turn at midnight in
 * UTC+8 (Beijing time), whatever the zone of the one who reads them.
 */

/** The daily quota of one operation. */
export interface DailyQuota {
  readonly dailyLimit: number;
  readonly used: number;
  readonly remain: number;
}

/**
 * What a target said of the quotas of some operations: read, or unreadable (it does not answer
 * `quota/get`, as a service or gateway that serves the guide API alone), with why in words.
 */
export type QuotaRead<Op extends string = string> =
  | { readonly status: 'read'; readonly quotas: Readonly<Partial<Record<Op, DailyQuota>>> }
  | { readonly status: 'unreadable'; readonly reason: string };

/** When the daily quotas reset, in words. */
export const QUOTA_RESET = 'midnight UTC+8 (00:00 Beijing time)';

/** The one line that says the quotas could not be read, and what follows from it. */
export function quotaUnreadableLine(reason: string): string {
  return `quotas could not be read (${reason}); planned as if no daily quota limits the calls`;
}

/** One write operation a plan uses: the calls it needs, and its quota today. */
export interface OperationNeed {
  readonly operation: string;
  readonly calls: number;
  readonly quota: DailyQuota;
}

/**
 * What a plan's calls need of today's quotas: per write operation the plan uses, its calls and
 * its quota, and whether every one fits in what remains today; or that they could not be read.
 * Absent when the plan makes no call (nothing is read then).
 */
export type PlanQuota =
  | {
      readonly status: 'read';
      readonly needs: readonly OperationNeed[];
      readonly fitsToday: boolean;
      /** Set when not one call of the plan fits today: apply refuses it, even with `--allow-partial`. */
      readonly fitsNone?: true;
    }
  | { readonly status: 'unreadable'; readonly reason: string };

/** The operations whose calls do not fit in what remains of their quota today. */
export function shortOperations(quota: PlanQuota | undefined): readonly OperationNeed[] {
  return quota?.status === 'read' ? quota.needs.filter((n) => n.calls > n.quota.remain) : [];
}

const UTC8_MS = 8 * 3600_000;
const DAY_MS = 24 * 3600_000;

/** The day of `ms` in UTC+8 (Beijing time, where the platform's quotas turn), as a day number. */
export function quotaDayOf(ms: number): number {
  return Math.floor((ms + UTC8_MS) / DAY_MS);
}

/** The instant the quotas next reset after `ms`: the next midnight in UTC+8, in ms since the epoch. */
export function nextQuotaReset(ms: number): number {
  return (quotaDayOf(ms) + 1) * DAY_MS - UTC8_MS;
}

/** One operation whose daily quota ran out during an apply: its calls, and how many were made. */
export interface OperationShortfall {
  readonly operation: string;
  readonly calls: number;
  readonly made: number;
}

/**
 * What the daily quotas left undone of an apply (a 45009 met, with `--allow-partial` or not): per
 * operation whose quota ran out, its calls made and not; the guides the plan touches, done (every
 * call on them made) and not; and when the quotas reset, after which apply again finishes the job.
 */
export interface QuotaShortfall {
  readonly operations: readonly OperationShortfall[];
  readonly guides: { readonly done: number; readonly notDone: number };
  /** The next midnight UTC+8, in ms since the epoch. */
  readonly resetsAt: number;
}

/**
 * What an apply with `--allow-partial` makes today of a plan that cannot finish: the guides it
 * makes whole and the calls it makes, each of the plan's.
 */
export interface PartialFit {
  readonly guides: { readonly made: number; readonly total: number };
  readonly calls: { readonly made: number; readonly total: number };
}

/** A plan's `quota` for machines; with what an apply with `--allow-partial` makes of it (`partial`). */
export function planQuotaToJson(quota: PlanQuota, partial?: PartialFit): Record<string, unknown> {
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
    ...(partial === undefined ? {} : { partial: { guides: partial.guides, calls: partial.calls } }),
  };
}

/**
 * How whether a saved plan fits in today's quotas changed between when it was saved (`saved`) and
 * now: `now-short` (it fitted, it does not now), `now-fits` (the reverse), or undefined when it did
 * not change or either was not read. Only such a change alters what apply does.
 */
export type QuotaChange = 'now-short' | 'now-fits';

export function quotaChange(
  saved: PlanQuota | undefined,
  now: PlanQuota | undefined,
): QuotaChange | undefined {
  if (saved?.status !== 'read' || now?.status !== 'read' || saved.fitsToday === now.fitsToday)
    return undefined;
  return now.fitsToday ? 'now-fits' : 'now-short';
}

/** What remains today of the quota of each operation a plan's quota read names; empty when none was read. */
export function quotaRemain(quota: PlanQuota | undefined): ReadonlyMap<string, number> {
  if (quota?.status !== 'read') return new Map();
  return new Map(quota.needs.map((n) => [n.operation, n.quota.remain]));
}

/**
 * The calls past what remains today of their operation's quota (`remain`): of each operation, all
 * but its first `remain` calls in plan order. Apply does not start them, so that what it makes is
 * the plan's first calls, and none is sent only to be refused with 45009.
 */
export function callsPastQuota(
  calls: readonly { readonly operation: string }[],
  remain: ReadonlyMap<string, number>,
): Set<number> {
  const started = new Map<string, number>();
  const past = new Set<number>();
  calls.forEach((call, index) => {
    const left = remain.get(call.operation);
    if (left === undefined) return;
    const before = started.get(call.operation) ?? 0;
    if (before >= left) past.add(index);
    else started.set(call.operation, before + 1);
  });
  return past;
}
