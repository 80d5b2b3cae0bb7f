import type { Clock } from '../core/clock.js';

/** Most calls in flight that adaptive concurrency reaches unless told (`--max-parallelism`). */
export const DEFAULT_MAX_PARALLELISM = 64;

/**
 * What one answer says of the load on the service:
 * - `answered`: an answer of the API (whatever its errcode, but the two below): its time is a
 *   latency sample;
 * - `busy`: -1, the service refused the call for load;
 * - `minute-quota`: 45011, the per-minute limit is reached;
 * - `none`: no answer (a broken connection, a timeout): says nothing of the load, so it is not used.
 */
export type LoadSignal = 'answered' | 'busy' | 'minute-quota' | 'none';

/** One call let through by {@link AdaptiveConcurrency.start}, given back to `end`. */
export interface ConcurrencyTicket {
  /** The operation called: latency is compared with that operation's own. */
  readonly operation: string;
  readonly startedAt: number;
  /** The limit's epoch at the start: a signal of a call sent before the last cut is not used. */
  readonly epoch: number;
  /** Calls in flight at the start, this one included. */
  readonly inFlight: number;
}

/** Where adaptive concurrency stands, for reports. */
export interface ConcurrencyState {
  readonly adaptive: boolean;
  /** The limit it started at (`--parallelism`). */
  readonly start: number;
  /** The limit it never passes (`--max-parallelism`; the start when not adaptive). */
  readonly max: number;
  /** The limit now. */
  readonly limit: number;
  /** The highest limit it reached. */
  readonly maxReached: number;
}

/** The cut of the limit on a signal of overload (it keeps 90% of the calls that were in flight). */
const BACKOFF = 0.9;
/** A round's mean latency this many times the baseline's is overload… */
const LATENCY_TOLERANCE = 2;
/** …if it is also this many milliseconds more (on a local service, 1 ms to 2 ms is noise). */
const LATENCY_MIN_RISE_MS = 10;
/** How fast an operation's baseline follows a latency above it, and below it (per answer). */
const BASELINE_UP = 0.001;
const BASELINE_DOWN = 0.2;
/** Growth per round just below the level of the last refusal: a twentieth of a call. */
const PROBE_STEP = 0.05;
/** Growth per round in slow start: half the limit (doubling overshoots a capacity by as much). */
const SLOW_START_GROWTH = 1.5;

/**
 * The concurrency limit of a client, adapted to what the service answers: AIMD (additive increase,
 * multiplicative decrease) on the refusals for load, with slow start and a latency guard.
 *
 * Why this scheme: this API says it is overloaded mostly by refusing (-1 "system busy", 45011 per
 * minute), answered at once and without effect. A scheme driven by latency alone (Netflix's
 * Vegas or Gradient2) cannot see such a limit: the calls it lets through keep their latency, so it
 * grows into the refusals. A refusal is the clearest signal there is, so it drives the limit: the
 * limit is cut at once to 90% of the calls that were in flight when the refused call started
 * (not of the limit: after a fast rise the limit may be far above what the service took). A
 * service that queues instead of refusing (a loaded server, a proxy) shows overload as latency:
 * a round whose answers took twice as long as their operations' baselines (and 10 ms more each)
 * cuts the limit too. Baselines are per operation, since a batch of 100 members takes longer
 * than a profile read: a change in the mix of operations is not a rise in latency. A baseline
 * follows a lower latency quickly and a higher one slowly, so noise does not set it low.
 *
 * - Slow start: until the first cut the limit grows by half each round (a round: as many answers
 *   as the limit), so an unlimited service is used in a few rounds (8 to 64 in six), and a
 *   capacity is overshot by at most half of it, once.
 * - The limit grows only in a round where it was used (some call saw it all in flight): while
 *   the caller has fewer calls to make, or they wait on each other, it stays.
 * - Then one more call per round, and a twentieth of a call per round just below the level of the last
 *   refusal: the limit spends its time just under the service's capacity, and probes above it
 *   rarely (each probe costs about one refused call, so one round in twenty probes).
 * - One cut per round trip: a signal of a call that started before the last cut is not used, so a
 *   burst of refusals caused by one limit cuts once (to 90% of the fewest calls in flight that
 *   any of them saw: they come back in any order).
 * - Never above `max`, never below 1.
 *
 * Time is the injected clock's; nothing here sleeps.
 */
export class AdaptiveConcurrency {
  private value: number;
  private inFlight = 0;
  private epoch = 0;
  private slowStart = true;
  /** Calls in flight when a call was last refused; undefined when none was, or the limit passed it. */
  private refusedAt: number | undefined;
  /** Per operation: its latency without load (operations differ: a batch takes longer). */
  private readonly baselineMs = new Map<string, number>();
  private roundAnswers = 0;
  private roundMs = 0;
  private roundBaselineMs = 0;
  /** Most calls in flight that a call of this round saw: the limit grows only when it is used. */
  private roundPeak = 0;
  private reached: number;

