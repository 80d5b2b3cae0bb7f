import { AsyncLocalStorage } from 'node:async_hooks';
import { stat } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { type ApplyResult, executePlan } from '../apply/index.js';
import type { GuideClient } from '../client/index.js';
import type { DesiredState } from '../core/desired.js';
import { GuidectlError, UsageError } from '../core/errors.js';
import type { LiveReadScope, LiveState } from '../core/live.js';
import type { Plan } from '../core/plan.js';
import type { GuardResult } from '../core/safety.js';
import { readOnlyClient } from '../live/index.js';
import {
  checkProtection,
  desiredDigest,
  detectReplacedWords,
  diffCalls,
  diffLiveFingerprints,
  liveDigest,
  liveFingerprints,
  PLAN_ID_LENGTH,
  planBasis,
  planChanges,
  planId,
  protectionFromNames,
  type WordsReplaced,
} from '../plan/index.js';
import { renderApplyResult } from '../report/apply.js';
import { type ApplyStreamEvent, renderStreamEvent } from '../report/apply-stream.js';
import { countOf } from '../report/count.js';
import { failureToJson } from '../report/diagnostics.js';
import { escapeControls } from '../report/escape.js';
import { guardMessage, planToJson, renderPlan } from '../report/plan.js';
import { renderStale, type StaleReport } from '../report/stale.js';
import { stringifyJsonPretty } from '../wire/json.js';
import type { CliIo, CommandContext } from './io.js';
import { createProgress } from './progress.js';
import {
  type ClientEvents,
  deleteGuards,
  type FailureSink,
  type GuardOptions,
  guardOptions,
  type LoadedFiles,
  loadFiles,
  makePlan,
  planReadScope,
  readLive,
  type TargetOptions,
  useColor,
  withClient,
} from './reconcile.js';
import { readSavedPlan, type SavedPlan, splitSavedPlans } from './saved-plan.js';
import { type TargetLock, targetOptions } from './target.js';

interface ApplyOptions extends TargetOptions, GuardOptions {
  lockTimeout: number;
  json: boolean;
  jsonStream: boolean;
  autoApprove: boolean;
  continueOnError: boolean;
  planId?: string;
}

/**
 * `guidectl apply PATH…`: plan, confirm, make the calls, then check that the account converged.
 * `guidectl apply PLAN.json [PATH…]`: make exactly the calls of a saved plan, unless the account
 * or the files changed since it was made.
 */
export function registerApplyCommand(program: Command, ctx: CommandContext): void {
  guardOptions(
    targetOptions(
      program
        .command('apply')
        .description(
          'plan, then make the calls (asks for confirmation unless --auto-approve); or make the calls of a saved plan (FILE.json from plan --out)',
        )
        .argument(
          '<paths...>',
          'YAML files, or folders of *.yaml/*.yml files, all merged; or a saved plan FILE.json (with the files, to check them against it)',
        ),
    ),
  )
    .option('--auto-approve', 'make the calls without asking (needed when there is no terminal)', false)
    .option(
      '--continue-on-error',
      'after a failed call, go on with the calls that do not depend on it',
      false,
    )
    .option(
      '--plan-id <id>',
      'refuse unless the plan made now has this id (the "Plan id:" a reviewed plan printed)',
    )
    .option(
      '--lock-timeout <seconds>',
      'with the embedded local database: wait this long for another guidectl using it; 0 refuses at once',
      parseSeconds,
      0,
    )
    .option('--json', 'print the plan, each call outcome and the convergence check as JSON', false)
    .option(
      '--json-stream',
      'print one JSON event a line as calls start, retry, finish and fail, then a summary (see the README)',
      false,
    )
    .addHelpText(
      'after',
      '\nA saved plan is applied without asking: it was reviewed when it was made. It is refused, and nothing\n' +
        'is changed, when the account (or the files, when they are at hand) changed since it was made.\n' +
        'Exit status: 0 success; 1 error, refused, stale plan, failed call, or not converged.\n',
    )
    .action(async (args: string[], options: ApplyOptions) => {
      if (options.json && options.jsonStream) {
        throw new UsageError('--json and --json-stream are two output formats; give one');
      }
      const expected = options.planId;
      if (expected !== undefined && !new RegExp(`^[0-9a-f]{${PLAN_ID_LENGTH}}$`).test(expected)) {
        throw new UsageError(
          `--plan-id takes the ${PLAN_ID_LENGTH} hex digits that plan prints as "Plan id:", not ${JSON.stringify(expected)}`,
        );
      }
      const { savedPlans, paths } = await splitSavedPlans(ctx.io.cwd, args);
      if (savedPlans.length > 1) {
        throw new UsageError(`give one saved plan, not ${savedPlans.length} (${savedPlans.join(', ')})`);
      }
      const [savedPlan] = savedPlans;
      if (savedPlan !== undefined) {
        await applySaved(ctx, savedPlan, paths, options);
        return;
      }
      const files = await loadFiles(ctx, paths, jsonFailure(ctx, options));
      if (files === undefined) return;
      const stopper = applyStopper(ctx.io);
      await withClient(
        ctx,
        options,
        (client, events) => applyFiles(ctx, files, { client, events, stopper }, options),
        { signal: stopper.signal, lock: lockFor(args, options) },
      );
    });
}

