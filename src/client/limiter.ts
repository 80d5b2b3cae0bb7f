import type { Clock } from '../core/clock.js';

/** Sleeps `ms` milliseconds; rejects with the signal's reason when it aborts first. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** A call waiting for a place. */
interface Waiter {
  readonly grant: () => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
}

/**
 * At most `limit` holders at once; waiters are served first come, first served. Holds the number
 * of calls in flight at or below the client's concurrency limit, which `setLimit` may move while
 * calls run (adaptive concurrency): a higher limit lets waiters in at once; a lower one lets no
 * waiter in until the holders are fewer than it (none is taken back).
 *
 * Thousands of calls may wait at once, all on the client's one stop signal. Node's EventTarget
 * scans its listener list on every `addEventListener`, so a listener per waiter costs O(N²):
 * instead the semaphore listens once per signal (while any waiter holds it) and, on abort, drops
 * every waiter of that signal in one pass. An aborted waiter held no place and gives none back.
 */
export class Semaphore {
  private active = 0;
  /** Waiters in arrival order; those before `head` are served. */
  private queue: Waiter[] = [];
  private head = 0;
  /** Per signal: how many waiters use it, and the one abort listener on it. */
  private readonly watched = new Map<AbortSignal, { waiters: number; readonly onAbort: () => void }>();

  private current: number;

  constructor(limit: number) {
    this.current = checkLimit(limit);
  }

  get limit(): number {
    return this.current;
  }

  /** Holders allowed from now on. */
  setLimit(limit: number): void {
    this.current = checkLimit(limit);
    while (this.active < this.current) {
      const next = this.nextWaiter();
      if (next === undefined) return;
      this.active += 1;
      if (next.signal !== undefined) this.unwatch(next.signal);
      next.grant();
    }
  }

  /** Holders now (for tests and diagnostics). */
  get holders(): number {
    return this.active;
  }

  /** Waits for a place; returns the function that gives it back (call it exactly once). */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.active < this.limit) {
      this.active += 1;
      return this.releaser();
    }
    await new Promise<void>((grant, reject) => {
      this.queue.push({ grant, reject, signal });
      if (signal !== undefined) this.watch(signal);
    });
    // The place was handed over by a releaser: `active` already counts it.
    return this.releaser();
  }

  /** Waiters not yet served (for tests and diagnostics). */
  get waiting(): number {
    return this.queue.length - this.head;
  }

  private watch(signal: AbortSignal): void {
    const entry = this.watched.get(signal);
    if (entry !== undefined) {
      entry.waiters += 1;
      return;
    }
    const onAbort = (): void => this.dropWaitersOf(signal);
    this.watched.set(signal, { waiters: 1, onAbort });
    signal.addEventListener('abort', onAbort, { once: true });
  }

  private unwatch(signal: AbortSignal): void {
    const entry = this.watched.get(signal);
    if (entry === undefined) return;
    entry.waiters -= 1;
    if (entry.waiters > 0) return;
    this.watched.delete(signal);
    signal.removeEventListener('abort', entry.onAbort);
  }

  /** The signal aborted: its waiters leave the queue, rejected with its reason, in one pass. */
  private dropWaitersOf(signal: AbortSignal): void {
    this.watched.delete(signal);
    const kept: Waiter[] = [];
    const dropped: Waiter[] = [];
    for (let i = this.head; i < this.queue.length; i++) {
      const waiter = this.queue[i];
      if (waiter === undefined) continue;
      (waiter.signal === signal ? dropped : kept).push(waiter);
    }
    this.queue = kept;
    this.head = 0;
    for (const waiter of dropped) waiter.reject(signal.reason);
  }

  /** The first waiter, taken off the queue (the served part is trimmed now and then). */
  private nextWaiter(): Waiter | undefined {
    const waiter = this.queue[this.head];
    if (waiter === undefined) return undefined;
    this.head += 1;
    if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return waiter;
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // Above a lowered limit the place is not handed on: the holders drain down to it.
      const next = this.active > this.current ? undefined : this.nextWaiter();
      if (next === undefined) {
        this.active -= 1;
        return;
      }
      if (next.signal !== undefined) this.unwatch(next.signal);
      next.grant();
    };
  }
}

function checkLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError('parallelism must be a whole number ≥ 1');
  return limit;
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
