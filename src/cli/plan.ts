import * as nodePath from 'node:path';
import { type Command, Option } from 'commander';
import { errorMessage, UsageError } from '../core/errors.js';
import { readOnlyClient } from '../live/index.js';
import { liveFingerprints, type SavedEnvironment } from '../plan/index.js';
import {
  DEFAULT_ENV_PARALLELISM,
  type PlanRun,
  planRun,
  recordedPath,
  refuseSavedPlans,
  writeSavedPlan,
} from '../reconcile/index.js';
import { environmentHeading } from '../report/envs.js';
import {
  formatPlan,
  type PlanFormat,
  planErrorOutput,
  planFailureOutput,
  planVerdict,
} from '../report/plan-output.js';
import { describeTarget, identifyTarget } from '../target/index.js';
import { type GuardOptions, guardFlags, guardOptions } from './guard-flags.js';
import type { CommandContext } from './io.js';
import { type FailureSink, printDiagnostics, useColor } from './output.js';
import { planAllEnvs } from './plan-all-envs.js';
import { loadFiles, readLive, reportInvalidPlan, type TargetOptions, withClient } from './session.js';
import { envOption, targetOptions, wholeNumber } from './target-flags.js';

export type Format = PlanFormat;

interface PlanOptions extends TargetOptions, GuardOptions {
  json: boolean;
  markdown: boolean;
  format?: Format;
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
            .description(
              'read the live state and print the calls that would make it match the files; never writes',
            )
            .argument('<paths...>', 'YAML files, or folders of *.yaml/*.yml files; all are merged'),
        ),
      ),
    ),
  )
    .option('--out <file.json>', 'also save the plan, for "guidectl apply FILE" to make exactly these calls')
    .option('--detailed-exitcode', 'exit 2 when there are changes, 0 when there are none', false)
    .option('--expect-no-changes', 'exit 1 when there are changes (drift), 0 when there are none', false)
    .option('--all-envs', 'plan every environment of the files, each against its target; one report')
    .option(
      '--env-parallelism <n>',
      `with --all-envs: environments read at once (default ${DEFAULT_ENV_PARALLELISM})`,
      wholeNumber('--env-parallelism', 1, 64),
    )
    .addHelpText(
      'after',
      '\nExit status: 0 success; 1 error, refused plan (deletion guard), or drift with --expect-no-changes;\n' +
        '2 changes pending with --detailed-exitcode.\n',
    )
    .action(async (paths: string[], options: PlanOptions) => {
      const format = chooseFormat(options);
      if (options.detailedExitcode && options.expectNoChanges) {
        throw new UsageError(
          '--detailed-exitcode and --expect-no-changes ask for different exit codes; give one',
        );
      }
      if (options.allEnvs === true) return planAllEnvs(ctx, paths, options, format);
      const out = options.out === undefined ? undefined : checkOutPath(options.out);
      // A markdown body or JSON object is printed once: a failure after the plan was printed goes
      // to stderr only, as every failure of human text does.
      let printed = format === 'human';
      const onFailure: FailureSink = (headline, diagnostics, sources) => {
        printed = true;
        const text = planFailureOutput(format, headline, { diagnostics, sources, cwd: ctx.io.cwd });
        if (text !== '') ctx.io.stdout.write(text);
      };
      try {
        await refuseSavedPlans(ctx.io.cwd, paths);
        const files = await loadFiles(ctx, paths, onFailure, options.env);
        if (files === undefined) return;
        const { environment } = files;
        const settings = environment === undefined ? {} : { environment };
        await withClient(
          ctx,
          options,
          async (client, _events, target) => {
            if (environment !== undefined && format === 'human') {
              ctx.io.stdout.write(environmentHeading(environment.name, describeTarget(target, ctx.io.cwd)));
            }
            // Plan mode is handed only the read calls: it has no way to write.
            const reader = readOnlyClient(client);
            const run = await planRun(
              files,
              { read: (scope) => readLive(ctx, reader, scope), target: identifyTarget(target) },
              guardFlags(options),
            );
            if (run.status === 'invalid') {
              reportInvalidPlan(ctx, run.diagnostics, files.sources, onFailure);
              return;
            }
            printDiagnostics(ctx, run.diagnostics, files.sources);
            const { plan, planId, guards } = run;
            const color = useColor(ctx, 'stdout');
            ctx.io.stdout.write(
              formatPlan(format, plan, { planId, guards, drift: options.expectNoChanges, color }),
            );
            printed = true;
            const planned = run.basis.environment;
            const made = planned && {
              name: planned.name,
              target: describeTarget(target, ctx.io.cwd),
              targetId: planned.target,
            };
            if (out !== undefined) await savePlan(ctx, run, paths, out, format, made);
            const verdict = planVerdict(format, plan, guards, options);
            ctx.io.stderr.write(verdict.stderr);
            ctx.setExit(verdict.exit);
          },
          settings,
        );
      } catch (error) {
        if (!printed) ctx.io.stdout.write(planErrorOutput(format, errorMessage(error)));
        throw error;
      }
    });
}

/** `--out`: the plan saved for `apply FILE`, and where it went (stdout for people, else stderr). */
async function savePlan(
  ctx: CommandContext,
  run: Extract<PlanRun, { status: 'planned' }>,
  paths: readonly string[],
  out: string,
  format: PlanFormat,
  environment: SavedEnvironment | undefined,
): Promise<void> {
  const { io } = ctx;
  await writeSavedPlan(nodePath.resolve(io.cwd, out), {
    planId: run.planId,
    ...(environment === undefined ? {} : { environment }),
    paths: paths.map((p) => recordedPath(io.cwd, p)),
    basis: run.basis,
    plan: run.plan,
    liveFingerprints: liveFingerprints(run.live),
  });
  const saved = `Saved the plan to ${out}; apply exactly these calls with: guidectl apply ${out}\n`;
  if (format === 'human') io.stdout.write(`\n${saved}`);
  else io.stderr.write(`guidectl: ${saved}`);
}

/** Adds `--format` and its `--json`/`--markdown` shorthands (read by {@link chooseFormat}). */
export function formatOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--format <format>',
        'output: human text, JSON (format_version 1), or a markdown comment body',
      ).choices(['human', 'json', 'markdown']),
    )
    .option('--json', 'same as --format json', false)
    .option('--markdown', 'same as --format markdown: a pull-request comment body', false);
}

/** `--format`, or the `--json`/`--markdown` shorthands; contradictions are usage errors. */
export function chooseFormat(options: Pick<PlanOptions, 'json' | 'markdown' | 'format'>): Format {
  const asked = new Set<Format>();
  if (options.format !== undefined) asked.add(options.format);
  if (options.json) asked.add('json');
  if (options.markdown) asked.add('markdown');
  if (asked.size > 1) throw new UsageError(`choose one output format, not ${[...asked].join(' and ')}`);
  return [...asked][0] ?? 'human';
}

/** A saved plan is JSON, and is named so (guidectl itself tells it by its content). */
function checkOutPath(out: string): string {
  if (!out.toLowerCase().endsWith('.json')) {
    throw new UsageError(`--out ${out}: name the file *.json (a saved plan is JSON)`);
  }
  return out;
}
