import { type Command, Option } from 'commander';
import { writeAwareStopper } from '../apply/index.js';
import { UsageError } from '../core/errors.js';
import { ifDefined } from '../core/records.js';
import { readOnlyClient } from '../live/index.js';
import { PLAN_ID_LENGTH } from '../plan/index.js';
import {
  type ApplyFlags,
  type ApplyRun,
  applyRun,
  applySourceOf,
  checkSourceTarget,
  liveSourceOf,
  type ReadFiles,
  type Reviewed,
  type SplitPaths,
  shellWord,
  splitSavedPlans,
} from '../reconcile/index.js';
import {
  type ApplyOutputOptions,
  applyFormatOf,
  applyOutputWriter,
  applyRunOutput,
  callEventOutput,
  confirmQuestion,
  environmentOutput,
  noPlanOutput,
  type OutputChunk,
  promptReviewOutput,
  reviewOutput,
  savedPlanApproval,
} from '../report/apply-output.js';
import { applyAllEnvs } from './apply-all-envs.js';
import { makeCalls, type Session } from './apply-calls.js';
import { guardOptions } from './guard-flags.js';
import type { CommandContext } from './io.js';
import { type FailureSink, useColor, writeChunks } from './output.js';
import {
  type LockRequest,
  planFilesRead,
  readLive,
  reportingLoad,
  type TargetOptions,
  withClient,
} from './session.js';
import {
  allEnvsChosen,
  envOption,
  givenTargetWords,
  lockTimeoutFlag,
  targetOptions,
} from './target-flags.js';

interface ApplyOptions extends TargetOptions, ApplyFlags {
  lockTimeout: number;
  json: boolean;
  jsonStream: boolean;
  autoApprove: boolean;
  continueOnError: boolean;
  allEnvs?: boolean;
}

/**
 * `guidectl apply PATH…`: plan, confirm, make the calls, then check that the account converged.
 * `guidectl apply PLAN.json [PATH…]`: make exactly the calls of a saved plan, unless the account
 * or the files changed since it was made. The use case is `applyRun`; this is its flags, its
 * wiring and its output.
 */
export function registerApplyCommand(program: Command, ctx: CommandContext): void {
  applyOptions(program).action(async (args: string[], options: ApplyOptions) => {
    checkFlags(options);
    // --json is one object and --json-stream ends with its summary whatever happens: a failure
    // (the target, the read, Ctrl-C from the start) is written there, then to stderr and the exit code.
    if (applyFormatOf(options) !== 'human') ctx.io.catchSignals?.();
    if (allEnvsChosen(options)) await applyAllEnvs(ctx, args, options, applyOnce);
    else await applyOnce(ctx, args, await splitSavedPlans(ctx.io.cwd, args), options);
  });
}

/** One apply: of the files (in one environment, or without any), or of a saved plan. */
async function applyOnce(
  ctx: CommandContext,
  args: readonly string[],
  split: SplitPaths,
  options: ApplyOptions,
  how: ApplyHow & { readonly write?: (chunks: readonly OutputChunk[]) => void } = {},
): Promise<void> {
  const out = applyOutputWriter(
    { format: applyFormatOf(options), cwd: ctx.io.cwd },
    how.write ?? ((chunks) => writeChunks(ctx, chunks)),
  );
  try {
    await applyWith(ctx, args, split, options, { ...how, write: out.write });
  } catch (error) {
    out.failed(error);
    throw error;
  }
}

/**
 * How `apply --all-envs` runs one environment's apply: `read` reads the files it parsed once,
 * `ended` is told how the run ended (an environment with no changes is said so, not "applied").
 */
export interface ApplyHow {
  readonly read?: ReadFiles;
  readonly ended?: (status: ApplyRun['status']) => void;
}

async function applyWith(
  ctx: CommandContext,
  args: readonly string[],
  split: SplitPaths,
  options: ApplyOptions,
  how: ApplyHow & { readonly write: (chunks: readonly OutputChunk[]) => void },
): Promise<void> {
  const format = applyFormatOf(options);
  // With --json, a plan that cannot be made is one JSON object with the diagnostics on stdout;
  // with --json-stream, a `diagnostics` event and the summary.
  const { write } = how;
  const onFailure: FailureSink = (headline, diagnostics) =>
    write(noPlanOutput(headline, diagnostics, { format, cwd: ctx.io.cwd }));
  const load = reportingLoad(ctx, onFailure, how.read ?? planFilesRead(ctx));
  const notice = (line: string) => ctx.io.stderr.write(`guidectl: ${line}\n`);
  const source = await applySourceOf(split, ctx.io.cwd, load, notice, options.env);
  if (source === undefined) return;
  const environment = source.files?.environment;
  if (environment !== undefined) write(environmentOutput({ format }, { name: environment.name }));
  const stopper = writeAwareStopper(ctx.io.stopSignal, ctx.io.abandonSignal);
  const lock: LockRequest = {
    command: ['guidectl', 'apply', ...args].join(' '),
    timeoutSeconds: options.lockTimeout,
  };
  const color = { stdout: useColor(ctx, 'stdout'), stderr: useColor(ctx, 'stderr') };
  const output: ApplyOutputOptions = {
    format,
    color,
    cwd: ctx.io.cwd,
    sources: source.files?.sources ?? new Map(),
    // A saved plan of an environment is applied with its files: the ones given, or its own.
    targetFlags: targetFlagsOf(
      options,
      environment?.name,
      source.kind === 'saved' ? source.paths : split.paths,
    ),
    timeZone: ctx.io.env['TZ'],
  };
  // The local database's lock is held from the read of the live state to the convergence check.
  await withClient(
    ctx,
    options,
    async (client, events, now) => {
      const named = environment && { name: environment.name, target: now.description };
      if (named !== undefined) write(environmentOutput(output, named));
      const session: Session = { client, events, stopper };
      const here = { ...output, environment: named, target: now };
      const deps = { ...applyDeps(ctx, session, { ...here, write }, options), target: now.identity };
      const run = await applyRun(source, deps, options);
      how.ended?.(run.status);
      const { chunks, exit, bug } = applyRunOutput(
        run,
        here,
        source.kind === 'saved' ? source.saved.planId : '',
      );
      write(chunks);
      if (exit !== undefined) ctx.setExit(exit);
      // A bug keeps its stack trace (runProgram prints it); a known failure was one line above.
      if (bug !== undefined) throw bug;
    },
    {
      signal: stopper.signal,
      lock,
      ...ifDefined('environment', environment),
      beforeOpen: (_target, now) => checkSourceTarget(source, now, options.planId),
    },
  );
}

