import type { Applied, ApplyRun, CallsEvent, CancelReason, Reviewed } from '../core/apply-run-data.js';
import { countOf } from '../core/count.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { errorMessage, GuidectlError, InterruptedError } from '../core/errors.js';
import { ifDefined } from '../core/records.js';
import type { TargetNow } from '../core/target-identity.js';
import { stringifyJsonPretty } from '../wire/json.js';
import {
  appliedToJson,
  refusalMessage,
  renderApplyReport,
  reviewedToJson,
  wordsReplacedMessage,
} from './apply.js';
import {
  type ApplyStreamEvent,
  appliedSummary,
  emptySummary,
  noPlanEvents,
  streamEventJson,
  streamEventOf,
} from './apply-stream.js';
import { renderDiagnostics } from './diagnostic-text.js';
import { environmentHeading } from './envs.js';
import { escapeControls } from './escape.js';
import { type EnvironmentInWords, type EnvironmentSoFar, failureToJson, renderPlan } from './plan.js';
import { quotaChangeNote } from './quota.js';
import { renderStale } from './stale.js';

/** What apply prints on stdout: human text, one JSON object (`--json`), or events (`--json-stream`). */
export type ApplyFormat = 'human' | 'json' | 'json-stream';

/** Text for one of the two streams, in the order it is to be written. */
export interface OutputChunk {
  readonly to: 'stdout' | 'stderr';
  readonly text: string;
  /**
   * The JSON object the text is (`--json`'s object, a `--json-stream` event), for whoever gathers
   * them (`apply --all-envs`) instead of parsing the text again; absent for other text.
   */
  readonly value?: Readonly<Record<string, unknown>>;
  /**
   * The environment the output is of (`--env NAME`), as far as it is known (see
   * {@link environmentOutput}): the writer names it in a failure's JSON.
   */
  readonly environment?: EnvironmentSoFar;
}

export interface ApplyOutputOptions {
  readonly format: ApplyFormat;
  /** Colour on each stream (a terminal, no NO_COLOR, no --no-color). */
  readonly color: { readonly stdout: boolean; readonly stderr: boolean };
  /** Paths in diagnostics are shown relative to this folder. */
  readonly cwd: string;
  /** The files' texts, to quote the lines of diagnostics. */
  readonly sources: ReadonlyMap<string, string>;
  /** The environment applied (`--env NAME`) and its target: its plan's JSON names them. */
  readonly environment?: EnvironmentInWords | undefined;
  /**
   * The flags that reach this apply's target again (` --env NAME --files PATH…`), for the
   * commands the human report suggests; absent when the target needs none.
   */
  readonly targetFlags?: string | undefined;
  /** The target read, with or without an environment: the plan's JSON and the `plan` event name it. */
  readonly target?: TargetNow | undefined;
  /** The user's time zone (`TZ`; the system's when absent), for the times the report prints. */
  readonly timeZone?: string | undefined;
}

/** The format asked for by apply's flags: `--json-stream`, `--json`, or human text. */
export function applyFormatOf(flags: { readonly json: boolean; readonly jsonStream: boolean }): ApplyFormat {
  return flags.jsonStream ? 'json-stream' : flags.json ? 'json' : 'human';
}

/**
 * The environment applied (`--env NAME`), as far as it is known: once the files are read for it,
 * its name; once its target is resolved, that too, and then the human text's heading. Machines get
 * no text here, but a failure's JSON names the environment, as `plan --json`'s does.
 */
export function environmentOutput(
  o: Pick<ApplyOutputOptions, 'format'>,
  environment: EnvironmentSoFar,
): OutputChunk[] {
  const { name, target } = environment;
  const text = o.format === 'human' && target !== undefined ? environmentHeading(name, target) : '';
  return [{ to: 'stdout', text, environment }];
}

/** What apply asks before it makes the calls of a plan of files. */
export function confirmQuestion(calls: number): string {
  return `\nMake ${calls === 1 ? 'this call' : `these ${countOf(calls, 'call')}`}? Only 'yes' is accepted: `;
}

/** What apply says instead of asking, for a saved plan (reviewed when it was made); nothing for machines. */
export function savedPlanApproval(
  planId: string,
  file: string,
  o: Pick<ApplyOutputOptions, 'format'>,
): OutputChunk[] {
  if (o.format !== 'human') return [];
  const text = `\nApplying saved plan ${planId} (${file}): the account is as it was when it was made.\n`;
  return [{ to: 'stdout', text }];
}

