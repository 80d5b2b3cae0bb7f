import type { Command } from 'commander';
import { readSavedPlanToShow } from '../reconcile/saved-plan-file.js';
import { formatSavedPlan } from '../report/plan-output.js';
import { chooseFormat, type FormatFlags, formatOptions } from './format-flags.js';
import type { CommandContext } from './io.js';
import { useColor } from './output.js';

interface ShowOptions extends FormatFlags {
  env?: string;
}

/**
 * `guidectl show PLAN.json`: prints a saved plan as `plan` printed it (human text, `--json`,
 * `--markdown`), after the checks `apply` makes of the file itself (kind, version, plan id). It
 * reads neither the account nor the files: whether the plan is still current is `apply`'s check.
 */
export function registerShowCommand(program: Command, ctx: CommandContext): void {
  formatOptions(
    program
      .command('show')
      .summary('print a saved plan')
      .description('print a saved plan (from plan --out) as plan printed it; reads no account and no files')
      .argument('<plan>', 'a saved plan, FILE.json')
      .option('--env <name>', 'refuse unless the plan is of this environment'),
  ).action(async (file: string, options: ShowOptions) => {
    const format = chooseFormat(options);
    const saved = await readSavedPlanToShow(ctx.io.cwd, file, options.env);
    ctx.io.stdout.write(formatSavedPlan(format, saved, file, useColor(ctx, 'stdout')));
    ctx.setExit(0);
  });
}