/**
 * The flags that reach this apply's target again, for the commands its report suggests: ` --env
 * NAME --files PATH…` for an environment, and `--local-db`/`--base-url` as given. What came from
 * the process environment stays there (it is still set where the hint is pasted), and credentials
 * are never flags. Undefined when none is needed, or the environment's files are unknown.
 */
function targetFlagsOf(
  options: TargetOptions,
  environment: string | undefined,
  paths: readonly string[],
): string | undefined {
  if (environment !== undefined && paths.length === 0) return undefined;
  const words = [
    ...(environment === undefined
      ? []
      : ['--env', shellWord(environment), '--files', ...paths.map(shellWord)]),
    ...givenTargetWords(options),
  ];
  return words.length === 0 ? undefined : ` ${words.join(' ')}`;
}

function applyOptions(program: Command): Command {
  return guardOptions(
    envOption(
      targetOptions(
        program
          .command('apply')
          .summary('make the calls of a plan, or of a saved plan')
          .description(
            'plan, then make the calls (asks for confirmation unless --auto-approve); or make the calls of a saved plan (FILE.json from plan --out)',
          )
          .argument('<paths...>', 'YAML files or folders, merged; or a saved plan'),
      ),
    ),
  )
    .option('--auto-approve', 'make the calls without asking', false)
    .option('--continue-on-error', 'after a failed call, go on with independent calls', false)
    .option('--plan-id <id>', 'refuse unless the plan made now has this id')
    .option('--allow-partial', "past today's quotas, make what fits, whole", false)
    .addOption(lockTimeoutFlag())
    .addOption(new Option('--verify <mode>', 'final check').choices(['targeted', 'full']).default('targeted'))
    .option('--all-envs', 'each environment, one at a time; stop at a failure')
    .option('--json', 'print the plan, outcomes and check as JSON', false)
    .option('--json-stream', 'print one JSON event a line, then a summary', false)
    .addHelpText(
      'after',
      '\nA saved plan is applied without asking: it was reviewed when it was made. It is\n' +
        'refused, and nothing is changed, when the account (or the files, when they are\n' +
        'at hand) changed since it was made.\n' +
        'Exit status: 0 success; 1 error, refused, stale plan, failed call, or not\n' +
        'converged.',
    );
}

function checkFlags(options: ApplyOptions): void {
  if (options.json && options.jsonStream) {
    throw new UsageError('--json and --json-stream are two output formats; give one');
  }
  const expected = options.planId;
  if (expected !== undefined && !new RegExp(`^[0-9a-f]{${PLAN_ID_LENGTH}}$`, 'i').test(expected)) {
    throw new UsageError(
      `--plan-id takes the ${PLAN_ID_LENGTH} hex digits that plan prints as "Plan id:", not ${JSON.stringify(expected)}`,
    );
  }
}

/** What `applyRun` is given: reads with progress, the prompt, the calls with Ctrl-C handled. */
function applyDeps(
  ctx: CommandContext,
  session: Session,
  output: ApplyOutputOptions & { readonly write: (chunks: readonly OutputChunk[]) => void },
  options: ApplyOptions,
): Parameters<typeof applyRun>[1] {
  const { write } = output;
  const reader = readOnlyClient(session.client);
  return {
    ...liveSourceOf(reader, undefined, (scope) => readLive(ctx, reader, scope, session.events)),
    // The plan about to be applied (human text, or the stream's `plan` event), warnings first.
    review: (reviewed) => write(reviewOutput(reviewed, output)),
    approve: async (reviewed, source) => {
      if (source.kind === 'saved') {
        write(savedPlanApproval(source.saved.planId, source.file, output));
        return true;
      }
      if (options.autoApprove) return true;
      if (ctx.io.ask !== undefined) write(promptReviewOutput(reviewed, output));
      return confirm(ctx, reviewed);
    },
    execute: (plan, live, quotaRemain) =>
      makeCalls(ctx, session, plan, { ...options, live, quotaRemain }, (event) =>
        write(callEventOutput(event, output)),
      ),
    abandonedWrites: () => session.client.abandonedWrites,
    signal: ctx.io.stopSignal,
    clock: { now: ctx.io.now ?? Date.now },
  };
}

/** Asks on the terminal; refuses without one; anything but "yes" cancels (report says so). */
async function confirm(
  ctx: CommandContext,
  reviewed: Reviewed,
): Promise<boolean | { cancelled: 'no-terminal' }> {
  if (ctx.io.ask === undefined) return { cancelled: 'no-terminal' };
  const answer = await ctx.io.ask(confirmQuestion(reviewed.plan.calls.length));
  // Ctrl-C or Ctrl-D at the question (undefined) cancels, as any answer but "yes" does.
  return answer?.trim() === 'yes';
}
