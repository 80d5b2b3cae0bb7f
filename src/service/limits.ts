import { quotaDayOf } from '../core/daily-quota.js';
import { UsageError } from '../core/errors.js';
import { ifDefined } from '../core/records.js';
import { ERRCODE } from '../wire/errcodes.js';
import { isOperationName, type OperationName } from '../wire/operations.js';
import { ApiError } from './api-error.js';
import type { Store } from './store.js';

/**
 * Limits on guide calls, as the real platform sets them for an account: a daily quota per
 * operation (45009 past it, until midnight UTC+8), a per-minute limit (45011 until the minute
 * turns), and the calls it serves at once (-1 past it). A refused call has no effect and does
 * not count. The service serves one appid, so "per appid" is per service; the stored counts
 * carry the appid all the same, so that another `--appid` on the same database starts afresh.
 */

/** A number of calls per guide operation: those named, and `default` for the others. */
export interface OperationLimits {
  readonly operations: Readonly<Partial<Record<OperationName, number>>>;
  readonly default?: number;
}

/** Per-minute limits: per operation, and `all` for every guide call together. */
export interface PerMinuteLimits extends OperationLimits {
  readonly all?: number;
}

export interface CallLimitSpec {
  /** `--quota`: calls a day. */
  readonly daily: OperationLimits;
  /** `--per-minute`: calls a minute. */
  readonly perMinute: PerMinuteLimits;
  /** `--capacity`: calls in service at once. */
  readonly capacity?: number;
}

export const NO_LIMITS: CallLimitSpec = { daily: { operations: {} }, perMinute: { operations: {} } };

/** What `quota/get` answers as the daily limit of an operation without a quota. */
export const UNLIMITED_DAILY = 10_000_000;

/** How many times a month `clear_quota` may reset the account's quotas (48006 past it). */
export const CLEARS_A_MONTH = 10;

const MOST_CALLS = 1_000_000_000_000;
const UTC8_MS = 8 * 3600_000;
const MINUTE_MS = 60_000;

/**
 * Reads `OP=N[,OP=N…]` (with `default=N`, and `all=N` where `allowAll`) as `flag` gives it;
 * a UsageError names the part that is wrong and the fix.
 */
function parseOperationLimits(flag: string, text: string, allowAll: boolean): PerMinuteLimits {
  const keys = allowAll ? 'default or all' : 'default';
  if (text.trim() === '') {
    throw new UsageError(
      `${flag} takes OP=N[,OP=N…], e.g. ${flag} addguideacct=1500,default=100000; it is empty`,
    );
  }
  const operations: Partial<Record<OperationName, number>> = {};
  const seen = new Set<string>();
  let fallback: number | undefined;
  let all: number | undefined;
  for (const part of text.split(',')) {
    const [name = '', value, ...extra] = part.split('=').map((s) => s.trim());
    if (value === undefined || extra.length > 0 || name === '') {
      throw new UsageError(`${flag}: "${part.trim()}" is not OP=N; e.g. addguideacct=1500`);
    }
    if (seen.has(name)) throw new UsageError(`${flag}: ${name} is given twice; give each once`);
    seen.add(name);
    const n = Number(value);
    if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n > MOST_CALLS) {
      throw new UsageError(
        `${flag}: ${name}=${value} must be a whole number of calls from 0 to ${MOST_CALLS}, e.g. ${name}=1500`,
      );
    }
    if (name === 'default') fallback = n;
    else if (name === 'all' && allowAll) all = n;
    else if (isOperationName(name)) operations[name] = n;
    else {
      throw new UsageError(
        `${flag}: "${name}" is not a guide operation; name one as in /cgi-bin/guide/NAME (e.g. addguideacct), or ${keys}`,
      );
    }
  }
  return {
    operations,
    ...ifDefined('default', fallback),
    ...ifDefined('all', all),
  };
}

/** `--quota addguideacct=1500,default=100000`: calls a day per operation. */
export function parseQuota(text: string): OperationLimits {
  const { operations, default: fallback } = parseOperationLimits('--quota', text, false);
  return { operations, ...ifDefined('default', fallback) };
}

/** `--per-minute addguideacct=600,all=3000`: calls a minute per operation, and of all together. */
export function parsePerMinute(text: string): PerMinuteLimits {
  return parseOperationLimits('--per-minute', text, true);
}

