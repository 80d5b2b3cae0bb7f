import type { Clock } from '../core/clock.js';

/**
 * The retry policy of a client: which failures are retried is fixed by the client (-1, 45011,
 * broken connections and timeouts, within what the operation allows); this says how often and how
 * long. Delays use exponential backoff with full jitter: before retry n (1-based) the client waits
 * a uniformly random time in [0, min(maxDelayMs, base × 2^(n-1))), where base is `baseDelayMs`, or
 * `quotaBaseDelayMs` after 45011 (the per-minute quota recovers slowly, so hammering it is futile).
 */
export interface RetryPolicy {
  /** Most times one call is sent, the first included. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  /** Base delay after 45011 (per-minute quota reached). */
  readonly quotaBaseDelayMs: number;
  /** Cap of one delay. */
  readonly maxDelayMs: number;
  /** A call gives up rather than start a wait that would end later than this after it began. */
  readonly budgetMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 250,
  quotaBaseDelayMs: 2_000,
  maxDelayMs: 15_000,
  budgetMs: 60_000,
};

export function checkRetryPolicy(policy: RetryPolicy): RetryPolicy {
  const whole = (name: keyof RetryPolicy, min: number): void => {
    const v = policy[name];
    if (!Number.isFinite(v) || v < min) throw new RangeError(`retry.${name} must be a number ≥ ${min}`);
  };
  whole('maxAttempts', 1);
  whole('baseDelayMs', 0);
  whole('quotaBaseDelayMs', 0);
  whole('maxDelayMs', 0);
  whole('budgetMs', 0);
  return policy;
}

/** What made an attempt fail, for the choice of the base delay. */
export type RetryCause = 'quota' | 'other';

/** The attempts and time one call may still spend. */
export class RetryBudget {
  private sent = 0;
  private readonly started: number;

  constructor(
    private readonly policy: RetryPolicy,
    private readonly clock: Clock,
    private readonly random: () => number,
  ) {
    this.started = clock.now();
  }

  /** Counts one more sending of the request. */
  countAttempt(): number {
    this.sent += 1;
    return this.sent;
  }

  get attempts(): number {
    return this.sent;
  }

  elapsedMs(): number {
    return this.clock.now() - this.started;
  }

  /** The wait before the next attempt, or undefined when the policy allows no more. */
  nextDelay(cause: RetryCause): number | undefined {
    if (this.sent >= this.policy.maxAttempts) return undefined;
    const base = cause === 'quota' ? this.policy.quotaBaseDelayMs : this.policy.baseDelayMs;
    const cap = Math.min(this.policy.maxDelayMs, base * 2 ** Math.max(0, this.sent - 1));
    const delay = Math.floor(this.random() * cap);
    if (this.elapsedMs() + delay > this.policy.budgetMs) return undefined;
    return delay;
  }
}
