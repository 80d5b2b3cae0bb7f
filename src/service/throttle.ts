/**
 * Counts failed token requests (wrong appid or secret) per key — a client address, an appid — in a
 * sliding window, so that secrets cannot be guessed at speed. A key with `limit` failures in the
 * last `windowMs` is blocked until the oldest of them leaves the window: every token request on
 * it is then refused (45011), a right secret too, or the block would tell a guesser when it
 * guessed right.
 */
export interface ThrottleSettings {
  /** Failures allowed in the window; the next request is refused. */
  readonly limit: number;
  readonly windowMs: number;
}

export const DEFAULT_THROTTLE: ThrottleSettings = { limit: 10, windowMs: 60_000 };

/** Keys remembered at most; past it the keys seen longest ago are forgotten first. */
const MAX_KEYS = 10_000;

export class FailureThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly settings: ThrottleSettings,
    private readonly now: () => number,
  ) {}

  /** Seconds until the first blocked key of `keys` opens again, or 0 when none is blocked. */
  blockedFor(keys: readonly string[]): number {
    const now = this.now();
    let wait = 0;
    for (const key of keys) {
      const times = this.recent(key, now);
      if (times.length >= this.settings.limit) {
        const opens = (times[times.length - this.settings.limit] ?? now) + this.settings.windowMs;
        wait = Math.max(wait, Math.ceil((opens - now) / 1000));
      }
    }
    return wait;
  }

  /**
   * Counts one failure on each key, before the secret is checked (so that requests checked at
   * once cannot all slip in before the first failure counts); `forgive` takes it back when the
   * request turns out right. Returns the time it counted at, for `forgive`.
   */
  fail(keys: readonly string[]): number {
    const now = this.now();
    for (const key of keys) {
      const times = this.recent(key, now);
      times.push(now);
      if (times.length > this.settings.limit) times.shift();
      this.failures.delete(key);
      this.failures.set(key, times);
    }
    while (this.failures.size > MAX_KEYS) {
      const oldest = this.failures.keys().next().value;
      if (oldest === undefined) break;
      this.failures.delete(oldest);
    }
    return now;
  }

  /** Takes back a failure counted at `at` by `fail`. */
  forgive(keys: readonly string[], at: number): void {
    for (const key of keys) {
      const times = this.failures.get(key);
      const index = times?.lastIndexOf(at) ?? -1;
      if (times !== undefined && index >= 0) times.splice(index, 1);
    }
  }

  private recent(key: string, now: number): number[] {
    const times = this.failures.get(key);
    if (times === undefined) return [];
    const from = now - this.settings.windowMs;
    while (times.length > 0 && (times[0] ?? now) <= from) times.shift();
    if (times.length === 0) this.failures.delete(key);
    return times;
  }
}
