import { UsageError } from '../core/errors.js';

/**
 * Faults the service injects so that clients can be tested against an unreliable API:
 * `latency=20ms,system_error=0.05,minute_quota=0.02,lost_answer=0.01,seed=7`.
 * - latency: every guide call waits this long before it is handled;
 * - system_error / minute_quota: that share of guide calls is answered -1 / 45011 without effect;
 * - lost_answer: that share of guide calls takes effect, then the connection is reset unanswered;
 * - seed: the pseudo-random sequence, so that a run repeats exactly.
 */
export interface FaultSpec {
  readonly latencyMs: number;
  readonly systemError: number;
  readonly minuteQuota: number;
  readonly lostAnswer: number;
  readonly seed: number;
}

export const NO_FAULTS: FaultSpec = { latencyMs: 0, systemError: 0, minuteQuota: 0, lostAnswer: 0, seed: 1 };

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
      case 'latency': {
        const m = /^([0-9]+(?:\.[0-9]+)?)(ms|s)?$/.exec(value);
        if (m === null)
          throw new UsageError(`faults: latency=${value} must be a duration such as 20ms or 0.5s`);
        spec = { ...spec, latencyMs: Number(m[1]) * (m[2] === 's' ? 1000 : 1) };
        break;
      }
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
          `faults: unknown fault "${name}"; use latency, system_error, minute_quota, lost_answer or seed`,
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

  constructor(readonly spec: FaultSpec) {
    this.state = spec.seed >>> 0;
  }

  private random(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  decide(): FaultDecision {
    const { systemError, minuteQuota, lostAnswer } = this.spec;
    if (systemError + minuteQuota + lostAnswer === 0) return 'none';
    const r = this.random();
    if (r < systemError) return 'system_error';
    if (r < systemError + minuteQuota) return 'minute_quota';
    if (this.random() < lostAnswer) return 'lost_answer';
    return 'none';
  }
}
