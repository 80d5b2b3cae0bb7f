import type { Command } from 'commander';
import { executePlan } from '../apply/index.js';
import type { GuideClient } from '../client/index.js';
import type { Plan } from '../core/plan.js';
import { readOnlyClient, readScopeFor } from '../live/index.js';
import { renderApplyResult } from '../report/apply.js';
import { planToJson, renderPlan } from '../report/plan.js';
import { stringifyJsonPretty } from '../wire/json.js';
import type { CommandContext } from './io.js';
import { targetOptions } from './plan.js';
import { createProgress } from './progress.js';
import {
  type LoadedFiles,
  loadFiles,
  makePlan,
  readLive,
  type TargetOptions,
  useColor,
  withClient,
} from './reconcile.js';

interface ApplyOptions extends TargetOptions {
  json: boolean;
  autoApprove: boolean;
  continueOnError: boolean;
}

/** `guidectl apply PATH…`: plan, confirm, make the calls, then check that the account converged. */
export function registerApplyCommand(program: Command, ctx: CommandContext): void {
  targetOptions(
    program
      .command('apply')
      .description('plan, then make the calls (asks for confirmation unless --auto-approve)')
      .argument('<paths...>', 'YAML files, or folders of *.yaml/*.yml files; all are merged'),
  )
    .option('--auto-approve', 'make the calls without asking (needed when there is no terminal)', false)
    .option(
      '--continue-on-error',
      'after a failed call, go on with the calls that do not depend on it',
      false,
    )
    .option('--json', 'print the plan, each call outcome and the convergence check as JSON', false)
    .action(async (paths: string[], options: ApplyOptions) => {
      const files = await loadFiles(ctx, paths);
      if (files === undefined) return;
      await withClient(ctx, options, (client) => applyFiles(ctx, files, client, options));
    });
}

async function applyFiles(
  ctx: CommandContext,
  files: LoadedFiles,
  client: GuideClient,
  options: ApplyOptions,
): Promise<void> {
  const { io } = ctx;
  const scope = readScopeFor(files.state);
  const live = await readLive(ctx, readOnlyClient(client), scope);
  const plan = makePlan(ctx, files, live);
  if (plan === undefined) return;
  if (!options.json) io.stdout.write(renderPlan(plan, { color: useColor(ctx, 'stdout') }));
  if (plan.calls.length === 0) {
    if (options.json)
      io.stdout.write(
        `${stringifyJsonPretty({ format_version: 1, plan: planToJson(plan), outcomes: [], converged: true })}\n`,
      );
    ctx.setExit(0);
    return;
  }
  if (!options.autoApprove && !(await confirm(ctx, plan))) return;

  const progress = createProgress(ctx.io, 'Applying');
  let finished = 0;
  let failed = 0;
  const result = await executePlan(plan, client, {
    parallelism: options.parallelism,
    continueOnError: options.continueOnError,
    onEvent: (event) => {
      if (event.type === 'start') return;
      finished++;
      if (event.type === 'failed') {
        failed++;
        progress.finish();
        io.stderr.write(
          `guidectl: call ${event.index + 1} (${event.operation}) failed: ${event.error ?? ''}\n`,
        );
      }
      progress.update(finished, plan.calls.length, failed > 0 ? `(${failed} failed)` : undefined);
    },
  });
  progress.finish();

  // Converged? Read again what the files manage and plan again: anything left is drift.
  const after = await readLive(ctx, readOnlyClient(client), scope);
  const again = makePlan(ctx, files, after);
  const allDone = result.outcomes.every((o) => o.status === 'done');
  const converged = again !== undefined && again.calls.length === 0;
  ctx.setExit(allDone && converged ? 0 : 1);
  if (options.json) {
    io.stdout.write(
      `${stringifyJsonPretty({
        format_version: 1,
        plan: planToJson(plan),
        outcomes: result.outcomes,
        converged,
        ...(again === undefined || converged ? {} : { drift: planToJson(again) }),
      })}\n`,
    );
    return;
  }
  io.stdout.write(renderApplyResult(plan, result, { color: useColor(ctx, 'stdout') }));
  reportConvergence(ctx, again, allDone);
}

function reportConvergence(ctx: CommandContext, again: Plan | undefined, allDone: boolean): void {
  const { io } = ctx;
  if (again === undefined) return;
  if (again.calls.length === 0) {
    io.stdout.write(
      allDone ? 'Converged: the account matches the files.\n' : 'The calls that were made took effect.\n',
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
  io.stdout.write(renderPlan(again, { color: useColor(ctx, 'stdout') }));
}

/** Asks on the terminal; refuses without one. */
async function confirm(ctx: CommandContext, plan: Plan): Promise<boolean> {
  const { io } = ctx;
  const answer =
    io.ask === undefined
      ? undefined
      : await io.ask(`\nMake these ${plan.calls.length} calls? Only 'yes' is accepted: `);
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
