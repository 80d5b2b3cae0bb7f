import type { Command } from 'commander';
import { readOnlyClient, readScopeFor } from '../live/index.js';
import { planToJson, renderPlan } from '../report/plan.js';
import { stringifyJsonPretty } from '../wire/json.js';
import type { CommandContext } from './io.js';
import {
  loadFiles,
  makePlan,
  parseParallelism,
  readLive,
  type TargetOptions,
  useColor,
  withClient,
} from './reconcile.js';

interface PlanOptions extends TargetOptions {
  json: boolean;
  detailedExitcode: boolean;
}

/** Adds the target options shared by plan, apply and export. */
export function targetOptions(command: Command): Command {
  return command
    .option('--base-url <url>', 'API base URL (or GUIDECTL_BASE_URL); credentials come from the environment')
    .option('--local-db <file>', 'database of the embedded local service (or GUIDECTL_LOCAL_DB)')
    .option('--parallelism <n>', 'most calls in flight at once', parseParallelism, 8)
    .option('--verbose', 'log each HTTP exchange on stderr (access tokens redacted)', false);
}

/** `guidectl plan PATH…`: reads the live state, prints the plan; never writes. */
export function registerPlanCommand(program: Command, ctx: CommandContext): void {
  targetOptions(
    program
      .command('plan')
      .description('read the live state and print the calls that would make it match the files; never writes')
      .argument('<paths...>', 'YAML files, or folders of *.yaml/*.yml files; all are merged'),
  )
    .option('--json', 'print the plan as JSON (format_version 1)', false)
    .option('--detailed-exitcode', 'exit 2 when there are changes, 0 when there are none', false)
    .action(async (paths: string[], options: PlanOptions) => {
      const files = await loadFiles(ctx, paths);
      if (files === undefined) return;
      await withClient(ctx, options, async (client) => {
        // Plan mode is handed only the read calls: it has no way to write.
        const live = await readLive(ctx, readOnlyClient(client), readScopeFor(files.state));
        const plan = makePlan(ctx, files, live);
        if (plan === undefined) return;
        if (options.json) ctx.io.stdout.write(`${stringifyJsonPretty(planToJson(plan))}\n`);
        else ctx.io.stdout.write(renderPlan(plan, { color: useColor(ctx, 'stdout') }));
        ctx.setExit(options.detailedExitcode && plan.calls.length > 0 ? 2 : 0);
      });
    });
}
