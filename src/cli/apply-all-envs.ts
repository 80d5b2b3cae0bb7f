import { GuidectlError, UsageError } from '../core/errors.js';
import { FILES_INTERRUPTED, throwIfStopped } from '../core/stop.js';
import {
  type ApplyRun,
  applyEnvironmentsInOrder,
  loadEachEnvironment,
  type ReadFiles,
  type SplitPaths,
  splitSavedPlans,
} from '../reconcile/index.js';
import { allEnvsApplyOutput, environmentStderrLine } from '../report/all-envs-apply.js';
import { applyFormatOf, applyOutputWriter, type OutputChunk } from '../report/apply-output.js';
import type { CommandContext, ExitStatus } from './io.js';
import { writeChunks } from './output.js';
import { sizeHeapFor } from './session.js';

interface AllEnvsApplyOptions {
  env?: string;
  json: boolean;
  jsonStream: boolean;
  continueOnError: boolean;
  planId?: string;
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
    how: {
      readonly read: ReadFiles;
      readonly write: (chunks: readonly OutputChunk[]) => void;
      readonly ended: (status: ApplyRun['status']) => void;
    },
  ) => Promise<void>,
): Promise<void> {
  if (options.planId !== undefined)
    throw new UsageError(
      '--plan-id pins the plan of one environment; it is not taken with --all-envs (apply each with --env NAME --plan-id ID)',
    );
  const split = await splitSavedPlans(ctx.io.cwd, args);
  const { savedPlans, paths } = split;
  if (savedPlans.length > 0)
    throw new UsageError("a saved plan is one environment's: apply it without --all-envs");
  // The files are read and parsed once; each environment is checked as it comes.
  const each = await loadEachEnvironment(paths, ctx.io.cwd, { beforeParse: sizeHeapFor });
  // A Ctrl-C during the parse: said as one apply says it, in its format (--json: one object).
  await throwIfStopped(ctx.io.stopSignal, FILES_INTERRUPTED).catch((error: unknown) => {
    applyOutputWriter({ format: applyFormatOf(options), cwd: ctx.io.cwd }, (c) => writeChunks(ctx, c)).failed(
      error,
    );
    throw error;
  });
  const out = allEnvsApplyOutput(applyFormatOf(options), (chunk) => writeChunks(ctx, [chunk]));
  const results = await applyEnvironmentsInOrder(
    each.names,
    async (name) => {
      let status: ExitStatus = 0;
      let ended: ApplyRun['status'] | undefined;
      const sink = out.environment(name);
      const one: CommandContext = { ...ctx, setExit: (s) => (status = s) };
      try {
        // The paths were split once for all: each environment's apply is given them.
        const read: ReadFiles = (_paths, env) => each.load(env ?? name);
        await applyOne(
          one,
          args,
          split,
          { ...options, env: name },
          { read, write: sink.write, ended: (s) => (ended = s) },
        );
      } catch (error) {
        if (!(error instanceof GuidectlError)) throw error;
        // Its output (the failure for machines) was written by applyOne.
        ctx.io.stderr.write(environmentStderrLine(name, error.message));
        return false;
      }
      if (status !== 0) return false;
      return ended === 'unchanged' ? 'unchanged' : true;
    },
    { continueOnError: options.continueOnError, signal: ctx.io.stopSignal },
  );
  ctx.setExit(out.finish(results));
}