/** apply holds the local database's lock from its read of the live state to its convergence check. */
function lockFor(args: readonly string[], options: ApplyOptions): TargetLock {
  return { command: ['guidectl', 'apply', ...args].join(' '), timeoutSeconds: options.lockTimeout };
}

function parseSeconds(value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n)) {
    throw new InvalidArgumentError('--lock-timeout takes a whole number of seconds, e.g. 60.');
  }
  return n;
}

/** The target's client for one apply, what it reports, and how Ctrl-C reaches it. */
interface Session {
  readonly client: GuideClient;
  readonly events: ClientEvents;
  readonly stopper: Stopper;
}

/** True when stdout carries JSON (`--json` or `--json-stream`): then no human text goes there. */
function machine(options: ApplyOptions): boolean {
  return options.json || options.jsonStream;
}

/** Writes one `--json-stream` event, when the stream was asked for. */
function stream(ctx: CommandContext, options: ApplyOptions, event: ApplyStreamEvent): void {
  if (options.jsonStream) ctx.io.stdout.write(renderStreamEvent(event));
}

/** A plan about to be applied: its calls, its id, and its deletion guards as checked now. */
interface Reviewed {
  readonly plan: Plan;
  readonly id: string;
  readonly guards: readonly GuardResult[];
}

/** The plan as the `--json` outputs hold it. */
function reviewedToJson(r: Reviewed): Record<string, unknown> {
  return planToJson(r.plan, { planId: r.id, guards: r.guards });
}

/** Shows the plan about to be applied: human text, or the stream's `plan` event. */
function showPlan(ctx: CommandContext, r: Reviewed, options: ApplyOptions): void {
  if (!machine(options))
    ctx.io.stdout.write(
      renderPlan(r.plan, { color: useColor(ctx, 'stdout'), planId: r.id, guards: r.guards }),
    );
  stream(ctx, options, { type: 'plan', plan_id: r.id, calls: r.plan.calls.length, summary: r.plan.summary });
}

/** Nothing to do: says so in the JSON formats; exit 0. */
function nothingToDo(ctx: CommandContext, r: Reviewed, options: ApplyOptions): void {
  if (options.json) writeJson(ctx, { plan: reviewedToJson(r), outcomes: [], converged: true });
  stream(ctx, options, { ...emptySummary(r.id), converged: true, exit_code: 0 });
  ctx.setExit(0);
}

/** How an apply goes on once its plan is made: whether to make the calls, and the check after. */
interface Steps {
  /** Asks for confirmation, or says which plan is applied; false cancels (exit set). */
  approve(): Promise<boolean>;
  /** Plans the files again after the calls; absent when the files are not at hand. */
  readonly converge: (() => Promise<Drift | undefined>) | undefined;
}

