import * as nodePath from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { checkSavedEnvironment, isSavedPlanFile, readSavedPlan } from '../reconcile/saved-plan-file.js';
import { environmentHeading } from '../report/envs.js';
import { escapeControls } from '../report/escape.js';
import { formatPlan } from '../report/plan-output.js';
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
      .description('print a saved plan (from plan --out) as plan printed it; reads no account and no files')
      .argument('<plan>', 'a saved plan, FILE.json')
      .option('--env <name>', 'refuse unless the plan was made for this environment of the files'),
  ).action(async (file: string, options: ShowOptions) => {
    const { io } = ctx;
    const format = chooseFormat(options);
    const absolute = nodePath.resolve(io.cwd, file);
    if (!(await isSavedPlanFile(absolute))) {
      throw new UsageError(
        `${JSON.stringify(file)} is not a saved plan (a desired-state file? see its plan with guidectl plan ${file}); make a saved plan with guidectl plan PATH… --out FILE.json`,
      );
    }
    const saved = await readSavedPlan(absolute, file);
    checkSavedEnvironment(saved, file, options.env);
    const made = saved.environment;
    if (format === 'human' && made !== undefined) io.stdout.write(environmentHeading(made.name, made.target));
    io.stdout.write(formatPlan(format, saved.plan, { planId: saved.planId, color: useColor(ctx, 'stdout') }));
    if (format === 'human')
      io.stdout.write(
        `\nSaved plan ${saved.planId}, made from ${escapeControls(saved.paths.join(', ') || '(no paths)')}; apply exactly these calls with: guidectl apply ${escapeControls(file)}\n`,
      );
    ctx.setExit(0);
  });
}
