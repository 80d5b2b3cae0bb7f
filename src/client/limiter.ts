import type { Clock } from '../core/clock.js';

/** Sleeps `ms` milliseconds; rejects with the signal's reason when it aborts first. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * At most `limit` holders at once; waiters are served first come, first served. Holds the number
 * of calls in flight at or below the client's `parallelism`.
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('parallelism must be a whole number ≥ 1');
  }

  /** Waits for a place; returns the function that gives it back (call it exactly once). */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.active < this.limit) {
      this.active += 1;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal?.reason);
      };
      this.waiting.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    // The place was handed over by a releaser: `active` already counts it.
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next === undefined) this.active -= 1;
      else next();
    };
  }
}

/**
 * Spaces request starts at least `1000 / perSecond` ms apart, so that no burst ever starts: after
 * a pause the next request starts at once and every one after it waits its turn. Each request
 * reserves the next free start time before it waits; one aborted while waiting keeps its slot, so
 * the spacing is never shortened. Uses the injected clock and sleep, so tests run it without real
 * waiting.
 */
export class RateLimiter {
  private nextFree = Number.NEGATIVE_INFINITY;
  private readonly intervalMs: number;

  constructor(
    perSecond: number,
    private readonly clock: Clock,
    private readonly sleep: Sleep,
  ) {
    if (!(perSecond > 0) || !Number.isFinite(perSecond))
      throw new RangeError('rateLimit must be a number > 0');
    this.intervalMs = 1000 / perSecond;
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    const now = this.clock.now();
    const start = Math.max(now, this.nextFree);
    this.nextFree = start + this.intervalMs;
    if (start > now) await this.sleep(start - now, signal);
  }
}