/**
 * What an apply of files and of a saved plan both do once the plan is made and checked: show it,
 * then refuse it (exit 1), or say there is nothing to do (exit 0), or, approved, make its calls.
 */
async function proceed(
  ctx: CommandContext,
  session: Session,
  r: Reviewed,
  refusals: readonly string[],
  options: ApplyOptions,
  steps: Steps,
): Promise<void> {
  showPlan(ctx, r, options);
  if (refuse(ctx, r, refusals, options)) return;
  if (r.plan.calls.length === 0) {
    nothingToDo(ctx, r, options);
    return;
  }
  if (!(await steps.approve())) return;
  await run(ctx, session, r, options, steps.converge);
}

function emptySummary(
  id: string,
): Omit<Extract<ApplyStreamEvent, { type: 'summary' }>, 'converged' | 'exit_code'> {
  return { type: 'summary', plan_id: id, calls: 0, done: 0, failed: 0, not_started: 0, interrupted: false };
}

async function applyFiles(
  ctx: CommandContext,
  files: LoadedFiles,
  session: Session,
  options: ApplyOptions,
): Promise<void> {
  const { client, events } = session;
  const scope = planReadScope(files.state);
  const live = await readLive(ctx, readOnlyClient(client), scope, events);
  const plan = makePlan(ctx, files, live, jsonFailure(ctx, options));
  if (plan === undefined) return;
  const id = planId(plan, planBasis(files.state, live, scope));
  const guards = deleteGuards(files.state.safety, plan, live, options);
  const refusals = refusalsOf(guards);
  if (options.planId !== undefined && options.planId !== id) {
    refusals.unshift(
      `refused: the plan made now has id ${id}, not ${options.planId} (--plan-id): the files or the account changed since plan ${options.planId} was made. Review the plan above; to apply it, pass --plan-id ${id}.`,
    );
  }
  await proceed(ctx, session, { plan, id, guards }, refusals, options, {
    approve: async () => options.autoApprove || (await confirm(ctx, plan)),
    converge: () => planAgain(ctx, session, files, scope, { plan, before: live }),
  });
}

/**
 * Applies a saved plan: reads the live state again with the plan's read scope and checks it, and
 * the files when they are at hand, against the plan's digests; refuses a stale plan; checks the
 * deletion guards; then makes exactly the saved calls, without planning again.
 *
 * The files are those given after the plan, else those the plan was made from (recorded relative
 * to the working directory) when they are all there; when they are not, only the account is
 * checked, and a note says so.
 */
async function applySaved(
  ctx: CommandContext,
  file: string,
  paths: readonly string[],
  options: ApplyOptions,
): Promise<void> {
  const { io } = ctx;
  const saved = await readSavedPlan(nodePath.resolve(io.cwd, file), file);
  if (options.planId !== undefined && options.planId !== saved.planId) {
    io.stderr.write(
      `guidectl: refused: ${file} holds plan ${saved.planId}, not ${options.planId} (--plan-id); nothing was changed\n`,
    );
    ctx.setExit(1);
    return;
  }
  let files: LoadedFiles | undefined;
  let checked: readonly string[] = paths;
  if (paths.length > 0) {
    files = await loadFiles(ctx, paths, jsonFailure(ctx, options));
    if (files === undefined) return;
  } else if (saved.paths.length > 0 && (await allExist(io.cwd, saved.paths))) {
    checked = saved.paths;
    files = await loadFiles(ctx, saved.paths, jsonFailure(ctx, options));
    if (files === undefined) {
      io.stderr.write(
        `guidectl: the files ${file} was made from (${saved.paths.join(', ')}) have errors now\n`,
      );
      return;
    }
  } else {
    io.stderr.write(
      `guidectl: note: the files ${file} was made from (${saved.paths.join(', ')}) are not here; only the account is checked against the plan\n`,
    );
  }

  const stopper = applyStopper(io);
  await withClient(
    ctx,
    options,
    async (client, events) => {
      const session: Session = { client, events, stopper };
      const live = await readLive(ctx, readOnlyClient(client), saved.basis.readScope, events);
      const liveChanged = liveDigest(live) !== saved.basis.liveDigest;
      const filesChanged = files !== undefined && desiredDigest(files.state) !== saved.basis.desiredDigest;
      if (liveChanged || filesChanged) {
        reportStale(ctx, saved, { liveChanged, filesChanged, paths: checked, files, live, options });
        return;
      }
      const plan = saved.plan;
      // The guards are checked again with the files' settings (the saved copy, which the plan id
      // covers, when the files are not at hand) and this run's flags; none of the file is trusted.
      const guards = deleteGuards(files?.state.safety ?? saved.basis.safety, plan, live, options);
      const checks = checkSaved(ctx, file, saved, files, live);
      if (checks === undefined) return;
      const refusals = [...checks, ...refusalsOf(guards)];
      await proceed(ctx, session, { plan, id: saved.planId, guards }, refusals, options, {
        approve: async () => {
          if (!machine(options))
            io.stdout.write(
              `\nApplying saved plan ${saved.planId} (${file}): the account is as it was when it was made.\n`,
            );
          return true;
        },
        converge:
          files === undefined
            ? undefined
            : () => planAgain(ctx, session, files, saved.basis.readScope, { plan, before: live }),
      });
    },
    { signal: stopper.signal, lock: lockFor([file, ...paths], options) },
  );
}

