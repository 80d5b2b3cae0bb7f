import { type Command, Option } from 'commander';
import { writeAwareStopper } from '../apply/index.js';
import { GuidectlError, UsageError } from '../core/errors.js';
import { readOnlyClient } from '../live/index.js';
import { PLAN_ID_LENGTH } from '../plan/index.js';
import {
  type ApplyRun,
  type ApplySource,
  applyRun,
  checkSavedTarget,
  type Reviewed,
  savedPlanSource,
  splitSavedPlans,
} from '../reconcile/index.js';
import {
  type ApplyFormat,
  type ApplyOutputOptions,
  applyRunOutput,
  noPlanOutput,
  type OutputChunk,
  reviewOutput,
} from '../report/apply-output.js';
import { renderStreamEvent } from '../report/apply-stream.js';
import { countOf } from '../report/count.js';
import { environmentHeading } from '../report/envs.js';
import { describeTarget, identifyTarget } from '../target/index.js';
import { applyAllEnvs } from './apply-all-envs.js';
import { makeCalls, type Session, type StreamSink } from './apply-calls.js';
import { type GuardOptions, guardFlags, guardOptions } from './guard-flags.js';
import type { CommandContext } from './io.js';
import { type FailureSink, useColor } from './output.js';
import { type LockRequest, loadFiles, readLive, type TargetOptions, withClient } from './session.js';
import { envOption, targetOptions, wholeNumber } from './target-flags.js';

interface ApplyOptions extends TargetOptions, GuardOptions {
  lockTimeout: number;
  json: boolean;
  jsonStream: boolean;
  autoApprove: boolean;
  continueOnError: boolean;
  planId?: string;
  verify: 'targeted' | 'full';
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
    if (options.allEnvs === true) await applyAllEnvs(ctx, args, options, applyOnce);
    else await applyOnce(ctx, args, options);
  });
}

/** One apply: of the files (in one environment, or without any), or of a saved plan. */
async function applyOnce(ctx: CommandContext, args: readonly string[], options: ApplyOptions): Promise<void> {
  const { savedPlans, paths } = await splitSavedPlans(ctx.io.cwd, args);
  if (savedPlans.length > 1) {
    throw new UsageError(`give one saved plan, not ${savedPlans.length} (${savedPlans.join(', ')})`);
  }
  const [savedPlan] = savedPlans;
  const source =
    savedPlan === undefined
      ? await filesSource(ctx, paths, options)
      : await savedPlanSource(
          savedPlan,
          paths,
          ctx.io.cwd,
          (p, made) => loadFiles(ctx, p, jsonFailure(ctx, options), options.env ?? made),
          (line) => ctx.io.stderr.write(`guidectl: ${line}\n`),
        );
  if (source === undefined) return;
  const environment = source.files?.environment;
  const stopper = writeAwareStopper(ctx.io.stopSignal, ctx.io.abandonSignal);
  const lock: LockRequest = {
    command: ['guidectl', 'apply', ...args].join(' '),
    timeoutSeconds: options.lockTimeout,
  };
  // The local database's lock is held from the read of the live state to the convergence check.
  await withClient(
    ctx,
    options,
    async (client, events, target) => {
      const session: Session = { client, events, stopper };
      const out = new ApplyOutput(ctx, options, source.files?.sources ?? new Map());
      if (source.kind === 'saved') {
        checkSavedTarget(source.saved, source.file, options.env ?? environment?.name, {
          description: describeTarget(target, ctx.io.cwd),
          identity: identifyTarget(target),
        });
      }
      if (environment !== undefined && !out.machine) {
        ctx.io.stdout.write(environmentHeading(environment.name, describeTarget(target, ctx.io.cwd)));
      }
      const deps = { ...applyDeps(ctx, session, out, options), target: identifyTarget(target) };
      const run = await applyRun(source, deps, {
        ...guardFlags(options),
        ...(options.planId === undefined ? {} : { planId: options.planId }),
        verify: options.verify,
      });
      out.render(run, source);
    },
    { signal: stopper.signal, lock, ...(environment === undefined ? {} : { environment }) },
  );
}

function applyOptions(program: Command): Command {
  return guardOptions(
    envOption(
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
    ),
  )
    .option('--auto-approve', 'make the calls without asking (needed when there is no terminal)', false)
    .option(
      '--continue-on-error',
      'after a failed call, go on with the calls that do not depend on it (--all-envs: and with the next environment)',
      false,
    )
    .option(
      '--plan-id <id>',
      'refuse unless the plan made now has this id (the "Plan id:" a reviewed plan printed)',
    )
    .option(
      '--lock-timeout <seconds>',
      'with the embedded local database: wait this long for another guidectl using it; 0 refuses at once',
      wholeNumber('--lock-timeout', 0),
      0,
    )
    .addOption(
      new Option(
        '--verify <mode>',
        'what the check after the calls reads again: targeted (what the answers do not vouch for) or full (everything the plan read)',
      )
        .choices(['targeted', 'full'])
        .default('targeted'),
    )
    .option(
      '--all-envs',
      'apply every environment of the files in the order declared; stop at the first that fails',
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
    );
}

