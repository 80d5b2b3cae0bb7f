import type { Command } from 'commander';
import { loadDesiredState } from '../config/index.js';
import { hasErrors } from '../core/diagnostics.js';
import { ifDefined } from '../core/records.js';
import { refuseSavedPlans } from '../reconcile/saved-plan-file.js';
import { renderDiagnosticsJson, renderValidation } from '../report/diagnostic-text.js';
import type { CommandContext } from './io.js';
import { useColor } from './output.js';

/** `guidectl validate PATH…`: schema and semantic checks of desired-state files; no network. */
export function registerValidateCommand(program: Command, ctx: CommandContext): void {
  program
    .command('validate')
    .summary('check files against the schema; no network')
    .description('check desired-state files against the schema and the rules (no network)')
    .argument('<paths...>', 'YAML files or folders of them; all are merged')
    .option('--json', 'print the diagnostics as a JSON array, and nothing else')
    .option('--env <name>', 'check only this environment (default: every one)')
    .addHelpText(
      'after',
      '\nExit status: 0 when there is no error (warnings allowed), 1 otherwise.\n' +
        'Output lines: FILE:LINE:COL: error|warning: MESSAGE [CODE]',
    )
    .action(async (paths: string[], options: { json?: boolean; env?: string }) => {
      const { io } = ctx;
      await refuseSavedPlans(io.cwd, paths);
      const env = options.env;
      const result = await loadDesiredState(paths, {
        cwd: io.cwd,
        ...ifDefined('environment', env),
      });
      ctx.setExit(hasErrors(result.diagnostics) ? 1 : 0);

      if (options.json === true) {
        io.stdout.write(renderDiagnosticsJson(result.diagnostics, { cwd: io.cwd }));
        return;
      }
      io.stdout.write(renderValidation(result, { cwd: io.cwd, color: useColor(ctx, 'stdout') }));
    });
}