/**
 * The checks of a saved plan that do not trust it, as refusals: with the files at hand, the plan
 * the files make now against the account as read (the same files and account as when it was
 * made, the digests say) must have the saved plan's id — so calls, guards, protections and read
 * scope edited in the file, even with a recomputed id, are refused; without the files, the saved
 * protections (which the id covers) are checked on the saved calls. Undefined when the files'
 * plan cannot be made (its errors are printed, exit 1 set).
 */
function checkSaved(
  ctx: CommandContext,
  file: string,
  saved: SavedPlan,
  files: LoadedFiles | undefined,
  live: LiveState,
): string[] | undefined {
  if (files !== undefined) {
    const now = makePlan(ctx, files, live);
    if (now === undefined) return undefined;
    const id = planId(now, planBasis(files.state, live, planReadScope(files.state)));
    return id === saved.planId
      ? []
      : [
          `refused: ${file} says plan ${saved.planId}, but its files make plan ${id} against the same account: the saved plan was edited after it was made; make the plan again with guidectl plan --out`,
        ];
  }
  const desired: DesiredState = {
    groups: [],
    guides: [],
    prune: { guides: false, groups: false },
    protect: protectionFromNames(saved.basis.protect, { file, line: 1, column: 1 }),
  };
  return checkProtection(desired, live, saved.plan)
    .filter((d) => d.severity === 'error')
    .map((d) => `refused: ${d.message}`);
}

/** What is left to do after the calls: the files planned again against a new read of the account. */
interface Drift {
  readonly plan: Plan;
  readonly planId: string;
  /** Set when the read shows that the target replaced the sensitive words it was to append to. */
  readonly wordsReplaced?: WordsReplaced;
}

/** What apply made its calls from: the plan, and the live state it was planned against. */
interface Applied {
  readonly plan: Plan;
  readonly before: LiveState;
}

async function planAgain(
  ctx: CommandContext,
  session: Session,
  files: LoadedFiles,
  scope: LiveReadScope,
  applied: Applied,
): Promise<Drift | undefined> {
  const after = await readLive(ctx, readOnlyClient(session.client), scope, session.events);
  const plan = makePlan(ctx, files, after);
  if (plan === undefined) return undefined;
  const wordsReplaced = detectReplacedWords(applied.plan, applied.before.account, after.account);
  return {
    plan,
    planId: planId(plan, planBasis(files.state, after, scope)),
    ...(wordsReplaced === undefined ? {} : { wordsReplaced }),
  };
}

/**
 * The target replaced the sensitive words the plan appended (see `detectReplacedWords`): said on
 * stderr with the fix, and the drift is not offered as calls to make, since under the same
 * semantics they would replace the list again.
 */
