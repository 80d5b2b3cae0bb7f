import { GuidectlError, UsageError } from '../core/errors.js';
import {
  applyEnvironmentsInOrder,
  loadEachEnvironment,
  type SplitPaths,
  splitSavedPlans,
} from '../reconcile/index.js';
import { allEnvsApplyOutput } from '../report/all-envs-apply.js';
import { applyFormatOf } from '../report/apply-output.js';
import type { CommandContext, ExitStatus, Output } from './io.js';
import { type LoadFiles, sizeHeapFor } from './session.js';

interface AllEnvsApplyOptions {
  env?: string;
  json: boolean;
  jsonStream: boolean;
  continueOnError: boolean;
}

/**
 * `apply --all-envs`: `applyOne` (one `apply --env NAME`, with its guards, prompt and output) for
 * each environment in the order declared, stopping at the first that fails unless
 * `--continue-on-error`, and at Ctrl-C whatever it says; then a line per environment (`--json`: one object of them all;
 * `--json-stream`: their events, each naming its environment, then a summary event).
 */
export async function applyAllEnvs<O extends AllEnvsApplyOptions>(
  ctx: CommandContext,
  args: readonly string[],
  options: O,
  applyOne: (
    ctx: CommandContext,
    args: readonly string[],
    split: SplitPaths,
    options: O,
    load: LoadFiles,
  ) => Promise<void>,
): Promise<void> {
  if (options.env !== undefined) throw new UsageError('--all-envs and --env choose differently; give one');
  const split = await splitSavedPlans(ctx.io.cwd, args);
  const { savedPlans, paths } = split;
  if (savedPlans.length > 0)
    throw new UsageError("a saved plan is one environment's: apply it without --all-envs");
  // The files are read and parsed once; each environment is checked as it comes.
  const each = await loadEachEnvironment(paths, ctx.io.cwd, { beforeParse: sizeHeapFor });
  const out = allEnvsApplyOutput(applyFormatOf(options), ctx.io.cwd, (text) => ctx.io.stdout.write(text));
  const results = await applyEnvironmentsInOrder(
    each.names,
    async (name) => {
      let status: ExitStatus = 0;
      const sink = out.environment(name);
      const stdout: Output = sink === undefined ? ctx.io.stdout : { isTTY: false, write: sink.write };
      const one: CommandContext = { ...ctx, io: { ...ctx.io, stdout }, setExit: (s) => (status = s) };
      try {
        // The paths were split once for all: each environment's apply is given them.
        await applyOne(one, args, split, { ...options, env: name }, (_paths, env) => each.load(env ?? name));
      } catch (error) {
        if (!(error instanceof GuidectlError)) throw error;
        ctx.io.stderr.write(`guidectl: environment ${name}: ${error.message}\n`);
        sink?.failed(error.message);
        return false;
      }
      return status === 0;
    },
    { continueOnError: options.continueOnError, signal: ctx.io.stopSignal },
  );
  ctx.io.stdout.write(out.finish(results));
  ctx.setExit(results.every((r) => r.status === 'applied') ? 0 : 1);
}
