import { UsageError } from '../core/errors.js';

/**
 * Faults the service injects so that clients can be tested against an unreliable API:
 * `latency=20ms,system_error=0.05,minute_quota=0.02,lost_answer=0.01,seed=7`.
 * - latency: every guide call waits this long before it is handled;
 * - system_error / minute_quota: that share of guide calls is answered -1 / 45011 without effect;
 * - lost_answer: that share of guide calls takes effect, then the connection is reset unanswered;
 * - hold: that share of guide calls is held `hold_time` (3s unless given) before it is handled —
 *   longer than a client's timeout, the call takes effect after the client gave up waiting, as
 *   a real server under load does;
 * - seed: the pseudo-random sequence, so that a run repeats exactly. A hold is drawn only when
 *   `hold` is not 0, so a seed without one draws the same faults as before holds existed.
 */
export interface FaultSpec {
  readonly latencyMs: number;
  readonly systemError: number;
  readonly minuteQuota: number;
  readonly lostAnswer: number;
  readonly hold: number;
  readonly holdMs: number;
  readonly seed: number;
}

export const NO_FAULTS: FaultSpec = {
  latencyMs: 0,
  systemError: 0,
  minuteQuota: 0,
  lostAnswer: 0,
  hold: 0,
  holdMs: 3_000,
  seed: 1,
};

/**
 * The longest delay a timer can wait, 2^31 − 1 ms (about 24.8 days): past it, Node warns
 * (TimeoutOverflowWarning) and waits 1 ms instead.
 */
export const MAX_DELAY_MS = 2 ** 31 - 1;

const DELAY_RANGE = `0 to ${MAX_DELAY_MS}ms (about 24.8 days)`;

function duration(name: string, value: string): number {
  const m = /^([0-9]+(?:\.[0-9]+)?)(ms|s)?$/.exec(value);
  if (m === null) throw new UsageError(`faults: ${name}=${value} must be a duration such as 20ms or 0.5s`);
  const ms = Number(m[1]) * (m[2] === 's' ? 1000 : 1);
  if (ms > MAX_DELAY_MS)
    throw new UsageError(`faults: ${name}=${value} is too long; a duration is ${DELAY_RANGE}`);
  return ms;
}

function share(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1 || value.trim() === '') {
    throw new UsageError(`faults: ${name}=${value} must be a share between 0 and 1 (e.g. ${name}=0.05)`);
  }
  return n;
}

function seed(name: string, value: string): number {
  if (!/^[0-9]+$/.test(value)) throw new UsageError(`faults: ${name}=${value} must be a whole number`);
  return Number(value);
}

/** Each name of the faults text: the field of `FaultSpec` it sets, and how its value reads. */
const FAULT_FIELDS = new Map<string, { key: keyof FaultSpec; read: (name: string, value: string) => number }>(
  [
    ['latency', { key: 'latencyMs', read: duration }],
    ['system_error', { key: 'systemError', read: share }],
    ['minute_quota', { key: 'minuteQuota', read: share }],
    ['lost_answer', { key: 'lostAnswer', read: share }],
    ['hold', { key: 'hold', read: share }],
    ['hold_time', { key: 'holdMs', read: duration }],
    ['seed', { key: 'seed', read: seed }],
  ],
);

export function parseFaults(text: string): FaultSpec {
  const spec: { -readonly [K in keyof FaultSpec]: FaultSpec[K] } = { ...NO_FAULTS };
  if (text.trim() === '' || text === 'none') return spec;
  for (const part of text.split(',')) {
    const [name = '', value = ''] = part.split('=', 2).map((s) => s.trim());
    const field = FAULT_FIELDS.get(name);
    if (field === undefined) {
      throw new UsageError(
        `faults: unknown fault "${name}"; use latency, system_error, minute_quota, lost_answer, hold, hold_time or seed`,
      );
    }
    spec[field.key] = field.read(name, value);
  }
  if (spec.systemError + spec.minuteQuota > 1) {
    throw new UsageError('faults: system_error + minute_quota must not exceed 1');
  }
  // A held call waits both.
  if (spec.hold > 0 && spec.latencyMs + spec.holdMs > MAX_DELAY_MS) {
    throw new UsageError(`faults: latency + hold_time is too long; together they are ${DELAY_RANGE}`);
  }
  return spec;
}

export type FaultDecision = 'none' | 'system_error' | 'minute_quota' | 'lost_answer';

/** The faults drawn for one call: how long it waits before it is handled, and what befalls it. */
export interface FaultDraw {
  /** `latencyMs`, plus `holdMs` when the call is held. */
  readonly delayMs: number;
  readonly fault: FaultDecision;
}

/** Draws the faults of each call from a seeded generator (mulberry32). */
export class FaultInjector {
  private state: number;

  constructor(private readonly spec: FaultSpec) {
    this.state = spec.seed >>> 0;
  }

  private random(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Whether no call is ever delayed or failed: `decide` would draw nothing and change nothing. */
  get inert(): boolean {
    const { latencyMs, systemError, minuteQuota, lostAnswer, hold } = this.spec;
    return latencyMs === 0 && hold === 0 && systemError + minuteQuota + lostAnswer === 0;
  }

  decide(): FaultDraw {
    const { hold, holdMs, latencyMs } = this.spec;
    // The hold is drawn first, and only when there is one (see `seed` in FaultSpec).
    const held = hold > 0 && this.random() < hold;
    return { delayMs: held ? latencyMs + holdMs : latencyMs, fault: this.drawFault() };
  }

  private drawFault(): FaultDecision {
    const { systemError, minuteQuota, lostAnswer } = this.spec;
    if (systemError + minuteQuota + lostAnswer === 0) return 'none';
    const r = this.random();
    if (r < systemError) return 'system_error';
    if (r < systemError + minuteQuota) return 'minute_quota';
    if (this.random() < lostAnswer) return 'lost_answer';
    return 'none';
  }
}
