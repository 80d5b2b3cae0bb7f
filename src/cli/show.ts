import * as nodePath from 'node:path';
import { type Command, Option } from 'commander';
import { UsageError } from '../core/errors.js';
import { escapeControls } from '../report/escape.js';
import { renderPlanMarkdown } from '../report/markdown.js';
import { planToJson, renderPlan } from '../report/plan.js';
import { stringifyJsonPretty } from '../wire/json.js';
import type { CommandContext } from './io.js';
import { chooseFormat, type Format } from './plan.js';
import { useColor } from './reconcile.js';
import { isSavedPlanFile, readSavedPlan } from './saved-plan.js';

interface ShowOptions {
  json: boolean;
  markdown: boolean;
  format?: Format;
}

/**
 * `guidectl show PLAN.json`: prints a saved plan as `plan` printed it (human text, `--json`,
 * `--markdown`), after the checks `apply` makes of the file itself (kind, version, plan id). It
 * reads neither the account nor the files: whether the plan is still current is `apply`'s check.
 */
export function registerShowCommand(program: Command, ctx: CommandContext): void {
  program
    .command('show')
    .description('print a saved plan (from plan --out) as plan printed it; reads no account and no files')
    .argument('<plan>', 'a saved plan, FILE.json')
    .addOption(
      new Option(
        '--format <format>',
        'output: human text, JSON (format_version 1), or a markdown comment body',
      ).choices(['human', 'json', 'markdown']),
    )
    .option('--json', 'same as --format json', false)
    .option('--markdown', 'same as --format markdown: a pull-request comment body', false)
    .action(async (file: string, options: ShowOptions) => {
      const { io } = ctx;
      const format = chooseFormat(options);
      const absolute = nodePath.resolve(io.cwd, file);
      if (!(await isSavedPlanFile(absolute))) {
        throw new UsageError(
          `${JSON.stringify(file)} is not a saved plan (a desired-state file? see its plan with guidectl plan ${file}); make a saved plan with guidectl plan PATH… --out FILE.json`,
        );
      }
      const saved = await readSavedPlan(absolute, file);
      const extras = { planId: saved.planId };
      switch (format) {
        case 'json':
          io.stdout.write(`${stringifyJsonPretty(planToJson(saved.plan, extras))}\n`);
          break;
        case 'markdown':
          io.stdout.write(renderPlanMarkdown(saved.plan, extras));
          break;
        case 'human':
          io.stdout.write(renderPlan(saved.plan, { color: useColor(ctx, 'stdout'), ...extras }));
          io.stdout.write(
            `\nSaved plan ${saved.planId}, made from ${escapeControls(saved.paths.join(', ') || '(no paths)')}; apply exactly these calls with: guidectl apply ${escapeControls(file)}\n`,
          );
          break;
        default: {
          const unreachable: never = format;
          return unreachable;
        }
      }
      ctx.setExit(0);
    });
}
