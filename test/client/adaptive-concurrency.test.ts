import { describe, expect, test } from 'vitest';
import { AdaptiveConcurrency, MinutePacer } from '../../src/client/concurrency.js';

// The scheme on virtual time: a discrete-event model of a client and a service, where the
// limiter reads the model's clock. Same input, same figures: nothing here depends on the machine.

interface Model {
  /** Most calls the service holds at once; one more is answered -1 at once. */
  readonly capacity?: number;
  /** Time a call the service takes spends in it, in ms (at concurrency `c`: `latency(c)`). */
  readonly latency: (inService: number) => number;
  /** One-way trip between client and service, in ms. */
  readonly tripMs?: number;
  readonly calls: number;
  readonly start: number;
  readonly max: number;
  /** Wait before a refused call is sent again, in ms. */
  readonly retryMs?: number;
}

interface Outcome {
  readonly refused: number;
  readonly answered: number;
  readonly elapsedMs: number;
  readonly limits: number[];
  readonly finalLimit: number;
  readonly maxReached: number;
}

function simulate(model: Model): Outcome {
  let now = 0;
  const events: Array<{ at: number; seq: number; run: () => void }> = [];
  let seq = 0;
  const at = (time: number, run: () => void): void => {
    events.push({ at: time, seq: seq++, run });
  };
  const trip = model.tripMs ?? 0.1;
  const limits: number[] = [];
  const limiter = new AdaptiveConcurrency(model.start, model.max, { now: () => now }, (l) => limits.push(l));
  let waiting = model.calls;
  let inFlight = 0;
  let inService = 0;
  let refused = 0;
  let answered = 0;
  const pump = (): void => {
    while (waiting > 0 && inFlight < limiter.limit) {
      waiting--;
      inFlight++;
      const ticket = limiter.begin();
      at(now + trip, () => {
        if (model.capacity !== undefined && inService >= model.capacity) {
          at(now + trip, () => {
            inFlight--;
            refused++;
            limiter.end(ticket, 'busy');
            at(now + (model.retryMs ?? 50), () => {
              waiting++;
              pump();
            });
            pump();
          });
          return;
        }
        inService++;
        at(now + model.latency(inService), () => {
          inService--;
          at(now + trip, () => {
            inFlight--;
            answered++;
            limiter.end(ticket, 'answered');
            pump();
          });
        });
      });
    }
  };
  pump();
  while (events.length > 0) {
    events.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const next = events.shift();
    if (next === undefined) break;
    now = next.at;
    next.run();
  }
  return {
    refused,
    answered,
    elapsedMs: now,
    limits,
    finalLimit: limiter.limit,
    maxReached: limiter.state.maxReached,
  };
}