function checkFlags(options: ApplyOptions): void {
  if (options.json && options.jsonStream) {
    throw new UsageError('--json and --json-stream are two output formats; give one');
  }
  const expected = options.planId;
  if (expected !== undefined && !new RegExp(`^[0-9a-f]{${PLAN_ID_LENGTH}}$`).test(expected)) {
    throw new UsageError(
      `--plan-id takes the ${PLAN_ID_LENGTH} hex digits that plan prints as "Plan id:", not ${JSON.stringify(expected)}`,
    );
  }
}

async function filesSource(
  ctx: CommandContext,
  paths: readonly string[],
  options: ApplyOptions,
): Promise<ApplySource | undefined> {
  const files = await loadFiles(ctx, paths, jsonFailure(ctx, options), options.env);
  return files === undefined ? undefined : { kind: 'files', files };
}

/** What `applyRun` is given: reads with progress, the prompt, the calls with Ctrl-C handled. */
function applyDeps(
  ctx: CommandContext,
  session: Session,
  out: ApplyOutput,
  options: ApplyOptions,
): Parameters<typeof applyRun>[1] {
  const reader = readOnlyClient(session.client);
  return {
    read: (scope) => readLive(ctx, reader, scope, session.events),
    review: (reviewed) => out.review(reviewed),
    approve: async (reviewed, source) => {
      if (source.kind === 'saved') {
        if (!out.machine)
          ctx.io.stdout.write(
            `\nApplying saved plan ${source.saved.planId} (${source.file}): the account is as it was when it was made.\n`,
          );
        return true;
      }
      return options.autoApprove || (await confirm(ctx, reviewed));
    },
    execute: (plan) => makeCalls(ctx, session, plan, options, out.stream),
    abandonedWrites: () => session.client.abandonedWrites,
    signal: ctx.io.stopSignal,
  };
}

/** Asks on the terminal; refuses without one; anything but "yes" cancels. */
async function confirm(ctx: CommandContext, reviewed: Reviewed): Promise<boolean> {
  const { io } = ctx;
  if (io.ask === undefined) {
    io.stderr.write(
      'guidectl: apply needs a confirmation and there is no terminal to ask on; pass --auto-approve to apply without asking (as in CI)\n',
    );
    ctx.setExit(1);
    return false;
  }
  const n = reviewed.plan.calls.length;
  const answer = await io.ask(
    `\nMake ${n === 1 ? 'this call' : `these ${countOf(n, 'call')}`}? Only 'yes' is accepted: `,
  );
  // Ctrl-C or Ctrl-D at the question (undefined) cancels, as any answer but "yes" does.
  if (answer?.trim() !== 'yes') {
    io.stderr.write('guidectl: apply cancelled; nothing was changed\n');
    ctx.setExit(1);
    return false;
  }
  return true;
}

/**
 * With `--json`, a plan that cannot be made is one JSON object with the diagnostics on stdout;
 * with `--json-stream`, a `diagnostics` event and the summary.
 */
function jsonFailure(ctx: CommandContext, options: ApplyOptions): FailureSink | undefined {
  const format = formatOf(options);
  if (format === 'human') return undefined;
  return (headline, diagnostics) =>
    write(ctx, noPlanOutput(headline, diagnostics, { format, cwd: ctx.io.cwd }));
}

function formatOf(options: ApplyOptions): ApplyFormat {
  return options.jsonStream ? 'json-stream' : options.json ? 'json' : 'human';
}

function write(ctx: CommandContext, chunks: readonly OutputChunk[]): void {
  for (const chunk of chunks) ctx.io[chunk.to].write(chunk.text);
}

/** Everything apply prints, in the format asked for: human text, `--json` or `--json-stream`. */
class ApplyOutput {
  /** True when stdout carries JSON (`--json` or `--json-stream`): then no human text goes there. */
  readonly machine: boolean;
  readonly stream: StreamSink;
  private readonly options: ApplyOutputOptions;

  constructor(
    private readonly ctx: CommandContext,
    flags: ApplyOptions,
    /** The files' texts, to quote the lines of plan diagnostics. */
    sources: ReadonlyMap<string, string>,
  ) {
    const format = formatOf(flags);
    this.machine = format !== 'human';
    this.stream = (event) => {
      if (format === 'json-stream') ctx.io.stdout.write(renderStreamEvent(event));
    };
    const color = { stdout: useColor(ctx, 'stdout'), stderr: useColor(ctx, 'stderr') };
    this.options = { format, color, cwd: ctx.io.cwd, sources };
  }

  /** Shows the plan about to be applied (human text, or the stream's `plan` event), warnings first. */
  review(r: Reviewed): void {
    write(this.ctx, reviewOutput(r, this.options));
  }

  render(run: ApplyRun, source: ApplySource): void {
    const savedPlanId = source.kind === 'saved' ? source.saved.planId : '';
    const { chunks, exit } = applyRunOutput(run, this.options, savedPlanId);
    write(this.ctx, chunks);
    if (exit !== undefined) this.ctx.setExit(exit);
    // A bug keeps its stack trace (runProgram prints it); a known failure was one line above.
    if (
      run.status === 'applied' &&
      run.checkError !== undefined &&
      !(run.checkError instanceof GuidectlError)
    )
      throw run.checkError;
  }
}
