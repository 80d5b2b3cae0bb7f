import { stat } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { executePlan } from '../apply/index.js';
import type { GuideClient } from '../client/index.js';
import type { DesiredState } from '../core/desired.js';
import { UsageError } from '../core/errors.js';
import type { LiveReadScope, LiveState } from '../core/live.js';
import type { Plan } from '../core/plan.js';
import type { GuardResult } from '../core/safety.js';
import { readOnlyClient } from '../live/index.js';
import {
  checkDeleteGuards,
  checkProtection,
  countDeletes,
  countLive,
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
  resolveGuardPolicy,
  type WordsReplaced,
} from '../plan/index.js';
import { renderApplyResult } from '../report/apply.js';
import { countOf } from '../report/count.js';
import { failureToJson } from '../report/diagnostics.js';
import { escapeControls } from '../report/escape.js';
import { guardMessage, planToJson, renderPlan } from '../report/plan.js';
import { renderStale, type StaleReport } from '../report/stale.js';
import { stringifyJsonPretty } from '../wire/json.js';
import type { CommandContext } from './io.js';
import { createProgress } from './progress.js';
import {
  type FailureSink,
  type GuardOptions,
  guardFlags,
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
import { readSavedPlan, type SavedPlan } from './saved-plan.js';
import { type TargetLock, targetOptions } from './target.js';

interface ApplyOptions extends TargetOptions, GuardOptions {
  lockTimeout: number;
  json: boolean;
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
      'with the embedded local database: wait this long for another guidectl using it (default: refuse at once)',
      parseSeconds,
      0,
    )
    .option('--json', 'print the plan, each call outcome and the convergence check as JSON', false)
    .addHelpText(
      'after',
      '\nA saved plan is applied without asking: it was reviewed when it was made. It is refused, and nothing\n' +
        'is changed, when the account (or the files, when they are at hand) changed since it was made.\n' +
        'Exit status: 0 success; 1 error, refused, stale plan, failed call, or not converged.\n',
    )
    .action(async (args: string[], options: ApplyOptions) => {
      const expected = options.planId;
      if (expected !== undefined && !new RegExp(`^[0-9a-f]{${PLAN_ID_LENGTH}}$`).test(expected)) {
        throw new UsageError(
          `--plan-id takes the ${PLAN_ID_LENGTH} hex digits that plan prints as "Plan id:", not ${JSON.stringify(expected)}`,
        );
      }
      const savedPlans = args.filter(isSavedPlanPath);
      const paths = args.filter((a) => !isSavedPlanPath(a));
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
      await withClient(
        ctx,
        options,
        (client) => applyFiles(ctx, files, client, options),
        lockFor(args, options),
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

/** A saved plan is named `*.json`; desired-state files are YAML. */
function isSavedPlanPath(path: string): boolean {
  return path.toLowerCase().endsWith('.json');
}

async function applyFiles(
  ctx: CommandContext,
  files: LoadedFiles,
  client: GuideClient,
  options: ApplyOptions,
): Promise<void> {
  const { io } = ctx;
  const scope = planReadScope(files.state);
  const live = await readLive(ctx, readOnlyClient(client), scope);
  const plan = makePlan(ctx, files, live, jsonFailure(ctx, options));
  if (plan === undefined) return;
  const id = planId(plan, planBasis(files.state, live, scope));
  const policy = resolveGuardPolicy(files.state.safety, guardFlags(options));
  const guards = checkDeleteGuards(countDeletes(plan), countLive(live), policy);
  if (!options.json)
    io.stdout.write(renderPlan(plan, { color: useColor(ctx, 'stdout'), planId: id, guards }));

  const refusals = refusalsOf(guards);
  if (options.planId !== undefined && options.planId !== id) {
    refusals.unshift(
      `refused: the plan made now has id ${id}, not ${options.planId} (--plan-id): the files or the account changed since plan ${options.planId} was made. Review the plan above; to apply it, pass --plan-id ${id}.`,
    );
  }
  if (refuse(ctx, plan, id, guards, refusals, options)) return;
  if (plan.calls.length === 0) {
    if (options.json)
      writeJson(ctx, { plan: planToJson(plan, { planId: id, guards }), outcomes: [], converged: true });
    ctx.setExit(0);
    return;
  }
  if (!options.autoApprove && !(await confirm(ctx, plan))) return;
  await run(ctx, client, plan, id, guards, options, () =>
    planAgain(ctx, client, files, scope, { plan, before: live }),
  );
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

  await withClient(
    ctx,
    options,
    async (client) => {
      const live = await readLive(ctx, readOnlyClient(client), saved.basis.readScope);
      const liveChanged = liveDigest(live) !== saved.basis.liveDigest;
      const filesChanged = files !== undefined && desiredDigest(files.state) !== saved.basis.desiredDigest;
      if (liveChanged || filesChanged) {
        reportStale(ctx, saved, { liveChanged, filesChanged, paths: checked, files, live, options });
        return;
      }
      const plan = saved.plan;
      // The guards are checked again with the files' settings (the saved copy, which the plan id
      // covers, when the files are not at hand) and this run's flags; none of the file is trusted.
      const policy = resolveGuardPolicy(files?.state.safety ?? saved.basis.safety, guardFlags(options));
      const guards = checkDeleteGuards(countDeletes(plan), countLive(live), policy);
      const checks = checkSaved(ctx, file, saved, files, live);
      if (checks === undefined) return;
      if (!options.json)
        io.stdout.write(renderPlan(plan, { color: useColor(ctx, 'stdout'), planId: saved.planId, guards }));
      if (refuse(ctx, plan, saved.planId, guards, [...checks, ...refusalsOf(guards)], options)) return;
      if (plan.calls.length === 0) {
        if (options.json)
          writeJson(ctx, {
            plan: planToJson(plan, { planId: saved.planId, guards }),
            outcomes: [],
            converged: true,
          });
        ctx.setExit(0);
        return;
      }
      if (!options.json)
        io.stdout.write(
          `\nApplying saved plan ${saved.planId} (${file}): the account is as it was when it was made.\n`,
        );
      const converge =
        files === undefined
          ? undefined
          : () => planAgain(ctx, client, files, saved.basis.readScope, { plan, before: live });
      await run(ctx, client, plan, saved.planId, guards, options, converge);
    },
    lockFor([file, ...paths], options),
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
  client: GuideClient,
  files: LoadedFiles,
  scope: LiveReadScope,
  applied: Applied,
): Promise<Drift | undefined> {
  const after = await readLive(ctx, readOnlyClient(client), scope);
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
    `guidectl: error: the target replaces the sensitive-word list instead of appending to it: the words appended replaced the list, and ${n} word${n === 1 ? '' : 's'} that ${n === 1 ? 'was' : 'were'} to stay ${n === 1 ? 'is' : 'are'} gone (${replaced.lost.map((w) => JSON.stringify(w)).join(', ')}). ` +
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
  ctx.setExit(1);
}

/** The refusals of the deletion guards, as messages. */
function refusalsOf(guards: readonly GuardResult[]): string[] {
  return guards.filter((g) => g.status === 'refused').map(guardMessage);
}

/** Prints the refusals, if any, and sets exit 1; true when the plan must not run. */
function refuse(
  ctx: CommandContext,
  plan: Plan,
  id: string,
  guards: readonly GuardResult[],
  refusals: readonly string[],
  options: ApplyOptions,
): boolean {
  if (refusals.length === 0) return false;
  for (const r of refusals) ctx.io.stderr.write(`guidectl: ${r}\n`);
  ctx.io.stderr.write('guidectl: apply refused; nothing was changed\n');
  if (options.json)
    writeJson(ctx, {
      plan: planToJson(plan, { planId: id, guards }),
      refused: refusals,
      outcomes: [],
      converged: false,
    });
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

/** Makes the calls, reports each outcome, then (when it can) checks that the account converged. */
async function run(
  ctx: CommandContext,
  client: GuideClient,
  plan: Plan,
  id: string,
  guards: readonly GuardResult[],
  options: ApplyOptions,
  converge: (() => Promise<Drift | undefined>) | undefined,
): Promise<void> {
  const { io } = ctx;
  const progress = createProgress(ctx.io, 'Applying');
  let finished = 0;
  let failed = 0;
  const result = await executePlan(plan, client, {
    parallelism: options.parallelism,
    continueOnError: options.continueOnError,
    signal: io.stopSignal,
    onEvent: (event) => {
      if (event.type === 'start') return;
      finished++;
      if (event.type === 'failed') {
        failed++;
        progress.finish();
        io.stderr.write(
          `guidectl: call ${event.index + 1} (${event.operation}) failed: ${escapeControls(event.error ?? '')}\n`,
        );
      }
      progress.update(finished, plan.calls.length, failed > 0 ? `(${failed} failed)` : undefined);
    },
  });
  progress.finish();

  // Interrupted: report what was done, and skip the convergence check (it could not run anyway).
  let interrupted = io.stopSignal.aborted;
  let again: Drift | undefined;
  if (converge !== undefined && !interrupted) {
    try {
      again = await converge();
    } catch (error) {
      if (!io.stopSignal.aborted) throw error;
      interrupted = true;
    }
  }
  if (again?.wordsReplaced !== undefined) reportWordsReplaced(ctx, again.wordsReplaced);
  const allDone = result.outcomes.every((o) => o.status === 'done');
  // A write given up without an answer may still land: what was read cannot be the final state.
  const abandoned = client.abandonedWrites;
  const converged =
    abandoned === 0 &&
    (converge === undefined ? allDone : again !== undefined && again.plan.calls.length === 0);
  ctx.setExit(allDone && converged ? 0 : 1);
  if (options.json) {
    writeJson(ctx, {
      plan: planToJson(plan, { planId: id, guards }),
      outcomes: result.outcomes,
      converged,
      ...(again === undefined || converged
        ? {}
        : { drift: planToJson(again.plan, { planId: again.planId }) }),
      ...(again?.wordsReplaced === undefined
        ? {}
        : {
            sensitive_words_replaced: {
              semantics: 'append',
              target: 'replace',
              lost: again.wordsReplaced.lost,
            },
          }),
    });
    return;
  }
  io.stdout.write(renderApplyResult(plan, result, { color: useColor(ctx, 'stdout') }));
  if (interrupted) {
    io.stdout.write(
      'Interrupted: the calls not done above were not made, and convergence was not checked; run apply again to finish.\n',
    );
    return;
  }
  if (abandoned > 0) {
    io.stdout.write(
      `${abandoned} write${abandoned === 1 ? '' : 's'} got no answer even after waiting and may still take effect, so convergence is not claimed: run guidectl plan in a few minutes.\n`,
    );
    return;
  }
  if (converge === undefined) {
    if (allDone)
      io.stdout.write(
        'Every call of the saved plan succeeded (the files were not at hand to check convergence).\n',
      );
    return;
  }
  reportConvergence(ctx, again, allDone);
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

/** Asks on the terminal; refuses without one. */
async function confirm(ctx: CommandContext, plan: Plan): Promise<boolean> {
  const { io } = ctx;
  const answer =
    io.ask === undefined
      ? undefined
      : await io.ask(
          `\nMake ${plan.calls.length === 1 ? 'this call' : `these ${countOf(plan.calls.length, 'call')}`}? Only 'yes' is accepted: `,
        );
  if (answer === undefined) {
    io.stderr.write(
      'guidectl: apply needs a confirmation and there is no terminal to ask on; pass --auto-approve to apply without asking (as in CI)\n',
    );
    ctx.setExit(1);
    return false;
  }
  if (answer.trim() !== 'yes') {
    io.stderr.write('guidectl: apply cancelled; nothing was changed\n');
    ctx.setExit(1);
    return false;
  }
  return true;
}
