import { type ApplyResult, executePlan, type PlanWriter } from '../apply/index.js';
import { CallOutcomeUnknownError, type GuideClient } from '../client/index.js';
import type { Plan } from '../core/plan.js';
import type { ApplyStreamEvent } from '../report/apply-stream.js';
import { countOf } from '../report/count.js';
import { escapeControls } from '../report/escape.js';
import type { CliIo, CommandContext } from './io.js';
import { createProgress } from './progress.js';
import type { ClientEvents } from './session.js';

/** The target's client for one apply, what it reports, and how Ctrl-C reaches it. */
export interface Session {
  readonly client: GuideClient;
  readonly events: ClientEvents;
  readonly stopper: Stopper;
}

/** How the calls are made: their parallelism, and whether to go on after a failure. */
export interface CallSettings {
  readonly parallelism: number;
  readonly continueOnError: boolean;
}

/** Writes one `--json-stream` event (or nothing, when the stream was not asked for). */
export type StreamSink = (event: ApplyStreamEvent) => void;

/**
 * How Ctrl-C reaches the client of an apply: while it reads, the first Ctrl-C aborts the reads;
 * while it writes, only the second does (abandoning the calls in flight, whose outcome is then
 * unknown), so that the first lets them finish.
 */
export interface Stopper {
  readonly signal: AbortSignal;
  /** Marks the writes begun (true) or ended (false). */
  writing(on: boolean): void;
}

export function applyStopper(io: CliIo): Stopper {
  const controller = new AbortController();
  let writing = false;
  const stop = (): void => {
    if (!writing) controller.abort(io.stopSignal.reason);
  };
  if (io.stopSignal.aborted) stop();
  io.stopSignal.addEventListener('abort', stop, { once: true });
  io.abandonSignal?.addEventListener('abort', () => controller.abort(io.abandonSignal?.reason), {
    once: true,
  });
  return {
    signal: controller.signal,
    writing(on) {
      writing = on;
      if (!on && io.stopSignal.aborted) stop();
    },
  };
}

/**
 * Runs the plan's calls with a progress line, the `--json-stream` events, and Ctrl-C handled: the
 * first starts nothing new and waits for the calls in flight; the second abandons them.
 */
export async function makeCalls(
  ctx: CommandContext,
  session: Session,
  plan: Plan,
  settings: CallSettings,
  stream: StreamSink,
): Promise<ApplyResult> {
  const { io } = ctx;
  session.stopper.writing(true);
  const progress = createProgress(io, 'Applying');
  const inFlight = new Set<number>();
  // Retries: counted on the progress line (the confirming reads' too), streamed for plan calls.
  const unlisten = session.events.listen((event) => {
    if (event.type === 'retry') progress.retried(event.callId);
  });
  const onStop = (): void => {
    const n = inFlight.size;
    progress.note(
      n === 0
        ? 'guidectl: stopping: no call is in flight\n'
        : `guidectl: stopping: waiting for ${countOf(n, 'call')} in flight; Ctrl-C again to abandon them\n`,
    );
    stream({ type: 'interrupt', action: 'stop', in_flight: n });
  };
  const onAbandon = (): void => {
    const n = inFlight.size;
    progress.note(`guidectl: abandoning ${countOf(n, 'call')} in flight; their outcome is unknown\n`);
    stream({ type: 'interrupt', action: 'abandon', in_flight: n });
  };
  io.stopSignal.addEventListener('abort', onStop, { once: true });
  io.abandonSignal?.addEventListener('abort', onAbandon, { once: true });
  let finished = 0;
  // Calls whose request was on the wire when the run was abandoned: their outcome is unknown. The
  // report lists each once, so their failure is not also told on stderr as it happens.
  const abandoned = new Set<number>();
  try {
    const result = await executePlan(
      plan,
      planWriter(session, stream, (index) => {
        if (io.abandonSignal?.aborted === true) abandoned.add(index);
      }),
      {
        ...settings,
        signal: io.stopSignal,
        onEvent: (event) => {
          const { index, operation } = event;
          if (event.type === 'start') {
            inFlight.add(index);
            stream({ type: 'call_start', index, operation });
            return;
          }
          inFlight.delete(index);
          finished++;
          if (event.type === 'failed') progress.failed();
          progress.update(finished, plan.calls.length);
          if (event.type === 'failed') {
            const error = event.error ?? '';
            if (abandoned.has(index)) {
              stream({ type: 'call_failed', index, operation, error, abandoned: true });
              return;
            }
            progress.note(`guidectl: call ${index + 1} (${operation}) failed: ${escapeControls(error)}\n`);
            stream({ type: 'call_failed', index, operation, error });
          } else {
            stream({ type: 'call_done', index, operation });
          }
        },
      },
    );
    for (const o of result.outcomes)
      if (o.status === 'not-started')
        stream({ type: 'call_not_started', index: o.index, operation: o.operation, reason: o.reason ?? '' });
    if (abandoned.size === 0) return result;
    return {
      ...result,
      outcomes: result.outcomes.map((o) =>
        abandoned.has(o.index) && o.status === 'failed' ? { ...o, abandoned: true } : o,
      ),
    };
  } finally {
    io.stopSignal.removeEventListener('abort', onStop);
    io.abandonSignal?.removeEventListener('abort', onAbandon);
    unlisten();
    progress.finish();
    session.stopper.writing(false);
  }
}

/**
 * The client's calls for `executePlan`: each streams its retries (`call_retry`, by its index in
 * the plan), and a call whose outcome is unknown is told to `onUnknown`.
 */
function planWriter(session: Session, stream: StreamSink, onUnknown: (index: number) => void): PlanWriter {
  return {
    call: (operation, body, callOptions, index) =>
      session.client
        .call(operation, body, {
          ...callOptions,
          onRetry: (event) =>
            stream({
              type: 'call_retry',
              index,
              operation: event.operation,
              attempt: event.attempt,
              delay_ms: event.delayMs,
              reason: event.reason,
              ...(event.errcode === undefined ? {} : { errcode: event.errcode }),
            }),
        })
        .catch((error: unknown) => {
          if (error instanceof CallOutcomeUnknownError) onUnknown(index);
          throw error;
        }),
  };
}
