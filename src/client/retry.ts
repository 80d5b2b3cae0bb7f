import type { Clock } from '../core/clock.js';
import { type ApiErrorKind, InvalidOptionsError, TransportError } from './call-errors.js';

/**
 * The retry policy of a client: which failures are retried is fixed by the client (-1, 45011,
 * broken connections and timeouts, within what the operation allows); this says how often and how
 * long. Delays use exponential backoff with full jitter: after the n-th failure of a kind the
 * client waits a uniformly random time in [0, min(maxDelayMs, base × 2^(n-1))), where base is
 * `quotaBaseDelayMs` after 45011 (the per-minute quota recovers slowly, so hammering it is
 * futile) and `baseDelayMs` after any other failure; the two kinds are counted apart, so a run of
 * -1 answers does not make the wait after one 45011 longer, nor the other way round.
 *
 * What bounds a call:
 * - a read is safe to repeat, so it is retried until `readBudgetMs` is spent, however many
 *   attempts that takes (under 30% system errors a count of 6 fails one read in 500);
 * - a write is retried within `budgetMs`; answers that say the call had no effect (-1, 45011)
 *   cannot lead to doubling, so they are not counted, but attempts whose answer was lost (which
 *   the client must settle before resending) count towards `maxAttempts`;
 * - a connection that cannot be made at all counts towards `maxAttempts` for every call, so that
 *   a wrong address or a service that is down is reported in seconds, not minutes — except a
 *   connection refused by a target that has answered this client before (a service restarting):
 *   nothing was sent, so any call, a write too, is retried uncounted, within its time budget.
 */
export interface RetryPolicy {
  /** Most attempts of one call that count (see above), the first included. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  /** Base delay after 45011 (per-minute quota reached). */
  readonly quotaBaseDelayMs: number;
  /** Cap of one delay. */
  readonly maxDelayMs: number;
  /** A write gives up rather than start a wait that would end later than this after it began. */
  readonly budgetMs: number;
  /** The same for a read (and the token exchange): reads are retried for this long. */
  readonly readBudgetMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 250,
  quotaBaseDelayMs: 2_000,
  maxDelayMs: 15_000,
  budgetMs: 60_000,
  readBudgetMs: 120_000,
};

export function checkRetryPolicy(policy: RetryPolicy): RetryPolicy {
  const whole = (name: keyof RetryPolicy, min: number): void => {
    const v = policy[name];
    if (!Number.isFinite(v) || v < min)
      throw new InvalidOptionsError(
        `retry.${name}`,
        `createGuideClient: retry.${name} must be a number ≥ ${min}`,
      );
  };
  whole('maxAttempts', 1);
  whole('baseDelayMs', 0);
  whole('quotaBaseDelayMs', 0);
  whole('maxDelayMs', 0);
  whole('budgetMs', 0);
  whole('readBudgetMs', 0);
  return policy;
}

/**
 * What made an attempt fail:
 * - `quota`: 45011, answered without effect (slow base delay);
 * - `busy`: -1, answered without effect;
 * - `unreachable`: no connection could be made, so nothing was sent;
 * - `restarting`: the connection was refused (ECONNREFUSED) by a target that had answered before,
 *   so nothing was sent, and the service is likely restarting;
 * - `lost`: sent, and no usable answer came (timeout, broken connection, an HTTP error of a proxy).
 */
export type RetryCause = 'quota' | 'busy' | 'unreachable' | 'restarting' | 'lost';

/**
 * Whether the service itself failed while answering (an in-process handler threw): final, for the
 * token exchange and for every call. No answer was lost, and asking again — a retry, or a read to
 * settle a write — would fail the same way. (A write it failed on is read again by apply's
 * convergence check.)
 */
export function isServiceFailure(failure: TransportError): boolean {
  return failure.kind === 'service';
}

/**
 * Why a failed attempt may be retried, or undefined when it must not be: an exchange that failed
 * (but not on an HTTP 4xx other than 429: the request itself is wrong, nor in the service itself:
 * {@link isServiceFailure}), or an answer of -1 or 45011. `reached`: whether the target has
 * answered this client before (then a refused connection is `restarting`, not `unreachable`).
 */
export function retryCauseOf(
  failure: TransportError | { readonly kind: ApiErrorKind },
  reached = false,
): RetryCause | undefined {
  if (failure instanceof TransportError) {
    if (isServiceFailure(failure)) return undefined;
    const retryable = failure.kind !== 'http' || failure.status === 429 || (failure.status ?? 0) >= 500;
    if (!retryable) return undefined;
    if (failure.sent) return 'lost';
    return reached && failure.reason === 'ECONNREFUSED' ? 'restarting' : 'unreachable';
  }
  if (failure.kind === 'minute-quota') return 'quota';
  return failure.kind === 'busy' ? 'busy' : undefined;
}

/** Whether the call reads (safe to repeat) or writes. */
export type CallKind = 'read' | 'write';

/** The attempts and time one call may still spend. */
export class RetryBudget {
  private sent = 0;
  private counted = 0;
  private quotas = 0;
  private others = 0;
  private excused = 0;
  private readonly started: number;

  constructor(
    private readonly policy: RetryPolicy,
    private readonly clock: Clock,
    private readonly random: () => number,
    private readonly kind: CallKind,
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
    return this.clock.now() - this.started - this.excused;
  }

  /**
   * Takes `ms` out of the time spent: a wait for the server (the reads that watch for a lost
   * create) is not a retry, and must not leave the resend after it without a budget.
   */
  excuse(ms: number): void {
    this.excused += ms;
  }

  /**
   * After a 45011 whose operation is now paced for `waitMs` (until the minute turns, see
   * `MinutePacer`): that wait, or undefined when this call has met 45011 `maxAttempts` times. The
   * wait is the service's rule, not a backoff, so it is taken out of the time spent.
   */
  nextPace(waitMs: number): number | undefined {
    this.quotas += 1;
    if (this.policy.maxAttempts <= 1 || this.quotas >= this.policy.maxAttempts) return undefined;
    this.excuse(waitMs);
    return waitMs;
  }

  /** The wait before the next attempt, or undefined when the policy allows no more. */
  nextDelay(cause: RetryCause): number | undefined {
    if (cause === 'unreachable' || (cause === 'lost' && this.kind === 'write')) this.counted += 1;
    // maxAttempts 1 means no retry at all.
    if (this.policy.maxAttempts <= 1 || this.counted >= this.policy.maxAttempts) return undefined;
    const quota = cause === 'quota';
    const n = quota ? ++this.quotas : ++this.others;
    const base = quota ? this.policy.quotaBaseDelayMs : this.policy.baseDelayMs;
    const cap = Math.min(this.policy.maxDelayMs, base * 2 ** Math.min(30, n - 1));
    const delay = Math.floor(this.random() * cap);
    const budget = this.kind === 'read' ? this.policy.readBudgetMs : this.policy.budgetMs;
    if (this.elapsedMs() + delay > budget) return undefined;
    return delay;
  }
}