/** A call's `--json-stream` event as it happens; nothing in the other formats (built only for the stream). */
export function callEventOutput(event: CallsEvent, o: Pick<ApplyOutputOptions, 'format'>): OutputChunk[] {
  return o.format === 'json-stream' ? [streamChunk(streamEventOf(event))] : [];
}

/** The plan about to be applied: its warnings, then the plan (human) or the stream's `plan` event. */
export function reviewOutput(r: Reviewed, o: ApplyOutputOptions): OutputChunk[] {
  const chunks = diagnosticChunks(r.diagnostics, o);
  if (r.quotaChange !== undefined)
    chunks.push({ to: 'stderr', text: `guidectl: ${quotaChangeNote(r.quotaChange)}\n` });
  if (o.format === 'human')
    chunks.push({
      to: 'stdout',
      text: renderPlan(r.plan, {
        color: o.color.stdout,
        planId: r.id,
        guards: r.guards,
        ...ifDefined('quota', r.quota),
        ...ifDefined('partial', r.partial),
      }),
    });
  if (o.format === 'json-stream') {
    const target = o.target?.description ?? o.environment?.target;
    const event = {
      type: 'plan',
      plan_id: r.id,
      ...(o.environment === undefined ? {} : { environment: o.environment.name }),
      ...ifDefined('target', target),
      calls: r.plan.calls.length,
      summary: r.plan.summary,
    } as const;
    chunks.push(streamChunk(event));
  }
  return chunks;
}

/**
 * The plan a person is asked to confirm when the output is for machines (`--json`, `--json-stream`
 * on a terminal, without --auto-approve): stdout holds the plan only in its object at the end, or
 * as counts, so the plan as text goes to stderr before the question, which is never asked blind.
 */
export function promptReviewOutput(r: Reviewed, o: ApplyOutputOptions): OutputChunk[] {
  if (o.format === 'human') return [];
  return [
    { to: 'stderr', text: renderPlan(r.plan, { color: o.color.stderr, planId: r.id, guards: r.guards }) },
  ];
}

/**
 * Why no plan was made (`headline`: the files have errors, the plan cannot be made), for the
 * machine formats: one JSON object with the diagnostics, or a `diagnostics` event and the summary.
 * Nothing for human text (stderr has said it).
 */
export function noPlanOutput(
  headline: string,
  diagnostics: readonly Diagnostic[],
  o: Pick<ApplyOutputOptions, 'format' | 'cwd'> & { readonly environment?: EnvironmentSoFar | undefined },
): OutputChunk[] {
  if (o.format === 'json-stream')
    return noPlanEvents(headline, diagnostics, o.cwd, o.environment).map(streamChunk);
  if (o.format === 'json') {
    const extra = { outcomes: [], converged: false };
    return [
      jsonChunk(failureToJson(headline, diagnostics, { cwd: o.cwd, extra, environment: o.environment })),
    ];
  }
  return [];
}

/** Where apply writes its output, kept whole for machines when the run fails with an error. */
export interface ApplyOutputWriter {
  /** Passes the chunks on, noting whether they ended the output (`--json`'s object, the stream's `summary`). */
  write(chunks: readonly OutputChunk[]): void;
  /**
   * The run failed with `error` (the target refused the credentials or could not be reached, a
   * Ctrl-C during the read…) before its output ended: `--json`'s object with `error`, or a
   * `diagnostics` event naming it and the summary (with the plan's id and calls when its `plan`
   * event is out), as for a plan that cannot be made; nothing once the output has ended, or for
   * human text (the error goes to stderr as every error does).
   */
  failed(error: unknown): void;
}

