import { CallOutcomeUnknownError, type GuideClient } from '../client/index.js';
import type { CallsEvent } from '../core/apply-run-data.js';
import type { LiveState } from '../core/live.js';
import type { ApplyResult, Plan } from '../core/plan-data.js';
import { ifDefined } from '../core/records.js';
import { executePlan, type PlanWriter } from './execute-plan.js';

/**
 * How Ctrl-C reaches the client of an apply: while it reads, the first stop aborts the reads;
 * while it writes, only the second (`abandon`) does — abandoning the calls in flight, whose outcome
 * is then unknown — so that the first lets them finish.
 */
export interface Stopper {
  /** The client's signal: aborted by a stop outside the writes, or by an abandon. */
  readonly signal: AbortSignal;
  /** Marks the writes begun (true) or ended (false). */
  writing(on: boolean): void;
}

export function writeAwareStopper(stop: AbortSignal, abandon?: AbortSignal): Stopper {
  const controller = new AbortController();
  let writing = false;
  const stopNow = (): void => {
    if (!writing) controller.abort(stop.reason);
  };
  if (stop.aborted) stopNow();
  stop.addEventListener('abort', stopNow, { once: true });
  abandon?.addEventListener('abort', () => controller.abort(abandon.reason), { once: true });
  return {
    signal: controller.signal,
    writing(on) {
      writing = on;
      if (!on && stop.aborted) stopNow();
    },
  };
}

export interface RunCallsOptions {
  readonly parallelism: number;
  /** After a failed call, go on with the calls that do not depend on it. */
  readonly continueOnError: boolean;
  /** The first stop: nothing new starts; the calls in flight end as they end. */
  readonly stopSignal: AbortSignal;
  /** The second stop: the calls in flight were abandoned (the client's signal aborted them). */
  readonly abandonSignal?: AbortSignal;
  /** The client's stopper (see {@link writeAwareStopper}): marked writing while the calls run. */
  readonly stopper?: Stopper;
  readonly onEvent: (event: CallsEvent) => void;
  /** The account as the plan read it (see `executePlan`'s option). */
  readonly live?: LiveState;
  /** What remains today of each operation's daily quota (see `executePlan`'s option). */
  readonly quotaRemain?: ReadonlyMap<string, number>;
}

/**
 * Makes the plan's calls through `client` (see `executePlan`), telling `onEvent` each start, end,
 * retry and stop as it happens. A call that was on the wire when the run was abandoned is reported
 * once, as failed and `abandoned` (it may have taken effect), in the events and in the result.
 */
export async function runCalls(
  client: GuideClient,
  plan: Plan,
  options: RunCallsOptions,
): Promise<ApplyResult> {
  const { stopSignal, abandonSignal, stopper, onEvent } = options;
  const inFlight = new Set<number>();
  const abandoned = new Set<number>();
  const onStop = (): void => onEvent({ type: 'stop', inFlight: inFlight.size });
  const onAbandon = (): void => onEvent({ type: 'abandon', inFlight: inFlight.size });
  stopSignal.addEventListener('abort', onStop, { once: true });
  abandonSignal?.addEventListener('abort', onAbandon, { once: true });
  stopper?.writing(true);
  try {
    const writer = clientWriter(client, onEvent, (index) => {
      if (abandonSignal?.aborted === true) abandoned.add(index);
    });
    const result = await executePlan(plan, writer, {
      // With adaptive concurrency, as many as the client's limit lets run now: a call handed to
      // the client beyond it would wait there, and start after a stop.
      parallelism: client.concurrency.adaptive ? () => client.concurrency.limit : options.parallelism,
      continueOnError: options.continueOnError,
      signal: stopSignal,
      ...ifDefined('live', options.live),
      ...ifDefined('quotaRemain', options.quotaRemain),
      onEvent: ({ type, index, operation, error }) => {
        if (type === 'start') inFlight.add(index);
        else inFlight.delete(index);
        if (type === 'failed')
          onEvent({ type, index, operation, error: error ?? '', abandoned: abandoned.has(index) });
        else onEvent({ type, index, operation });
      },
    });
    for (const o of result.outcomes)
      if (o.status === 'not-started')
        onEvent({ type: 'not-started', index: o.index, operation: o.operation, reason: o.reason ?? '' });
    if (abandoned.size === 0) return result;
    return {
      ...result,
      outcomes: result.outcomes.map((o) =>
        abandoned.has(o.index) && o.status === 'failed' ? { ...o, abandoned: true } : o,
      ),
    };
  } finally {
    stopSignal.removeEventListener('abort', onStop);
    abandonSignal?.removeEventListener('abort', onAbandon);
    stopper?.writing(false);
  }
}

/**
 * The client's calls for `executePlan`: each tells its retries (by its index in the plan), and a
 * call whose outcome is unknown is told to `onUnknown`.
 */
function clientWriter(
  client: GuideClient,
  onEvent: (event: CallsEvent) => void,
  onUnknown: (index: number) => void,
): PlanWriter {
  return {
    call: (operation, body, callOptions, index) =>
      client
        .call(operation, body, {
          ...callOptions,
          onRetry: (event) =>
            onEvent({
              type: 'retry',
              index,
              operation: event.operation,
              attempt: event.attempt,
              delayMs: event.delayMs,
              reason: event.reason,
              ...ifDefined('errcode', event.errcode),
            }),
        })
        .catch((error: unknown) => {
          if (error instanceof CallOutcomeUnknownError) onUnknown(index);
          throw error;
        }),
  };
}