function reportWordsReplaced(ctx: CommandContext, replaced: WordsReplaced): void {
  const n = replaced.lost.length;
  ctx.io.stderr.write(
    `guidectl: error: the target replaces the sensitive-word list instead of appending to it: the words appended replaced the list, and ${countOf(n, 'word')} that ${n === 1 ? 'was' : 'were'} to stay ${n === 1 ? 'is' : 'are'} gone (${replaced.lost.map((w) => JSON.stringify(w)).join(', ')}). ` +
      'Set semantics: replace under account.sensitive_words in the files, then apply again (one call then sets the whole list); applying again under append would replace the list again.\n',
  );
}

async function allExist(cwd: string, paths: readonly string[]): Promise<boolean> {
  for (const path of paths) {
    try {
      await stat(nodePath.resolve(cwd, path));
    } catch {
      return false;
    }
  }
  return true;
}

interface StaleFacts {
  readonly liveChanged: boolean;
  readonly filesChanged: boolean;
  readonly paths: readonly string[];
  readonly files: LoadedFiles | undefined;
  readonly live: Parameters<typeof liveFingerprints>[0];
  readonly options: ApplyOptions;
}

/** `plan is stale`: what changed, and how a plan made now would differ; exit 1, nothing written. */
function reportStale(ctx: CommandContext, saved: SavedPlan, facts: StaleFacts): void {
  const { files, live } = facts;
  let now: StaleReport['now'];
  let nowError: string | undefined;
  if (files !== undefined) {
    const result = planChanges(files.state, live);
    if (result.plan === undefined) {
      nowError = `${countOf(result.diagnostics.length, 'plan error')}; run guidectl plan to see them`;
    } else {
      now = {
        planId: planId(result.plan, planBasis(files.state, live, saved.basis.readScope)),
        calls: diffCalls(saved.plan.calls, result.plan.calls),
      };
    }
  }
  const report: StaleReport = {
    savedPlanId: saved.planId,
    ...(facts.liveChanged
      ? { live: diffLiveFingerprints(saved.liveFingerprints, liveFingerprints(live)) }
      : {}),
    filesChanged: facts.filesChanged,
    paths: facts.paths,
    ...(now === undefined ? {} : { now }),
    ...(nowError === undefined ? {} : { nowError }),
  };
  ctx.io.stderr.write(`guidectl: ${renderStale(report, { color: useColor(ctx, 'stderr') })}`);
  if (facts.options.json) {
    writeJson(ctx, {
      plan_id: saved.planId,
      stale: true,
      live_changed: facts.liveChanged,
      files_changed: facts.filesChanged,
      live_changes: report.live ?? [],
      ...(now === undefined ? {} : { plan_id_now: now.planId }),
      outcomes: [],
    });
  }
  stream(ctx, facts.options, {
    ...emptySummary(saved.planId),
    converged: null,
    refused: [`plan ${saved.planId} is stale: the account or the files changed since it was made`],
    exit_code: 1,
  });
  ctx.setExit(1);
}

/** The refusals of the deletion guards, as messages. */
function refusalsOf(guards: readonly GuardResult[]): string[] {
  return guards.filter((g) => g.status === 'refused').map(guardMessage);
}

/** Prints the refusals, if any, and sets exit 1; true when the plan must not run. */
function refuse(
  ctx: CommandContext,
  r: Reviewed,
  refusals: readonly string[],
  options: ApplyOptions,
): boolean {
  if (refusals.length === 0) return false;
  for (const refusal of refusals) ctx.io.stderr.write(`guidectl: ${refusal}\n`);
  ctx.io.stderr.write('guidectl: apply refused; nothing was changed\n');
  if (options.json)
    writeJson(ctx, { plan: reviewedToJson(r), refused: refusals, outcomes: [], converged: false });
  stream(ctx, options, { ...emptySummary(r.id), converged: false, refused: refusals, exit_code: 1 });
  ctx.setExit(1);
  return true;
}