/** Apply's output through `write` in format `o.format`, ended for machines whatever happens (see {@link ApplyOutputWriter}). */
export function applyOutputWriter(
  o: Pick<ApplyOutputOptions, 'format' | 'cwd'>,
  write: (chunks: readonly OutputChunk[]) => void,
): ApplyOutputWriter {
  let ended = false;
  let plan: { readonly id: string; readonly calls: number } | undefined;
  let environment: EnvironmentSoFar | undefined;
  let interruptTold = false;
  // The stream tells every Ctrl-C: one that came while no call was running (during the read, the
  // wait for the lock, or the convergence check) is told just before the summary it ended.
  const tellInterrupt = (chunks: readonly OutputChunk[]): readonly OutputChunk[] => {
    if (o.format !== 'json-stream' || interruptTold) return chunks;
    return chunks.flatMap((chunk) => {
      const type = chunk.value?.['type'];
      if (type === 'interrupt') interruptTold = true;
      if (type !== 'summary' || chunk.value?.['interrupted'] !== true || interruptTold) return [chunk];
      interruptTold = true;
      return [streamChunk({ type: 'interrupt', action: 'stop', in_flight: 0 }), chunk];
    });
  };
  return {
    write(chunks) {
      for (const chunk of chunks) {
        const { value } = chunk;
        environment = chunk.environment ?? environment;
        if (value === undefined) continue;
        if (o.format === 'json' || value['type'] === 'summary') ended = true;
        if (value['type'] === 'plan') plan = { id: String(value['plan_id']), calls: Number(value['calls']) };
      }
      write(tellInterrupt(chunks));
    },
    failed(error) {
      if (ended || o.format === 'human') return;
      ended = true;
      const message = errorMessage(error);
      if (o.format === 'json') return write(noPlanOutput(message, [], { ...o, environment }));
      const interrupted = error instanceof InterruptedError;
      const events = noPlanEvents(message, [], o.cwd, environment, {
        ...ifDefined('plan', plan),
        interrupted,
      });
      write(tellInterrupt(events.map(streamChunk)));
    },
  };
}

/**
 * What apply prints at the end of a run, in order, and its exit status. `savedPlanId` names a
 * saved plan refused before it was reviewed. `bug`: the check's failure when it is not a
 * `GuidectlError`, for the caller to throw once the report is out, so that it keeps its stack trace.
 */
export function applyRunOutput(
  run: ApplyRun,
  o: ApplyOutputOptions,
  savedPlanId = '',
): { readonly chunks: OutputChunk[]; readonly exit: 0 | 1 | undefined; readonly bug?: unknown } {
  switch (run.status) {
    case 'invalid':
      return {
        chunks: [
          ...diagnosticChunks(run.diagnostics, o),
          { to: 'stderr', text: 'guidectl: the plan cannot be made; nothing was changed\n' },
          ...noPlanOutput('the plan cannot be made', run.diagnostics, o),
        ],
        exit: 1,
      };
    case 'stale':
      return { chunks: staleOutput(run, o), exit: 1 };
    case 'refused':
      return { chunks: refusedOutput(run, o, savedPlanId), exit: 1 };
    case 'unchanged': {
      const summary = { ...emptySummary(run.reviewed.id), converged: true, exit_code: 0 } as const;
      const json = { plan: reviewedToJson(run.reviewed, o), outcomes: [], converged: true };
      return {
        chunks: machineOutput(
          o,
          () => json,
          () => summary,
        ),
        exit: 0,
      };
    }
    case 'cancelled':
      return { chunks: cancelledOutput(run, o), exit: 1 };
    case 'applied':
      return appliedOutput(run, o);
    default: {
      const unreachable: never = run;
      throw new Error(`unknown apply status ${JSON.stringify(unreachable)}`);
    }
  }
}

function diagnosticChunks(diagnostics: readonly Diagnostic[], o: ApplyOutputOptions): OutputChunk[] {
  if (diagnostics.length === 0) return [];
  const text = renderDiagnostics(diagnostics, { cwd: o.cwd, color: o.color.stderr, sources: o.sources });
  return [{ to: 'stderr', text }];
}

/** `--json`'s object or `--json-stream`'s summary, whichever was asked for (and only that one built). */
function machineOutput(
  o: ApplyOutputOptions,
  json: () => Record<string, unknown>,
  summary: () => ApplyStreamEvent,
): OutputChunk[] {
  if (o.format === 'json') return [jsonChunk({ format_version: 1, ...json() })];
  if (o.format === 'json-stream') return [streamChunk(summary())];
  return [];
}

/** `--json`'s object on stdout, indented. */
function jsonChunk(value: Readonly<Record<string, unknown>>): OutputChunk {
  return { to: 'stdout', text: `${stringifyJsonPretty(value)}\n`, value };
}

/** A `--json-stream` event: its line on stdout. */
function streamChunk(event: ApplyStreamEvent): OutputChunk {
  const value = streamEventJson(event);
  return { to: 'stdout', text: `${JSON.stringify(value)}\n`, value };
}

