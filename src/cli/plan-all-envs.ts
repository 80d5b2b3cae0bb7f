import { UsageError } from '../core/errors.js';
import { readOnlyClient } from '../live/index.js';
import type { GuardFlags } from '../plan/index.js';
import { liveSourceOf, planAllEnvironments, planRun } from '../reconcile/index.js';
import { renderAllEnvs } from '../report/all-envs.js';
import { type PlanFormat, planFailureOutput } from '../report/plan-output.js';
import type { CommandContext } from './io.js';
import { printDiagnostics, reportNoPlan, useColor } from './output.js';
import { type TargetOptions, withClient } from './session.js';

export interface AllEnvsOptions extends TargetOptions, GuardFlags {
  allEnvs?: boolean;
  envParallelism?: number;
  detailedExitcode: boolean;
  expectNoChanges: boolean;
  out?: string;
}

/** `plan --all-envs`: every environment planned against its own target, then one report. */
export async function planAllEnvs(
  ctx: CommandContext,
  paths: readonly string[],
  options: AllEnvsOptions,
  format: PlanFormat,
): Promise<void> {
  if (options.out !== undefined)
    throw new UsageError('--out saves one plan; it is not taken with --all-envs');
  const { io } = ctx;
  const result = await planAllEnvironments(
    paths,
    io.cwd,
    async (files, resolved) =>
      withClient(
        ctx,
        { ...options, verbose: false },
        async (client, _events, { description, identity }) => ({
          target: description,
          // Plan mode is handed only the read calls: it has no way to write.
          run: await planRun(files, liveSourceOf(readOnlyClient(client), identity), options),
        }),
        {
          ...(files.environment && { environment: files.environment }),
          beforeOpen: (_, now) => resolved(now.description),
        },
      ),
    options.envParallelism,
    io.stopSignal,
  );
  if (result.status === 'invalid') {
    // As plan says it; for machines, stdout still holds the failure (its JSON object, its comment).
    const why = { ...result, cwd: io.cwd, outcome: 'nothing was read or changed' };
    const headline = 'the files have errors';
    return reportNoPlan(ctx, headline, why, () => io.stdout.write(planFailureOutput(format, headline, why)));
  }
  printDiagnostics(ctx, result.diagnostics, result.sources);
  const out = renderAllEnvs(result.environments, format, {
    color: useColor(ctx, 'stdout'),
    cwd: io.cwd,
    sources: result.sources,
    expectNoChanges: options.expectNoChanges,
    detailedExitcode: options.detailedExitcode,
  });
  io.stdout.write(out.stdout);
  io.stderr.write(out.stderr);
  ctx.setExit(out.exit);
}