describe('adaptive concurrency (virtual time)', () => {
  test('against a capacity of 16 at 20 ms it settles near 16, near its best rate, with few refusals', () => {
    const run = simulate({ capacity: 16, latency: () => 20, calls: 11_000, start: 8, max: 64 });
    expect(run.answered).toBe(11_000);
    // Refused for load: under 2% of the calls.
    expect(run.refused / run.answered).toBeLessThan(0.02);
    // The capacity's own rate is 16 calls per 20 ms.
    const best = (11_000 / 16) * 20;
    expect(best / run.elapsedMs).toBeGreaterThanOrEqual(0.85);
    const late = run.limits.slice(-20);
    for (const limit of late) {
      expect(limit).toBeGreaterThanOrEqual(13);
      expect(limit).toBeLessThanOrEqual(18);
    }
  });

  test('against an unlimited service it grows from 8 to the most allowed, and no further', () => {
    const run = simulate({ latency: () => 20, calls: 5_000, start: 8, max: 64 });
    expect(run.refused).toBe(0);
    expect(run.maxReached).toBe(64);
    expect(run.finalLimit).toBe(64);
    expect(Math.max(...run.limits)).toBe(64);
    // Slow start: up by half each round, 8 to 64 in six rounds.
    expect(run.limits.slice(0, 6)).toEqual([12, 18, 27, 40, 60, 64]);
  });

  test('a service that queues (latency grows with the calls in it) holds the limit down', () => {
    // Past 12 calls at once, each more call adds 10 ms to every call: the latency says overload.
    const run = simulate({
      latency: (n) => 20 + Math.max(0, n - 12) * 10,
      calls: 8_000,
      start: 8,
      max: 64,
    });
    expect(run.refused).toBe(0);
    const late = run.limits.slice(-20);
    for (const limit of late) expect(limit).toBeLessThanOrEqual(24);
    expect(run.finalLimit).toBeGreaterThanOrEqual(6);
  });

  test('a refusal cuts at once to 90% of the calls that were in flight; one cut per round trip', () => {
    let now = 0;
    const limiter = new AdaptiveConcurrency(16, 64, { now: () => now });
    const tickets = Array.from({ length: 16 }, () => limiter.begin());
    now = 20;
    for (const t of tickets) limiter.end(t, 'answered');
    expect(limiter.limit).toBe(24);
    const burst = Array.from({ length: 24 }, () => limiter.begin());
    // The 20th of 24 in flight was refused first: 20 × 0.9 = 18.
    limiter.end(burst[19] ?? burst[0]!, 'busy');
    expect(limiter.limit).toBe(18);
    // Refusals of the same burst seen by no fewer calls in flight do not cut again.
    for (const t of burst.slice(20)) limiter.end(t, 'minute-quota');
    expect(limiter.limit).toBe(18);
    // One that saw fewer (the 18th) lowers the cut to 90% of those: 16.2.
    limiter.end(burst[17] ?? burst[0]!, 'busy');
    expect(limiter.limit).toBe(16);
    // A call that started after the cut and is refused cuts again: 90% of min(16.2, 1 in flight).
    for (const t of burst.slice(0, 17)) limiter.end(t, 'answered');
    const after = limiter.begin();
    limiter.end(after, 'busy');
    expect(limiter.limit).toBe(1);
  });

  test('it grows only when the limit is used, and each operation has its own latency', () => {
    let now = 0;
    const limiter = new AdaptiveConcurrency(8, 64, { now: () => now });
    // One call at a time, 200 rounds: the limit was never used, so it stays.
    for (let i = 0; i < 1_600; i++) {
      const t = limiter.begin('getguideacct');
      now += 20;
      limiter.end(t, 'answered');
    }
    expect(limiter.limit).toBe(8);
    // A batch operation ten times as slow, once its own latency is known, is no rise in latency.
    const batch = () => {
      const t = limiter.begin('addguide2guidegroup');
      now += 200;
      limiter.end(t, 'answered');
    };
    batch();
    for (let round = 0; round < 5; round++) {
      const ts = Array.from({ length: limiter.limit }, (_, i) =>
        limiter.begin(i % 2 === 0 ? 'getguideacct' : 'addguide2guidegroup'),
      );
      ts.forEach((t, i) => {
        now += i % 2 === 0 ? 20 / ts.length : 200 / ts.length;
        limiter.end(t, 'answered');
      });
    }
    expect(limiter.limit).toBeGreaterThan(8);
  });

  test('never above the most allowed, never below 1; no answer says nothing', () => {
    const limiter = new AdaptiveConcurrency(1, 1, { now: () => 0 });
    for (let i = 0; i < 10; i++) limiter.end(limiter.begin(), 'answered');
    expect(limiter.limit).toBe(1);
    for (let i = 0; i < 10; i++) limiter.end(limiter.begin(), 'busy');
    expect(limiter.limit).toBe(1);
    const other = new AdaptiveConcurrency(4, 64, { now: () => 0 });
    for (let i = 0; i < 10; i++) other.end(other.begin(), 'none');
    expect(other.limit).toBe(4);
    expect(() => new AdaptiveConcurrency(8, 4, { now: () => 0 })).toThrow(/maxParallelism/);
  });
});

describe('the per-minute pacer', () => {
  test('the first 45011 of an operation pauses it until the minute turns; a later one does not extend it', () => {
    let now = Date.UTC(2026, 10, 20, 8, 0, 42);
    const pacer = new MinutePacer({ now: () => now });
    expect(pacer.waitFor('addguideacct')).toBe(0);
    const turn = Date.UTC(2026, 10, 20, 8, 1, 0) + 1_000;
    expect(pacer.refused('addguideacct')).toBe(turn - now);
    expect(pacer.waitFor('addguideacct')).toBe(turn - now);
    // Another operation goes on.
    expect(pacer.waitFor('setguideconfig')).toBe(0);
    now += 5_000;
    expect(pacer.refused('addguideacct')).toBe(turn - now);
    now = turn;
    expect(pacer.waitFor('addguideacct')).toBe(0);
    // The first 45011 of the new minute pauses it to the next turn.
    expect(pacer.refused('addguideacct')).toBe(60_000);
  });
});