/** `plan is stale`: what changed, and how a plan made now would differ; nothing was written. */
function staleOutput(run: Extract<ApplyRun, { status: 'stale' }>, o: ApplyOutputOptions): OutputChunk[] {
  const { report } = run;
  const json = {
    plan_id: report.savedPlanId,
    stale: true,
    live_changed: report.live !== undefined,
    files_changed: report.filesChanged,
    live_changes: report.live ?? [],
    ...(report.now === undefined ? {} : { plan_id_now: report.now.planId }),
    outcomes: [],
    converged: false,
  };
  const summary = {
    ...emptySummary(report.savedPlanId),
    converged: false,
    refused: [`plan ${report.savedPlanId} is stale: the account or the files changed since it was made`],
    exit_code: 1,
  } as const;
  return [
    { to: 'stderr', text: `guidectl: ${renderStale(report, { color: o.color.stderr })}` },
    ...machineOutput(
      o,
      () => json,
      () => summary,
    ),
  ];
}

/** The refusals of the guards (or of a saved plan's checks); nothing was written. */
function refusedOutput(
  run: Extract<ApplyRun, { status: 'refused' }>,
  o: ApplyOutputOptions,
  savedPlanId: string,
): OutputChunk[] {
  const refusals = run.refusals.map((r) => refusalMessage(r, o.format, o.timeZone));
  const id = run.reviewed?.id ?? savedPlanId;
  const calls = run.reviewed?.plan.calls.length ?? 0;
  const json = {
    ...(run.reviewed === undefined ? {} : { plan: reviewedToJson(run.reviewed, o) }),
    refused: refusals,
    outcomes: [],
    converged: false,
  };
  const summary = { ...emptySummary(id, calls), converged: false, refused: refusals, exit_code: 1 } as const;
  return [
    ...refusals.map((r): OutputChunk => ({ to: 'stderr', text: `guidectl: ${r}\n` })),
    { to: 'stderr', text: 'guidectl: apply refused; nothing was changed\n' },
    ...machineOutput(
      o,
      () => json,
      () => summary,
    ),
  ];
}

const CANCELLED: Readonly<Record<CancelReason, string>> = {
  declined: 'apply cancelled; nothing was changed',
  'no-terminal':
    'apply needs a confirmation and there is no terminal to ask on; pass --auto-approve to apply without asking (as in CI)',
};

/** Not approved: why on stderr, and (`--json`, `--json-stream`) the result and summary all the same. */
function cancelledOutput(
  run: Extract<ApplyRun, { status: 'cancelled' }>,
  o: ApplyOutputOptions,
): OutputChunk[] {
  const message = CANCELLED[run.reason];
  const json = {
    plan: reviewedToJson(run.reviewed, o),
    refused: [message],
    outcomes: [],
    converged: false,
  };
  const summary = {
    ...emptySummary(run.reviewed.id, run.reviewed.plan.calls.length),
    converged: false,
    refused: [message],
    exit_code: 1,
  } as const;
  return [
    { to: 'stderr', text: `guidectl: ${message}\n` },
    ...machineOutput(
      o,
      () => json,
      () => summary,
    ),
  ];
}

/**
 * The report of the calls, whatever failed after them, then the check's failure if any. A check
 * that failed for a reason other than a `GuidectlError` is a bug: its line is left to the caller,
 * which throws it (`bug`, with its stack trace) once the report is out.
 */
function appliedOutput(
  run: Applied,
  o: ApplyOutputOptions,
): { chunks: OutputChunk[]; exit: 0 | 1; bug?: unknown } {
  const chunks: OutputChunk[] = [];
  if (run.drift?.wordsReplaced !== undefined)
    chunks.push({ to: 'stderr', text: `guidectl: ${wordsReplacedMessage(run.drift.wordsReplaced.lost)}\n` });
  chunks.push(...diagnosticChunks(run.checkDiagnostics, o));
  const exit = run.allDone && run.converged ? 0 : 1;
  const checkMessage = run.checkError === undefined ? undefined : errorMessage(run.checkError);
  chunks.push(
    ...machineOutput(
      o,
      () => appliedToJson(run, checkMessage, o, o.timeZone),
      () => appliedSummary(run, checkMessage, exit, o.timeZone),
    ),
  );
  if (o.format === 'human')
    chunks.push({
      to: 'stdout',
      text: renderApplyReport(run, {
        color: o.color.stdout,
        targetFlags: o.targetFlags,
        timeZone: o.timeZone,
      }),
    });
  if (run.checkError instanceof GuidectlError)
    chunks.push({
      to: 'stderr',
      text: `guidectl: the check after the writes failed: ${escapeControls(checkMessage ?? '')}; the report above stands — run guidectl plan to see what is left\n`,
    });
  else if (run.checkError !== undefined) return { chunks, exit, bug: run.checkError };
  return { chunks, exit };
}
