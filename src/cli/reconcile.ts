import { InvalidArgumentError } from 'commander';
import type { GuideClient } from '../client/index.js';
import { loadDesiredState } from '../config/index.js';
import type { DesiredState } from '../core/desired.js';
import { type Diagnostic, hasErrors } from '../core/diagnostics.js';
import type { LiveState } from '../core/live.js';
import type { Plan } from '../core/plan.js';
import { type LiveReader, type LiveReadScope, readLiveState } from '../live/index.js';
import { planChanges } from '../plan/index.js';
import { renderDiagnostics } from '../report/diagnostics.js';
import type { CommandContext } from './io.js';
import { createProgress } from './progress.js';
import { describeEvent, openTarget, resolveTarget } from './target.js';

/** Options every command that talks to a target takes. */
export interface TargetOptions {
  baseUrl?: string;
  localDb?: string;
  parallelism: number;
  verbose: boolean;
}

export function parseParallelism(value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || n < 1 || n > 256) {
    throw new InvalidArgumentError('--parallelism must be a whole number from 1 to 256.');
  }
  return n;
}

export function useColor(ctx: CommandContext, stream: 'stdout' | 'stderr'): boolean {
  const value = ctx.io.env['NO_COLOR'];
  return ctx.io[stream].isTTY && (value === undefined || value === '');
}

function printDiagnostics(
  ctx: CommandContext,
  diagnostics: readonly Diagnostic[],
  sources: ReadonlyMap<string, string>,
): void {
  if (diagnostics.length === 0) return;
  ctx.io.stderr.write(
    renderDiagnostics(diagnostics, { cwd: ctx.io.cwd, color: useColor(ctx, 'stderr'), sources }),
  );
}

export interface LoadedFiles {
  readonly state: DesiredState;
  readonly sources: ReadonlyMap<string, string>;
}

/** Loads and validates the files; prints every diagnostic; undefined (exit 1 set) on an error. */
export async function loadFiles(
  ctx: CommandContext,
  paths: readonly string[],
): Promise<LoadedFiles | undefined> {
  const result = await loadDesiredState(paths, { cwd: ctx.io.cwd });
  const sources = new Map(result.files.map((f) => [f.file, f.text]));
  printDiagnostics(ctx, result.diagnostics, sources);
  if (result.state === undefined || hasErrors(result.diagnostics)) {
    ctx.io.stderr.write('guidectl: the files have errors; nothing was read or changed\n');
    ctx.setExit(1);
    return undefined;
  }
  return { state: result.state, sources };
}

/** Opens the target chosen by flags and environment, runs `fn` with its client, always closes. */
export async function withClient<T>(
  ctx: CommandContext,
  options: TargetOptions,
  fn: (client: GuideClient) => Promise<T>,
): Promise<T> {
  const target = resolveTarget(
    ctx.io.env,
    {
      ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
      ...(options.localDb === undefined ? {} : { localDb: options.localDb }),
    },
    ctx.io.cwd,
  );
  const open = await openTarget(target, ctx.io, {
    parallelism: options.parallelism,
    // Apply reads everything again after its calls, so appends need no read before them.
    readBeforeAppends: false,
    ...(options.verbose
      ? {
          onEvent: (event) => {
            const line = describeEvent(event);
            if (line !== undefined) ctx.io.stderr.write(`${line}\n`);
          },
        }
      : {}),
  });
  try {
    return await fn(open.client);
  } finally {
    await open.close();
  }
}

/** Reads the live state, with a progress line on a terminal when it takes a while. */
export async function readLive(
  ctx: CommandContext,
  reader: LiveReader,
  scope: LiveReadScope,
): Promise<LiveState> {
  const progress = createProgress(ctx.io, 'Reading the live state');
  try {
    return await readLiveState(reader, scope, {
      onProgress: ({ done, known }) => progress.update(done, known),
    });
  } finally {
    progress.finish();
  }
}

/** Plans; prints plan errors; undefined (exit 1 set) when the plan cannot be made. */
export function makePlan(ctx: CommandContext, files: LoadedFiles, live: LiveState): Plan | undefined {
  const result = planChanges(files.state, live);
  printDiagnostics(ctx, result.diagnostics, files.sources);
  if (result.plan === undefined) {
    ctx.io.stderr.write('guidectl: the plan cannot be made; nothing was changed\n');
    ctx.setExit(1);
  }
  return result.plan;
}
