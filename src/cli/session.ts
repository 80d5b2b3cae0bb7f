// The file, not the client's index: commands without a target (validate) must not load undici.
import { setFlagsFromString } from 'node:v8';
import { eventLine } from '../client/event-line.js';
import type { GuideClient } from '../client/index.js';
import type { Diagnostic } from '../core/diagnostics.js';
import type { DeclaredEnvironment } from '../core/environments.js';
import type { LiveReadScope, LiveState } from '../core/live.js';
import { FILES_INTERRUPTED, throwIfStopped } from '../core/stop.js';
import type { TargetNow } from '../core/target-identity.js';
import { type LiveReader, readLiveState } from '../live/index.js';
import {
  environmentOfFlags,
  type FilesLoad,
  loadFiles as loadDesiredFiles,
  type ReadFiles,
} from '../reconcile/index.js';
import { escapeControlsKeepingLines } from '../report/escape.js';
import {
  type ClientEvents,
  type TargetFlagValues,
  type TargetLock,
  type TargetSettings,
  targetRequestOf,
  withTarget,
} from '../target/index.js';
import { type CommandContext, InterruptedError } from './io.js';
import { thisProcess } from './lock-process.js';
import { type FailureSink, printDiagnostics, reportNoPlan } from './output.js';
import { createProgress } from './progress.js';

/** What a command that writes asks of the embedded database's lock (see `TargetLock`). */
export type LockRequest = Omit<TargetLock, 'self'>;

/** Options every command that talks to a target takes. */
export interface TargetOptions extends TargetFlagValues {
  /** `--env NAME` (plan, apply): the environment of the files, whose target the files name. */
  env?: string;
  /** `--files PATH…` (with `--env`, of the commands that take no files otherwise): the files that declare it. */
  files?: string[];
}

/**
 * The settings of {@link withClient} that `--env NAME --files PATH…` ask for: the environment's
 * target, as plan and apply reach it (none without the flags). Read before the target is opened.
 */
export async function environmentSettings(
  ctx: CommandContext,
  options: Pick<TargetOptions, 'env' | 'files'>,
): Promise<{ readonly environment?: DeclaredEnvironment }> {
  const environment = await environmentOfFlags(options, ctx.io.cwd);
  return environment === undefined ? {} : { environment };
}

/** From this much desired-state YAML on (about 50,000 guides), a run keeps its heap closer to what it uses. */
const LARGE_FILES_BYTES = 8 * 1024 * 1024;

/**
 * V8 lets the heap grow up to 4× between full collections; for 100,000 guides that made the peak
 * of a plan 680 MB with 210 MB in use. Growing by half keeps it near 460 MB, for 10% more CPU (too
 * much to pay on smaller runs). Set once the files are read, before they are parsed: the first
 * full collection is during the parse, and it sets the heap's next limit.
 */
export function sizeHeapFor(bytes: number): void {
  if (bytes >= LARGE_FILES_BYTES) setFlagsFromString('--heap-growing-percent=50');
}

/** A command's files, read and then reported (see `FilesLoad`): every diagnostic printed; exit 1 on an error. */
export function reportingLoad(
  ctx: CommandContext,
  onFailure?: FailureSink,
  read: ReadFiles = (p, env) => loadDesiredFiles(p, ctx.io.cwd, env, sizeHeapFor),
): FilesLoad {
  return {
    read,
    async report({ files, diagnostics, sources }) {
      // A Ctrl-C while they were read (a machine format catches it from the start: see plan and apply).
      await throwIfStopped(ctx.io.stopSignal, FILES_INTERRUPTED);
      const outcome = 'nothing was read or changed';
      if (files === undefined)
        reportNoPlan(ctx, 'the files have errors', { diagnostics, sources, outcome }, onFailure);
      else printDiagnostics(ctx, diagnostics, sources);
      return files;
    },
  };
}

/** How plan and apply read their files: for files with environments, --all-envs is a choice too. */
export function planFilesRead(ctx: CommandContext): ReadFiles {
  return (p, env) => loadDesiredFiles(p, ctx.io.cwd, env, sizeHeapFor, true);
}

/** `reportingLoad` with plan's and apply's read (see `planFilesRead`). */
export function planFilesLoad(ctx: CommandContext, onFailure?: FailureSink): FilesLoad {
  return reportingLoad(ctx, onFailure, planFilesRead(ctx));
}

/**
 * Opens the target chosen by flags and environment, runs `fn` with its client, always closes.
 * From here on a Ctrl-C or SIGTERM stops the command cleanly (see `CliIo.catchSignals`): the
 * client's calls are aborted by `signal`, the stop signal unless the command says otherwise.
 * With `lock`, an embedded local database is locked for the whole run (see `service/db-lock.ts`).
 * The rest of `settings` is as `targetRequestOf` takes it.
 */
export async function withClient<T>(
  ctx: CommandContext,
  options: TargetOptions,
  fn: (client: GuideClient, events: ClientEvents, now: TargetNow) => Promise<T>,
  settings: Omit<TargetSettings, 'signal' | 'lock' | 'log'> & {
    readonly signal?: AbortSignal;
    readonly lock?: LockRequest;
  } = {},
): Promise<T> {
  const { io } = ctx;
  io.catchSignals?.();
  const host = {
    env: io.env,
    cwd: io.cwd,
    stopSignal: io.stopSignal,
    notice: (line: string) => io.stderr.write(`guidectl: ${line}\n`),
  };
  const { lock, signal, ...rest } = settings;
  const { request, events } = targetRequestOf(options, {
    ...rest,
    signal: signal ?? io.stopSignal,
    ...(lock === undefined ? {} : { lock: { ...lock, self: thisProcess() } }),
    log: (event) => {
      const line = eventLine(event);
      if (line !== undefined) io.stderr.write(`${escapeControlsKeepingLines(line)}\n`);
    },
  });
  return withTarget(host, request, (client, _target, now) => fn(client, events, now));
}

/**
 * Reads the live state, with a progress line when it takes a while (see `createProgress`). A read
 * stopped by Ctrl-C is an `InterruptedError`, not the failure of the call it cut.
 */
export async function readLive(
  ctx: CommandContext,
  reader: LiveReader,
  scope: LiveReadScope,
  events?: ClientEvents,
): Promise<LiveState> {
  const progress = createProgress(ctx.io, 'Reading', events);
  try {
    return await readLiveState(reader, scope, {
      onProgress: ({ done, known }) => progress.update(done, known),
      clock: { now: ctx.io.now ?? Date.now },
    });
  } catch (error) {
    if (ctx.io.stopSignal.aborted) throw new InterruptedError('interrupted while reading the live state');
    throw error;
  } finally {
    progress.finish();
  }
}

/** A plan that cannot be made: its diagnostics printed, the failure told to `onFailure`, exit 1. */
export function reportInvalidPlan(
  ctx: CommandContext,
  diagnostics: readonly Diagnostic[],
  sources: ReadonlyMap<string, string>,
  onFailure?: FailureSink,
): void {
  const outcome = 'nothing was changed';
  reportNoPlan(ctx, 'the plan cannot be made', { diagnostics, sources, outcome }, onFailure);
}