/** With `--json`, a plan that cannot be made is one JSON object with the diagnostics on stdout. */
function jsonFailure(ctx: CommandContext, options: ApplyOptions): FailureSink | undefined {
  if (!options.json) return undefined;
  return (headline, _details, diagnostics) => {
    const extra = { outcomes: [], converged: false };
    ctx.io.stdout.write(
      `${stringifyJsonPretty(failureToJson(headline, diagnostics, { cwd: ctx.io.cwd, extra }))}\n`,
    );
  };
}

function writeJson(ctx: CommandContext, value: Record<string, unknown>): void {
  ctx.io.stdout.write(`${stringifyJsonPretty({ format_version: 1, ...value })}\n`);
}

/**
 * How Ctrl-C reaches the client of an apply: while it reads, the first Ctrl-C aborts the reads;
 * while it writes, only the second does (abandoning the calls in flight, whose outcome is then
 * unknown), so that the first lets them finish.
 */
interface Stopper {
  readonly signal: AbortSignal;
  /** Marks the writes begun (true) or ended (false). */
  writing(on: boolean): void;
}

function applyStopper(io: CliIo): Stopper {
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

/** How the calls of an apply went, and what the check after them found. */
interface RunFacts {
  readonly result: ApplyResult;
  readonly interrupted: boolean;
  /** What a plan made after the calls would do; undefined when it was not made. */
  readonly again: Drift | undefined;
  readonly allDone: boolean;
  /** Whether the files were at hand to check convergence with. */
  readonly canCheck: boolean;
  readonly converged: boolean;
  /** Writes given up without an answer that may still land (convergence is then not claimed). */
  readonly abandoned: number;
  /** Why the check after the calls failed, when it did. */
  readonly checkMessage: string | undefined;
  readonly exit: 0 | 1;
}

/** Makes the calls, reports each outcome, then (when it can) checks that the account converged. */
async function run(
  ctx: CommandContext,
  session: Session,
  r: Reviewed,
  options: ApplyOptions,
  converge: (() => Promise<Drift | undefined>) | undefined,
): Promise<void> {
  const { io } = ctx;
  session.stopper.writing(true);
  let result: ApplyResult;
  try {
    result = await makeCalls(ctx, session, r.plan, options);
  } finally {
    session.stopper.writing(false);
  }

  // Interrupted: report what was done, and skip the convergence check (it could not run anyway).
  // Whatever fails after the writes, the report of the writes is printed.
  let interrupted = io.stopSignal.aborted;
  let again: Drift | undefined;
  let checkError: unknown;
  if (converge !== undefined && !interrupted) {
    try {
      again = await converge();
    } catch (error) {
      if (io.stopSignal.aborted) interrupted = true;
      else checkError = error;
    }
  }
  if (again?.wordsReplaced !== undefined) reportWordsReplaced(ctx, again.wordsReplaced);
  const checkMessage =
    checkError === undefined
      ? undefined
      : checkError instanceof Error
        ? checkError.message
        : String(checkError);
  const allDone = result.outcomes.every((o) => o.status === 'done');
  // A write given up without an answer may still land: what was read cannot be the final state.
  const abandoned = session.client.abandonedWrites;
  const converged =
    abandoned === 0 &&
    (converge === undefined ? allDone : again !== undefined && again.plan.calls.length === 0);
  const exit = allDone && converged ? 0 : 1;
  ctx.setExit(exit);
  const facts: RunFacts = {
    result,
    interrupted,
    again,
    allDone,
    canCheck: converge !== undefined,
    converged,
    abandoned,
    checkMessage,
    exit,
  };
  stream(ctx, options, summaryEvent(r, facts));
  if (options.json) writeJson(ctx, runToJson(r, facts));
  else if (!options.jsonStream) reportHuman(ctx, r.plan, facts);
  if (checkError !== undefined) {
    // A bug keeps its stack trace (runProgram prints it); a known failure is one line.
    if (!(checkError instanceof GuidectlError)) throw checkError;
    io.stderr.write(
      `guidectl: the check after the writes failed: ${escapeControls(checkMessage ?? '')}; the report above stands — run guidectl plan to see what is left\n`,
    );
  }
}

/** The `--json-stream` summary of an apply that made its calls. */
function summaryEvent(r: Reviewed, facts: RunFacts): ApplyStreamEvent {
  const { again, abandoned, checkMessage, converged, interrupted } = facts;
  const count = (status: string): number => facts.result.outcomes.filter((o) => o.status === status).length;
  return {
    type: 'summary',
    plan_id: r.id,
    calls: r.plan.calls.length,
    done: count('done'),
    failed: count('failed'),
    not_started: count('not-started'),
    interrupted,
    converged:
      (!facts.canCheck && abandoned === 0) || interrupted || checkMessage !== undefined ? null : converged,
    ...(again === undefined || converged ? {} : { drift_calls: again.plan.calls.length }),
    ...(checkMessage === undefined ? {} : { check_error: checkMessage }),
    ...(abandoned === 0 ? {} : { abandoned_writes: abandoned }),
    exit_code: facts.exit,
  };
}

/** The `--json` object of an apply that made its calls. */
function runToJson(r: Reviewed, facts: RunFacts): Record<string, unknown> {
  const { again, checkMessage, converged } = facts;
  return {
    plan: reviewedToJson(r),
    outcomes: facts.result.outcomes,
    converged,
    ...(checkMessage === undefined ? {} : { check_error: checkMessage }),
    ...(again === undefined || converged ? {} : { drift: planToJson(again.plan, { planId: again.planId }) }),
    ...(again?.wordsReplaced === undefined
      ? {}
      : {
          sensitive_words_replaced: {
            semantics: 'append',
            target: 'replace',
            lost: again.wordsReplaced.lost,
          },
        }),
  };
}

/**
 * Runs the plan's calls with a progress line, the `--json-stream` events, and Ctrl-C handled: the
 * first starts nothing new and waits for the calls in flight; the second abandons them.
 */
async function makeCalls(
  ctx: CommandContext,
  session: Session,
  plan: Plan,
  options: ApplyOptions,
): Promise<ApplyResult> {
  const { io } = ctx;
  const progress = createProgress(io, 'Applying');
  // Which plan call a client event belongs to: the client reports retries by its own call ids.
  const callIndex = new AsyncLocalStorage<number>();
  const inFlight = new Set<number>();
  let finished = 0;
  const unlisten = session.events.listen((event) => {
    if (event.type !== 'retry') return;
    progress.retried(event.callId);
    const index = callIndex.getStore();
    if (index === undefined) return;
    stream(ctx, options, {
      type: 'call_retry',
      index,
      operation: event.operation,
      attempt: event.attempt,
      delay_ms: event.delayMs,
      reason: event.reason,
      ...(event.errcode === undefined ? {} : { errcode: event.errcode }),
    });
  });
  const onStop = (): void => {
    const n = inFlight.size;
    progress.note(
      n === 0
        ? 'guidectl: stopping: no call is in flight\n'
        : `guidectl: stopping: waiting for ${countOf(n, 'call')} in flight; Ctrl-C again to abandon them\n`,
    );
    stream(ctx, options, { type: 'interrupt', action: 'stop', in_flight: n });
  };
  const onAbandon = (): void => {
    const n = inFlight.size;
    progress.note(`guidectl: abandoning ${countOf(n, 'call')} in flight; their outcome is unknown\n`);
    stream(ctx, options, { type: 'interrupt', action: 'abandon', in_flight: n });
  };
  io.stopSignal.addEventListener('abort', onStop, { once: true });
  io.abandonSignal?.addEventListener('abort', onAbandon, { once: true });
  try {
    const result = await executePlan(
      plan,
      {
        call: (operation, body, callOptions, index) =>
          callIndex.run(index, () => session.client.call(operation, body, callOptions)),
      },
      {
        parallelism: options.parallelism,
        continueOnError: options.continueOnError,
        signal: io.stopSignal,
        onEvent: (event) => {
          const { index, operation } = event;
          if (event.type === 'start') {
            inFlight.add(index);
            stream(ctx, options, { type: 'call_start', index, operation });
            return;
          }
          inFlight.delete(index);
          finished++;
          if (event.type === 'failed') progress.failed();
          progress.update(finished, plan.calls.length);
          if (event.type === 'failed') {
            const error = event.error ?? '';
            progress.note(`guidectl: call ${index + 1} (${operation}) failed: ${escapeControls(error)}\n`);
            stream(ctx, options, { type: 'call_failed', index, operation, error });
          } else {
            stream(ctx, options, { type: 'call_done', index, operation });
          }
        },
      },
    );
    for (const o of result.outcomes)
      if (o.status === 'not-started')
        stream(ctx, options, {
          type: 'call_not_started',
          index: o.index,
          operation: o.operation,
          reason: o.reason ?? '',
        });
    return result;
  } finally {
    io.stopSignal.removeEventListener('abort', onStop);
    io.abandonSignal?.removeEventListener('abort', onAbandon);
    unlisten();
    progress.finish();
  }
}

/** The human report after the calls: outcomes, then interruption, or convergence or drift. */
function reportHuman(ctx: CommandContext, plan: Plan, facts: RunFacts): void {
  const { io } = ctx;
  io.stdout.write(renderApplyResult(plan, facts.result, { color: useColor(ctx, 'stdout') }));
  if (facts.interrupted) {
    io.stdout.write(
      'Interrupted: the calls not done above were not made, and convergence was not checked; run apply again to finish.\n',
    );
    return;
  }
  if (facts.abandoned > 0) {
    io.stdout.write(
      `${countOf(facts.abandoned, 'write')} got no answer even after waiting and may still take effect, so convergence is not claimed: run guidectl plan in a few minutes.\n`,
    );
    return;
  }
  if (!facts.canCheck) {
    if (facts.allDone)
      io.stdout.write(
        'Every call of the saved plan succeeded (the files were not at hand to check convergence).\n',
      );
    return;
  }
  reportConvergence(ctx, facts.again, facts.allDone);
}

function reportConvergence(ctx: CommandContext, again: Drift | undefined, allDone: boolean): void {
  const { io } = ctx;
  if (again === undefined) return;
  if (again.plan.calls.length === 0) {
    io.stdout.write(
      allDone ? 'Converged: the account matches the files.\n' : 'The calls that were made took effect.\n',
    );
    return;
  }
  if (again.wordsReplaced !== undefined) {
    io.stdout.write(
      '\nNot converged: the target replaces the sensitive-word list (see the error above); set semantics: replace and apply again.\n',
    );
    return;
  }
  if (allDone) {
    io.stdout.write(
      '\nDrift: every call succeeded, yet the account still differs from the files (for example sensitive words ' +
        'under the wrong semantics, or a change made by someone else meanwhile):\n\n',
    );
  } else {
    io.stdout.write('\nStill to do (run apply again once the failure is fixed):\n\n');
  }
  io.stdout.write(renderPlan(again.plan, { color: useColor(ctx, 'stdout'), planId: again.planId }));
}

/** Asks on the terminal; refuses without one; anything but "yes" cancels. */
async function confirm(ctx: CommandContext, plan: Plan): Promise<boolean> {
  const { io } = ctx;
  if (io.ask === undefined) {
    io.stderr.write(
      'guidectl: apply needs a confirmation and there is no terminal to ask on; pass --auto-approve to apply without asking (as in CI)\n',
    );
    ctx.setExit(1);
    return false;
  }
  const answer = await io.ask(
    `\nMake ${plan.calls.length === 1 ? 'this call' : `these ${countOf(plan.calls.length, 'call')}`}? Only 'yes' is accepted: `,
  );
  // Ctrl-C or Ctrl-D at the question (undefined) cancels, as any answer but "yes" does.
  if (answer?.trim() !== 'yes') {
    io.stderr.write('guidectl: apply cancelled; nothing was changed\n');
    ctx.setExit(1);
    return false;
  }
  return true;
}
