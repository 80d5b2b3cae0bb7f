import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import type { DeclaredEnvironment } from '../core/environments.js';
import type { LiveReadScope } from '../core/live.js';
import { ifDefined } from '../core/records.js';
import { writeWholeFile } from '../core/whole-file.js';
import { READ_EVERYTHING, readOnlyClient } from '../live/index.js';
import { checkExportRequest, declaredEnvironment, readAndReport } from '../reconcile/index.js';
import { exportWrittenNotice, renderExport } from '../report/export.js';
import { type ExportEnvironment, exportEnvironmentOf } from '../report/export-references.js';
import type { CommandContext } from './io.js';
import { readLive, reportingLoad, type TargetOptions, withClient } from './session.js';
import { targetOptions } from './target-flags.js';

interface ExportOptions extends TargetOptions {
  output?: string;
  files?: string[];
  asEnvironmentFile?: boolean;
  tasks: boolean;
}

/** `guidectl export [-o FILE]`: the live state as a desired-state file that plans to no changes. */
export function registerExportCommand(program: Command, ctx: CommandContext): void {
  targetOptions(
    program
      .command('export')
      .summary('print the live state as a YAML file')
      .description('print the live state as a desired-state YAML file that plans to no changes'),
  )
    .option('-o, --output <file>', 'write the file here instead of printing it')
    .option('--env <name>', "export this environment's account (with --files)")
    .option('--files <paths...>', 'with --env: the files or folders that declare it')
    .option('--as-environment-file', 'with --env: write the values as references')
    .option('--no-tasks', 'leave the tasks out: not read, and left alone')
    .action(async (options: ExportOptions) => {
      await checkExportRequest(options, ctx.io.cwd); // before the read, which may be long
      let asFile: ExportEnvironment | undefined;
      let environment: DeclaredEnvironment | undefined;
      if (options.env !== undefined && options.files !== undefined) {
        // The files are read once: whole (checked as the environment sees them) for its values,
        // else only for where the environment is.
        if (options.asEnvironmentFile === true) {
          const files = await readAndReport(reportingLoad(ctx), options.files, options.env);
          if (files?.environment === undefined) return;
          environment = files.environment;
          asFile = exportEnvironmentOf({ ...files, environment });
        } else {
          environment = await declaredEnvironment(options.files, ctx.io.cwd, options.env);
        }
      }
      await withClient(
        ctx,
        options,
        async (client) => {
          const scope: LiveReadScope = options.tasks ? { ...READ_EVERYTHING, tasks: 'all' } : READ_EVERYTHING;
          const live = await readLive(ctx, readOnlyClient(client), scope);
          const out = options.output === undefined ? undefined : resolve(ctx.io.cwd, options.output);
          const schema = fileURLToPath(new URL('../../schema/guidectl.schema.json', import.meta.url));
          const schemaPath = relative(out === undefined ? ctx.io.cwd : dirname(out), schema);
          const { text, warnings, counts } = renderExport(live, {
            schemaPath,
            ...ifDefined('environment', asFile),
          });
          for (const warning of warnings) ctx.io.stderr.write(`guidectl: warning: ${warning}\n`);
          if (out === undefined) {
            ctx.io.stdout.write(text);
          } else {
            await writeWholeFile(out, text, options.output ?? out);
            ctx.io.stderr.write(exportWrittenNotice(options.output ?? out, counts));
          }
          ctx.setExit(0);
        },
        environment === undefined ? {} : { environment },
      );
    });
}