/** Refuses limits a library caller gave that no flag could: unknown operations, counts that are not whole. */
export function checkLimits(spec: CallLimitSpec): void {
  const whole = (n: unknown, min: number): boolean =>
    typeof n === 'number' && Number.isSafeInteger(n) && n >= min && n <= MOST_CALLS;
  const check = (what: string, n: unknown, min = 0): void => {
    if (!whole(n, min))
      throw new UsageError(
        `limits: ${what} must be a whole number from ${min} to ${MOST_CALLS}; it is ${String(n)}`,
      );
  };
  const checkOperations = (kind: string, limits: OperationLimits): void => {
    for (const [name, n] of Object.entries(limits.operations)) {
      if (!isOperationName(name))
        throw new UsageError(`limits: ${kind}.operations.${name} is not a guide operation`);
      check(`${kind}.operations.${name}`, n);
    }
    if (limits.default !== undefined) check(`${kind}.default`, limits.default);
  };
  checkOperations('daily', spec.daily);
  checkOperations('perMinute', spec.perMinute);
  if (spec.perMinute.all !== undefined) check('perMinute.all', spec.perMinute.all);
  if (spec.capacity !== undefined) check('capacity', spec.capacity, 1);
}

function limitOf(limits: OperationLimits, name: OperationName): number | undefined {
  return limits.operations[name] ?? limits.default;
}

/** The limits as their flags read, e.g. `addguideacct=1500, default=100000`; empty when none. */
export function describeLimits(limits: PerMinuteLimits): string {
  const parts = Object.entries(limits.operations).map(([name, n]) => `${name}=${n}`);
  if (limits.default !== undefined) parts.push(`default=${limits.default}`);
  if (limits.all !== undefined) parts.push(`all=${limits.all}`);
  return parts.join(', ');
}

/** The month of `ms` in UTC+8, as `YYYY-MM`. */
function monthOf(ms: number): string {
  return new Date(ms + UTC8_MS).toISOString().slice(0, 7);
}

/** `quota/get`'s answer for one operation. */
export interface QuotaAnswer {
  readonly daily_limit: number;
  readonly used: number;
  readonly remain: number;
}

/**
 * The counts under the limits. The day's counts are kept in memory and in the store
 * (`quota_used`): an operation with a daily quota has its count written in the transaction of
 * each call (`save`), so that no restart or kill forgets a counted call; the counts of the
 * others say only what `quota/get` reads, and are written with the next such call, or when the
 * service stops. The minute's counts and the calls in service are kept in memory only: a restart
 * begins a new minute with nothing in service.
 */
export class CallLimits {
  private day: number;
  private readonly used = new Map<OperationName, number>();
  private readonly unsaved = new Set<OperationName>();
  private minute = -1;
  private readonly minuteUsed = new Map<OperationName, number>();
  private minuteAll = 0;
  private calls = 0;

  constructor(
    private readonly spec: CallLimitSpec,
    private readonly appid: string,
    store: Store,
    nowMs: number,
  ) {
    this.day = quotaDayOf(nowMs);
    const rows = store.all<{ operation: string; used: number }>(
      'SELECT operation, used FROM quota_used WHERE appid = ? AND day = ?',
      appid,
      this.day,
    );
    for (const { operation, used } of rows) if (isOperationName(operation)) this.used.set(operation, used);
  }

  /** Whether the calls of `name` are counted durably, each in its own transaction. */
  durable(name: OperationName): boolean {
    return limitOf(this.spec.daily, name) !== undefined;
  }

  /** Takes a place among the calls in service, or false when all `capacity` are taken. */
  enter(): boolean {
    if (this.spec.capacity !== undefined && this.calls >= this.spec.capacity) return false;
    this.calls++;
    return true;
  }

  leave(): void {
    this.calls--;
  }

  /** The calls in service now, between `enter` and `leave`. */
  get inService(): number {
    return this.calls;
  }

  /** The -1 of a call past the capacity. */
  busy(): ApiError {
    return new ApiError(
      ERRCODE.systemBusy,
      `system busy: the service is at its capacity of ${this.spec.capacity} calls at once; retry later`,
    );
  }

