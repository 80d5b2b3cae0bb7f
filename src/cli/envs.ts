import type { Command } from 'commander';
import { loadDesiredState } from '../config/index.js';
import { hasErrors } from '../core/diagnostics.js';
import { InvalidFilesError } from '../core/errors.js';
import { environmentsToJson, renderEnvironments } from '../report/envs.js';
import { describeEnvironmentTargets } from '../target/describe-targets.js';
import { stringifyJsonPretty } from '../wire/json.js';
import type { CommandContext } from './io.js';
import { printDiagnostics } from './output.js';

/** `guidectl envs PATH…`: the environments the files declare and their targets; no network, no secret. */
export function registerEnvsCommand(program: Command, ctx: CommandContext): void {
  program
    .command('envs')
    .summary('list the environments of the files')
    .description('list the environments the files declare, with their targets (never a secret); no network')
    .argument('<paths...>', 'YAML files or folders of them; all are merged')
    .option('--json', 'print JSON, e.g. for a CI matrix', false)
    .action(async (paths: string[], options: { json: boolean }) => {
      const { io } = ctx;
      const result = await loadDesiredState(paths, { cwd: io.cwd });
      const sources = new Map(result.files.map((f) => [f.file, f.text]));
      printDiagnostics(ctx, result.diagnostics, sources);
      if (hasErrors(result.diagnostics))
        throw new InvalidFilesError('the files have errors; no environment is listed', result.diagnostics);
      const targets = describeEnvironmentTargets(result.environments ?? [], io.env);
      io.stdout.write(
        options.json
          ? `${stringifyJsonPretty(environmentsToJson(targets, io.cwd))}\n`
          : renderEnvironments(targets),
      );
      ctx.setExit(0);
    });
}
