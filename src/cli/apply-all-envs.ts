import { GuidectlError, UsageError } from '../core/errors.js';
import { applyEnvironmentsInOrder, declaredEnvironmentNames, splitSavedPlans } from '../reconcile/index.js';
import { renderEnvironmentApplies } from '../report/all-envs.js';
import type { CommandContext, ExitStatus } from './io.js';

interface AllEnvsApplyOptions {
  env?: string;
  json: boolean;
  jsonStream: boolean;
  continueOnError: boolean;
}

/**
 * `apply --all-envs`: `applyOne` (one `apply --env NAME`, with its guards, prompt and output) for
 * each environment in the order declared, stopping at the first that fails unless
 * `--continue-on-error`; then a line per environment. Human output only: one JSON object per run.
 */
export async function applyAllEnvs<O extends AllEnvsApplyOptions>(
  ctx: CommandContext,
  args: readonly string[],
  options: O,
  applyOne: (ctx: CommandContext, args: readonly string[], options: O) => Promise<void>,
): Promise<void> {
  if (options.env !== undefined) throw new UsageError('--all-envs and --env choose differently; give one');
  if (options.json || options.jsonStream) {
    throw new UsageError('--all-envs prints text: apply each environment with --env NAME for JSON');
  }
  const { savedPlans, paths } = await splitSavedPlans(ctx.io.cwd, args);
  if (savedPlans.length > 0)
    throw new UsageError("a saved plan is one environment's: apply it without --all-envs");
  const names = await declaredEnvironmentNames(paths, ctx.io.cwd);
  const results = await applyEnvironmentsInOrder(
    names,
    async (name) => {
      let status: ExitStatus = 0;
      const one: CommandContext = {
        ...ctx,
        setExit: (s) => {
          status = s;
        },
      };
      try {
        await applyOne(one, args, { ...options, env: name });
      } catch (error) {
        if (!(error instanceof GuidectlError)) throw error;
        ctx.io.stderr.write(`guidectl: environment ${name}: ${error.message}\n`);
        return false;
      }
      return status === 0;
    },
    options.continueOnError,
  );
  ctx.io.stdout.write(`\n${renderEnvironmentApplies(results)}`);
  ctx.setExit(results.every((r) => r.status === 'applied') ? 0 : 1);
}
