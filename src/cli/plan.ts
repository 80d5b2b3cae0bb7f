import * as nodePath from 'node:path';
import { type Command, Option } from 'commander';
import { errorMessage, UsageError } from '../core/errors.js';
import type { Plan } from '../core/plan.js';
import type { GuardResult } from '../core/safety.js';
import { readOnlyClient } from '../live/index.js';
import { isRefused, liveFingerprints } from '../plan/index.js';
import { planRun, recordedPath, refuseSavedPlans, writeSavedPlan } from '../reconcile/index.js';
import { countOf } from '../report/count.js';
import { failureToJson } from '../report/diagnostics.js';
import { escapeControlsKeepingLines } from '../report/escape.js';
import { renderFailureMarkdown, renderPlanMarkdown } from '../report/markdown.js';
import { guardMessage, type PlanExtras, planToJson, renderPlan } from '../report/plan.js';
import { stringifyJsonPretty } from '../wire/json.js';
import { type GuardOptions, guardFlags, guardOptions } from './guard-flags.js';
import type { CommandContext } from './io.js';
import {
  type FailureSink,
  loadFiles,
  printDiagnostics,
  readLive,
  reportInvalidPlan,
  type TargetOptions,
  useColor,
  withClient,
} from './session.js';
import { targetOptions } from './target-flags.js';

export type Format = 'human' | 'json' | 'markdown';

interface PlanOptions extends TargetOptions, GuardOptions {
  json: boolean;
  markdown: boolean;
  format?: Format;
  detailedExitcode: boolean;
  expectNoChanges: boolean;
  out?: string;
}

/** `guidectl plan PATH…`: reads the live state, prints the plan; never writes to the account. */
export function registerPlanCommand(program: Command, ctx: CommandContext): void {
  formatOptions(
    guardOptions(
      targetOptions(
        program
          .command('plan')
          .description(
            'read the live state and print the calls that would make it match the files; never writes',
          )
          .argument('<paths...>', 'YAML files, or folders of *.yaml/*.yml files; all are merged'),
      ),
    ),
  )
    .option('--out <file.json>', 'also save the plan, for "guidectl apply FILE" to make exactly these calls')
    .option('--detailed-exitcode', 'exit 2 when there are changes, 0 when there are none', false)
    .option('--expect-no-changes', 'exit 1 when there are changes (drift), 0 when there are none', false)
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
      const out = options.out === undefined ? undefined : checkOutPath(options.out);
      // A markdown body or JSON object is printed once: a failure after the plan was printed goes
      // to stderr only.
      let printed = false;
      const onFailure: FailureSink | undefined =
        format === 'markdown'
          ? (headline, details) => {
              printed = true;
              ctx.io.stdout.write(renderFailureMarkdown(`guidectl plan failed: ${headline}`, details));
            }
          : format === 'json'
            ? (headline, _details, diagnostics) => {
                printed = true;
                const value = failureToJson(headline, diagnostics, { cwd: ctx.io.cwd });
                ctx.io.stdout.write(`${stringifyJsonPretty(value)}\n`);
              }
            : undefined;
      try {
        await refuseSavedPlans(ctx.io.cwd, paths);
        const files = await loadFiles(ctx, paths, onFailure);
        if (files === undefined) return;
        await withClient(ctx, options, async (client) => {
          // Plan mode is handed only the read calls: it has no way to write.
          const reader = readOnlyClient(client);
          const run = await planRun(
            files,
            { read: (scope) => readLive(ctx, reader, scope) },
            guardFlags(options),
          );
          if (run.status === 'invalid') {
            reportInvalidPlan(ctx, run.diagnostics, files.sources, onFailure);
            return;
          }
          printDiagnostics(ctx, run.diagnostics, files.sources);
          const { plan, planId: id, guards, basis, live } = run;
          const { io } = ctx;
          io.stdout.write(
            formatPlan(ctx, format, plan, { planId: id, guards, drift: options.expectNoChanges }),
          );
          if (format !== 'human') printed = true;
          if (out !== undefined) {
            await writeSavedPlan(nodePath.resolve(io.cwd, out), {
              planId: id,
              paths: paths.map((p) => recordedPath(io.cwd, p)),
              basis,
              plan,
              liveFingerprints: liveFingerprints(live),
            });
            const saved = `Saved the plan to ${out}; apply exactly these calls with: guidectl apply ${out}\n`;
            if (format === 'human') io.stdout.write(`\n${saved}`);
            else io.stderr.write(`guidectl: ${saved}`);
          }
          ctx.setExit(exitStatus(ctx, format, guards, plan.calls.length, plan.changes.length, options));
        });
      } catch (error) {
        if (!printed) {
          const why = errorMessage(error);
          if (format === 'markdown')
            ctx.io.stdout.write(
              renderFailureMarkdown('guidectl plan failed', `guidectl: ${escapeControlsKeepingLines(why)}`),
            );
          if (format === 'json') ctx.io.stdout.write(`${stringifyJsonPretty(failureToJson(why, []))}\n`);
        }
        throw error;
      }
    });
}

function exitStatus(
  ctx: CommandContext,
  format: Format,
  guards: readonly GuardResult[],
  calls: number,
  changes: number,
  options: PlanOptions,
): 0 | 1 | 2 {
  const { io } = ctx;
  if (isRefused(guards)) {
    // The human plan shows the refusals already; other formats say it on stderr too.
    if (format !== 'human')
      for (const g of guards) if (g.status === 'refused') io.stderr.write(`guidectl: ${guardMessage(g)}\n`);
    io.stderr.write('guidectl: the plan is refused by a deletion guard; apply would not make it\n');
    return 1;
  }
  if (options.expectNoChanges && calls > 0) {
    io.stderr.write(
      `guidectl: drift: the account differs from the files (${countOf(changes, 'change')}, ${countOf(calls, 'API call')} to bring it back); expected no changes\n`,
    );
    return 1;
  }
  return options.detailedExitcode && calls > 0 ? 2 : 0;
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

/**
 * A plan as text in `format`: as `plan` prints it, and `show` a saved one. `drift` (from
 * `--expect-no-changes`) is said in the markdown body only.
 */
export function formatPlan(
  ctx: CommandContext,
  format: Format,
  plan: Plan,
  extras: PlanExtras & { readonly drift?: boolean },
): string {
  switch (format) {
    case 'json':
      return `${stringifyJsonPretty(planToJson(plan, extras))}\n`;
    case 'markdown':
      return renderPlanMarkdown(plan, extras);
    case 'human':
      return renderPlan(plan, { color: useColor(ctx, 'stdout'), ...extras });
    default: {
      const unreachable: never = format;
      return unreachable;
    }
  }
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