  constructor(
    readonly start: number,
    readonly max: number,
    private readonly clock: Clock,
    /** Told each new whole limit. */
    private readonly onLimit: (limit: number) => void = () => {},
  ) {
    if (!Number.isInteger(start) || start < 1) throw new RangeError('parallelism must be a whole number ≥ 1');
    if (!Number.isInteger(max) || max < start)
      throw new RangeError('maxParallelism must be a whole number ≥ parallelism');
    this.value = start;
    this.reached = start;
  }

  /** Calls allowed in flight now. */
  get limit(): number {
    return Math.max(1, Math.floor(this.value));
  }

  get state(): ConcurrencyState {
    return { adaptive: true, start: this.start, max: this.max, limit: this.limit, maxReached: this.reached };
  }

  /** A call of `operation` goes on the wire. */
  begin(operation = ''): ConcurrencyTicket {
    this.inFlight += 1;
    return { operation, startedAt: this.clock.now(), epoch: this.epoch, inFlight: this.inFlight };
  }

  /** The call of `ticket` ended with `signal`. */
  end(ticket: ConcurrencyTicket, signal: LoadSignal): void {
    this.inFlight -= 1;
    const fresh = ticket.epoch === this.epoch;
    switch (signal) {
      case 'none':
        return;
      case 'busy':
      case 'minute-quota':
        if (fresh) this.cut(ticket.inFlight);
        else if (ticket.epoch === this.epoch - 1) this.lower(ticket.inFlight);
        return;
      case 'answered':
        if (fresh) this.sample(ticket, this.clock.now() - ticket.startedAt);
        return;
      default: {
        const unreachable: never = signal;
        throw new Error(`unknown load signal ${JSON.stringify(unreachable)}`);
      }
    }
  }

  private sample(ticket: ConcurrencyTicket, ms: number): void {
    const baseline = this.baselineMs.get(ticket.operation) ?? ms;
    this.baselineMs.set(
      ticket.operation,
      baseline + (ms - baseline) * (ms < baseline ? BASELINE_DOWN : BASELINE_UP),
    );
    this.roundAnswers += 1;
    this.roundMs += ms;
    this.roundBaselineMs += baseline;
    this.roundPeak = Math.max(this.roundPeak, ticket.inFlight);
    if (this.roundAnswers < this.limit) return;
    const { roundAnswers: n, roundMs: spent, roundBaselineMs: expected, roundPeak: peak } = this;
    this.resetRound();
    if (spent > expected * LATENCY_TOLERANCE && spent > expected + LATENCY_MIN_RISE_MS * n) {
      this.cut(this.value);
      return;
    }
    if (peak >= this.limit) this.grow();
  }

  private resetRound(): void {
    this.roundAnswers = 0;
    this.roundMs = 0;
    this.roundBaselineMs = 0;
    this.roundPeak = 0;
  }

  private grow(): void {
    const refusedAt = this.refusedAt;
    let next: number;
    if (this.slowStart) next = this.value * SLOW_START_GROWTH;
    else if (refusedAt !== undefined && this.value + 1 >= refusedAt) next = this.value + PROBE_STEP;
    else next = this.value + 1;
    // Past the level of the last refusal without one: the service takes more now.
    if (refusedAt !== undefined && next >= refusedAt + 1) this.refusedAt = undefined;
    this.set(Math.min(this.max, next));
  }

  private cut(level: number): void {
    this.slowStart = false;
    this.refusedAt = level;
    this.epoch += 1;
    this.resetRound();
    this.set(Math.max(1, Math.min(this.value, level) * BACKOFF));
  }

  /**
   * A refusal of a call sent before the last cut, with fewer calls in flight than the one that
   * made the cut (refusals of one burst come back in any order): the cut goes down to it.
   */
  private lower(level: number): void {
    if (this.refusedAt === undefined || level >= this.refusedAt) return;
    this.refusedAt = level;
    this.set(Math.max(1, Math.min(this.value, level * BACKOFF)));
  }

  private set(value: number): void {
    const before = this.limit;
    this.value = value;
    const after = this.limit;
    if (after > this.reached) this.reached = after;
    if (after !== before) this.onLimit(after);
  }
}

/** A minute's margin after it turns: the service's clock may run a little behind the client's. */
const MINUTE_MARGIN_MS = 1_000;
const MINUTE_MS = 60_000;

/**
 * The per-minute limit (45011) paced per operation: the first 45011 of an operation stops its
 * calls until the minute turns (on the client's clock, with a second's margin), rather than each
 * call retrying into the limit with its own backoff, wasting a round trip a retry. A 45011 while
 * the operation is already paused does not extend the pause.
 */
export class MinutePacer {
  private readonly pausedUntil = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** A 45011 of `operation`: how long its calls now wait. */
  refused(operation: string): number {
    const now = this.clock.now();
    const until = this.pausedUntil.get(operation);
    if (until !== undefined && until > now) return until - now;
    const next = (Math.floor(now / MINUTE_MS) + 1) * MINUTE_MS + MINUTE_MARGIN_MS;
    this.pausedUntil.set(operation, next);
    return next - now;
  }

  /** How long a call of `operation` waits before it is sent (0: not paused). */
  waitFor(operation: string): number {
    const until = this.pausedUntil.get(operation);
    if (until === undefined) return 0;
    const left = until - this.clock.now();
    if (left > 0) return left;
    this.pausedUntil.delete(operation);
    return 0;
  }
}
