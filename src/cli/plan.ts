import type { Command } from 'commander';
import { errorMessage, UsageError } from '../core/errors.js';
import type { LiveReadScope } from '../core/live.js';
import { ifDefined } from '../core/records.js';
import { readOnlyClient } from '../live/index.js';
import type { GuardFlags } from '../plan/index.js';
import {
  checkPlanOut,
  DEFAULT_ENV_PARALLELISM,
  liveSourceOf,
  planRun,
  readAndReport,
  refuseSavedPlans,
  savePlanRun,
} from '../reconcile/index.js';
import { environmentHeading } from '../report/envs.js';
import type { EnvironmentSoFar } from '../report/plan.js';
import {
  formatPlan,
  planErrorOutput,
  planFailureOutput,
  planVerdict,
  savedPlanNotice,
  stderrLines,
} from '../report/plan-output.js';
import { chooseFormat, type FormatFlags, formatOptions } from './format-flags.js';
import { guardOptions } from './guard-flags.js';
import type { CommandContext } from './io.js';
import { type FailureSink, printDiagnostics, useColor, writeChunks } from './output.js';
import { planAllEnvs } from './plan-all-envs.js';
import { planFilesLoad, readLive, reportInvalidPlan, type TargetOptions, withClient } from './session.js';
import { allEnvsChosen, envOption, givenTargetWords, targetOptions, wholeNumber } from './target-flags.js';

interface PlanOptions extends TargetOptions, GuardFlags, FormatFlags {
  detailedExitcode: boolean;
  expectNoChanges: boolean;
  out?: string;
  allEnvs?: boolean;
  envParallelism?: number;
}

/** `guidectl plan PATH…`: reads the live state, prints the plan; never writes to the account. */
export function registerPlanCommand(program: Command, ctx: CommandContext): void {
  formatOptions(
    guardOptions(
      envOption(
        targetOptions(
          program
            .command('plan')
            .summary('print the calls the files need; never writes')
            .description(
              'read the live state and print the calls that would make it match the files; never writes',
            )
            .argument('<paths...>', 'YAML files or folders of them; all are merged'),
        ),
      ),
    ),
  )
    .option('--out <file.json>', 'also save the plan, for apply FILE.json')
    .option('--detailed-exitcode', 'exit 2 when there are changes', false)
    .option('--expect-no-changes', 'exit 1 when there are changes (drift)', false)
    .option('--all-envs', 'plan every environment of the files; one report')
    .option(
      '--env-parallelism <n>',
      `--all-envs: environments read at once (default: ${DEFAULT_ENV_PARALLELISM})`,
      wholeNumber('--env-parallelism', 1, 64),
    )
    .addHelpText(
      'after',
      '\nExit status: 0 success; 1 error, refused plan (deletion guard), or drift with\n' +
        '--expect-no-changes; 2 changes pending with --detailed-exitcode.',
    )
    .action(async (paths: string[], options: PlanOptions) => {
      const format = chooseFormat(options);
      // A machine format always ends with its object, a Ctrl-C while the files load included.
      if (format !== 'human') ctx.io.catchSignals?.();
      if (options.detailedExitcode && options.expectNoChanges) {
        throw new UsageError(
          '--detailed-exitcode and --expect-no-changes ask for different exit codes; give one',
        );
      }
      const out = options.out === undefined ? undefined : await checkPlanOut(ctx.io.cwd, options.out, paths);
      // A markdown body or JSON object is printed once: a failure after the plan was printed goes
      // to stderr only, as every failure of human text does.
      let printed = format === 'human';
      // The environment once the files are read for it, with its target once resolved: a failure names them.
      let named: EnvironmentSoFar | undefined;
      const onFailure: FailureSink = (headline, diagnostics, sources) => {
        printed = true;
        const failure = { diagnostics, sources, cwd: ctx.io.cwd, environment: named };
        const text = planFailureOutput(format, headline, failure);
        if (text !== '') ctx.io.stdout.write(text);
      };
      try {
        await refuseSavedPlans(ctx.io.cwd, paths);
        if (allEnvsChosen(options)) return await planAllEnvs(ctx, paths, options, format);
        const files = await readAndReport(planFilesLoad(ctx, onFailure), paths, options.env);
        if (files === undefined) return;
        const { environment } = files;
        named = environment && { name: environment.name };
        await withClient(
          ctx,
          options,
          async (client, _events, { description: where, identity }) => {
            named = environment && { name: environment.name, target: where };
            if (environment !== undefined && format === 'human')
              ctx.io.stdout.write(environmentHeading(environment.name, where));
            // Plan mode is handed only the read calls: it has no way to write.
            const reader = readOnlyClient(client);
            const read = (scope: LiveReadScope) => readLive(ctx, reader, scope);
            const run = await planRun(files, liveSourceOf(reader, identity, read), options);
            if (run.status === 'invalid')
              return reportInvalidPlan(ctx, run.diagnostics, files.sources, onFailure);
            printDiagnostics(ctx, run.diagnostics, files.sources);
            const { plan, planId, guards, warnings, quota } = run;
            const shown = environment && { environment: { name: environment.name, target: where } };
            const drift = options.expectNoChanges;
            const target = { description: where, identity };
            const extras = {
              ...{ planId, guards, drift, warnings, cwd: ctx.io.cwd, target, ...shown },
              ...ifDefined('quota', quota),
            };
            ctx.io.stdout.write(formatPlan(format, plan, { ...extras, color: useColor(ctx, 'stdout') }));
            printed = true;
            if (out !== undefined) {
              await savePlanRun(ctx.io.cwd, out, run, paths, where);
              const flags = environment === undefined ? givenTargetWords(options) : [];
              writeChunks(ctx, [savedPlanNotice(format, out, guards, { planId, target: identity, flags })]);
            }
            const verdict = planVerdict(format, plan, guards, options);
            ctx.io.stderr.write(stderrLines(verdict.messages));
            ctx.setExit(verdict.exit);
          },
          environment === undefined ? {} : { environment },
        );
      } catch (error) {
        if (!printed) ctx.io.stdout.write(planErrorOutput(format, errorMessage(error), named));
        throw error;
      }
    });
}
