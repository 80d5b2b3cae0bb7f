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

function duration(name: string, value: string): number {
  const m = /^([0-9]+(?:\.[0-9]+)?)(ms|s)?$/.exec(value);
  if (m === null) throw new UsageError(`faults: ${name}=${value} must be a duration such as 20ms or 0.5s`);
  return Number(m[1]) * (m[2] === 's' ? 1000 : 1);
}

function share(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1 || value.trim() === '') {
    throw new UsageError(`faults: ${name}=${value} must be a share between 0 and 1 (e.g. ${name}=0.05)`);
  }
  return n;
}

export function parseFaults(text: string): FaultSpec {
  let spec: FaultSpec = { ...NO_FAULTS };
  if (text.trim() === '' || text === 'none') return spec;
  for (const part of text.split(',')) {
    const [name = '', value = ''] = part.split('=', 2).map((s) => s.trim());
    switch (name) {
      case 'latency':
        spec = { ...spec, latencyMs: duration(name, value) };
        break;
      case 'hold':
        spec = { ...spec, hold: share(name, value) };
        break;
      case 'hold_time':
        spec = { ...spec, holdMs: duration(name, value) };
        break;
      case 'system_error':
        spec = { ...spec, systemError: share(name, value) };
        break;
      case 'minute_quota':
        spec = { ...spec, minuteQuota: share(name, value) };
        break;
      case 'lost_answer':
        spec = { ...spec, lostAnswer: share(name, value) };
        break;
      case 'seed':
        if (!/^[0-9]+$/.test(value)) throw new UsageError(`faults: seed=${value} must be a whole number`);
        spec = { ...spec, seed: Number(value) };
        break;
      default:
        throw new UsageError(
          `faults: unknown fault "${name}"; use latency, system_error, minute_quota, lost_answer, hold, hold_time or seed`,
        );
    }
  }
  if (spec.systemError + spec.minuteQuota > 1) {
    throw new UsageError('faults: system_error + minute_quota must not exceed 1');
  }
  return spec;
}

export type FaultDecision = 'none' | 'system_error' | 'minute_quota' | 'lost_answer';

/** Draws the fault of each call from a seeded generator (mulberry32). */
export class FaultInjector {
  private state: number;
  private current: FaultSpec;

  constructor(private readonly configured: FaultSpec) {
    this.state = configured.seed >>> 0;
    this.current = configured;
  }

  /**
   * The faults of the call decided last: the configured ones, with the hold added to
   * `latencyMs` when that call is held (the server waits `latencyMs` before handling a call).
   */
  get spec(): FaultSpec {
    return this.current;
  }

  private random(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  decide(): FaultDecision {
    const { hold, holdMs, latencyMs } = this.configured;
    const held = hold > 0 && this.random() < hold;
    this.current = held ? { ...this.configured, latencyMs: latencyMs + holdMs } : this.configured;
    const { systemError, minuteQuota, lostAnswer } = this.configured;
    if (systemError + minuteQuota + lostAnswer === 0) return 'none';
    const r = this.random();
    if (r < systemError) return 'system_error';
    if (r < systemError + minuteQuota) return 'minute_quota';
    if (this.random() < lostAnswer) return 'lost_answer';
    return 'none';
  }
}