  /**
   * Admits one call of `name` at `nowMs` and counts it, or refuses it: 45009 past the day's
   * quota, 45011 past the minute's limit (of the operation, or of all calls).
   */
  admit(name: OperationName, nowMs: number): void {
    const daily = limitOf(this.spec.daily, name);
    const used = this.usedToday(name, nowMs);
    if (daily !== undefined && used >= daily) {
      throw new ApiError(
        ERRCODE.dailyQuota,
        `reach max api daily quota limit: ${name} may be called ${daily} times a day; the quota resets at midnight UTC+8`,
      );
    }
    this.turnMinute(nowMs);
    const inMinute = this.minuteUsed.get(name) ?? 0;
    const past = this.pastMinuteLimit(name, inMinute);
    if (past !== undefined) {
      throw new ApiError(
        ERRCODE.minuteQuota,
        `api minute-quota reach limit mustslower retry next minute: ${past} times a minute`,
      );
    }
    this.minuteUsed.set(name, inMinute + 1);
    this.minuteAll++;
    this.used.set(name, used + 1);
    this.unsaved.add(name);
  }

  /** Writes the counts not yet written, inside the caller's transaction. */
  save(store: Store): void {
    for (const name of this.unsaved) {
      store.run(
        'INSERT INTO quota_used (appid, operation, day, used) VALUES (?, ?, ?, ?) ' +
          'ON CONFLICT (appid, operation) DO UPDATE SET day = excluded.day, used = excluded.used',
        this.appid,
        name,
        this.day,
        this.used.get(name) ?? 0,
      );
    }
    this.unsaved.clear();
  }

  /** Whether some count is not written yet. */
  get unsavedCounts(): boolean {
    return this.unsaved.size > 0;
  }

  /** `quota/get` of `name` at `nowMs`. */
  quota(name: OperationName, nowMs: number): QuotaAnswer {
    const limit = limitOf(this.spec.daily, name) ?? UNLIMITED_DAILY;
    const used = this.usedToday(name, nowMs);
    return { daily_limit: limit, used, remain: Math.max(0, limit - used) };
  }

  /**
   * `clear_quota`: the day's counts of every operation back to 0, inside the caller's
   * transaction; 48006 once the month's resets are used (the month of UTC+8).
   */
  clear(store: Store, nowMs: number): void {
    const month = monthOf(nowMs);
    const row = store.get<{ month: string; uses: number }>(
      'SELECT month, uses FROM quota_clears WHERE appid = ?',
      this.appid,
    );
    const uses = row?.month === month ? row.uses : 0;
    if (uses >= CLEARS_A_MONTH) {
      throw new ApiError(
        ERRCODE.quotaClearLimit,
        `forbid to clear quota because of reaching the limit: the quotas may be reset ${CLEARS_A_MONTH} times a month, and were`,
      );
    }
    store.run(
      'INSERT INTO quota_clears (appid, month, uses) VALUES (?, ?, ?) ' +
        'ON CONFLICT (appid) DO UPDATE SET month = excluded.month, uses = excluded.uses',
      this.appid,
      month,
      uses + 1,
    );
    store.run('DELETE FROM quota_used WHERE appid = ?', this.appid);
    this.forget();
  }

  /** Forgets the day's counts (the store's were emptied: the simulation's reset). */
  forget(): void {
    this.used.clear();
    this.unsaved.clear();
  }

  private usedToday(name: OperationName, nowMs: number): number {
    const today = quotaDayOf(nowMs);
    if (today !== this.day) {
      this.day = today;
      this.forget();
    }
    return this.used.get(name) ?? 0;
  }

  /** Which per-minute limit one more call of `name` would pass, in words; undefined when none. */
  private pastMinuteLimit(name: OperationName, inMinute: number): string | undefined {
    const limit = limitOf(this.spec.perMinute, name);
    if (limit !== undefined && inMinute >= limit) return `${name} may be called ${limit}`;
    const all = this.spec.perMinute.all;
    if (all !== undefined && this.minuteAll >= all) return `${all} guide calls may be made`;
    return undefined;
  }

  private turnMinute(nowMs: number): void {
    const minute = Math.floor(nowMs / MINUTE_MS);
    if (minute === this.minute) return;
    this.minute = minute;
    this.minuteUsed.clear();
    this.minuteAll = 0;
  }
}
