import { type ApplyResult, type RunCallsOptions, runCalls, type Stopper } from '../apply/index.js';
import type { GuideClient } from '../client/index.js';
import type { CallsEvent } from '../core/apply-run-data.js';
import type { Plan } from '../core/plan-data.js';
import { ifDefined } from '../core/records.js';
import { callNote } from '../report/apply.js';
import type { ClientEvents } from '../target/index.js';
import type { CommandContext } from './io.js';
import { createProgress } from './progress.js';

/** The target's client for one apply, what it reports, and how Ctrl-C reaches it. */
export interface Session {
  readonly client: GuideClient;
  readonly events: ClientEvents;
  readonly stopper: Stopper;
}

/**
 * How the calls are made: parallelism, going on after a failure, the account as the plan read it,
 * and what remains of today's quotas.
 */
export type CallSettings = Pick<RunCallsOptions, 'parallelism' | 'continueOnError' | 'live' | 'quotaRemain'>;

/**
 * Runs the plan's calls (`runCalls`) with a progress line, the `--json-stream` events, and Ctrl-C
 * handled: the first starts nothing new and waits for the calls in flight; the second abandons them.
 */
export async function makeCalls(
  ctx: CommandContext,
  session: Session,
  plan: Plan,
  settings: CallSettings,
  /** Told what happens to each call (the `--json-stream` events). */
  onCall: (event: CallsEvent) => void,
): Promise<ApplyResult> {
  const { io } = ctx;
  // Retries: counted on the progress line (the confirming reads' too), streamed for plan calls.
  const progress = createProgress(io, 'Applying', session.events);
  // The plan's count is known now: a first call that takes long must not show "0/0 calls".
  progress.update(0, plan.calls.length);
  let finished = 0;
  try {
    return await runCalls(session.client, plan, {
      ...settings,
      stopSignal: io.stopSignal,
      ...ifDefined('abandonSignal', io.abandonSignal),
      stopper: session.stopper,
      onEvent: (event) => {
        if (event.type === 'done' || event.type === 'failed') {
          finished++;
          if (event.type === 'failed') progress.failed();
          progress.update(finished, plan.calls.length);
        }
        const note = callNote(event);
        if (note !== undefined) progress.note(note);
        onCall(event);
      },
    });
  } finally {
    progress.finish();
  }
}
