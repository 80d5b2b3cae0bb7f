import { type Command, InvalidArgumentError, Option } from 'commander';
import type { ClientEvent, GuideClient } from '../client/index.js';
import { loadDesiredState } from '../config/index.js';
import { DELETE_KINDS, type DeleteKind, type DesiredState, type SafetyPolicy } from '../core/desired.js';
import { type Diagnostic, hasErrors } from '../core/diagnostics.js';
import type { LiveState } from '../core/live.js';
import type { Plan } from '../core/plan.js';
import type { GuardResult } from '../core/safety.js';
import { type LiveReader, type LiveReadScope, readLiveState, readScopeFor } from '../live/index.js';
import {
  checkDeleteGuards,
  checkProtection,
  countDeletes,
  countLive,
  type GuardFlags,
  planChanges,
  resolveGuardPolicy,
} from '../plan/index.js';
import { renderDiagnostics } from '../report/diagnostics.js';
import { type CommandContext, InterruptedError } from './io.js';
import { createProgress } from './progress.js';
import {
  describeEvent,
  openTarget,
  resolveTarget,
  type TargetLock,
  type TimingFlags,
  timingOptions,
} from './target.js';

/** Options every command that talks to a target takes. */
export interface TargetOptions extends TimingFlags {
  baseUrl?: string;
  localDb?: string;
  parallelism: number;
  verbose: boolean;
}

/** Colour on a stream: only on a terminal, without `--no-color`, and with NO_COLOR unset or empty. */
export function useColor(ctx: CommandContext, stream: 'stdout' | 'stderr'): boolean {
  const value = ctx.io.env['NO_COLOR'];
  return ctx.io[stream].isTTY && ctx.colorFlag() && (value === undefined || value === '');
}

/**
 * Told why a command failed before it had a plan to show: a headline, the messages as plain text
 * (for `plan --markdown`, whose comment must say why there is no plan), and the diagnostics
 * themselves (for `--json`, which prints them as `validate --json` does).
 */
export type FailureSink = (headline: string, details: string, diagnostics: readonly Diagnostic[]) => void;

function printDiagnostics(
  ctx: CommandContext,
  diagnostics: readonly Diagnostic[],
  sources: ReadonlyMap<string, string>,
): string {
  if (diagnostics.length === 0) return '';
  ctx.io.stderr.write(
    renderDiagnostics(diagnostics, { cwd: ctx.io.cwd, color: useColor(ctx, 'stderr'), sources }),
  );
  return renderDiagnostics(diagnostics, { cwd: ctx.io.cwd, sources });
}

export interface LoadedFiles {
  readonly state: DesiredState;
  readonly sources: ReadonlyMap<string, string>;
}

/** Loads and validates the files; prints every diagnostic; undefined (exit 1 set) on an error. */
export async function loadFiles(
  ctx: CommandContext,
  paths: readonly string[],
  onFailure?: FailureSink,
): Promise<LoadedFiles | undefined> {
  const result = await loadDesiredState(paths, { cwd: ctx.io.cwd });
  const sources = new Map(result.files.map((f) => [f.file, f.text]));
  const text = printDiagnostics(ctx, result.diagnostics, sources);
  if (result.state === undefined || hasErrors(result.diagnostics)) {
    ctx.io.stderr.write('guidectl: the files have errors; nothing was read or changed\n');
    onFailure?.('the files have errors', text, result.diagnostics);
    ctx.setExit(1);
    return undefined;
  }
  return { state: result.state, sources };
}

/**
 * What planning `desired` must read: the least that the plan needs, and — when a guide is
 * protected and `prune.groups` may delete groups — the members of every group, so that deleting
 * a group that holds a protected guide is caught.
 */
export function planReadScope(desired: DesiredState): LiveReadScope {
  const scope = readScopeFor(desired);
  const protectsGuides = (desired.protect?.guides.length ?? 0) > 0;
  return desired.prune.groups && protectsGuides ? { ...scope, groupMembers: 'all' } : scope;
}

/** What the client reports (retries, calls), for progress lines and event streams. */
export interface ClientEvents {
  /** Adds a listener; returns the function that removes it. */
  listen(fn: (event: ClientEvent) => void): () => void;
}

/**
 * Opens the target chosen by flags and environment, runs `fn` with its client, always closes.
 * From here on a Ctrl-C or SIGTERM stops the command cleanly (see `CliIo.catchSignals`): the
 * client's calls are aborted by `signal`, the stop signal unless the command says otherwise.
 * With `lock`, an embedded local database is locked for the whole run (see `local-lock.ts`).
 */
export async function withClient<T>(
  ctx: CommandContext,
  options: TargetOptions,
  fn: (client: GuideClient, events: ClientEvents) => Promise<T>,
  settings: { readonly signal?: AbortSignal; readonly lock?: TargetLock } = {},
): Promise<T> {
  ctx.io.catchSignals?.();
  const target = resolveTarget(
    ctx.io.env,
    {
      ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
      ...(options.localDb === undefined ? {} : { localDb: options.localDb }),
    },
    ctx.io.cwd,
  );
  const listeners = new Set<(event: ClientEvent) => void>();
  const open = await openTarget(
    target,
    ctx.io,
    {
      parallelism: options.parallelism,
      ...timingOptions(options),
      signal: settings.signal ?? ctx.io.stopSignal,
      // Apply reads everything again after its calls, so appends need no read before them.
      readBeforeAppends: false,
      onEvent: (event) => {
        if (options.verbose) {
          const line = describeEvent(event);
          if (line !== undefined) ctx.io.stderr.write(`${line}\n`);
        }
        for (const listener of listeners) listener(event);
      },
    },
    settings.lock,
  );
  const events: ClientEvents = {
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  try {
    return await fn(open.client, events);
  } finally {
    await open.close();
  }
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
  const progress = createProgress(ctx.io, 'Reading');
  const unlisten = events?.listen((event) => {
    if (event.type === 'retry') progress.retried(event.callId);
  });
  try {
    return await readLiveState(reader, scope, {
      onProgress: ({ done, known }) => progress.update(done, known),
    });
  } catch (error) {
    if (ctx.io.stopSignal.aborted) throw new InterruptedError('interrupted while reading the live state');
    throw error;
  } finally {
    unlisten?.();
    progress.finish();
  }
}

/**
 * Plans, then checks protection on the plan; prints plan errors and warnings; undefined (exit 1
 * set) when the plan cannot be made or breaks a protection.
 */
export function makePlan(
  ctx: CommandContext,
  files: LoadedFiles,
  live: LiveState,
  onFailure?: FailureSink,
): Plan | undefined {
  const result = planChanges(files.state, live);
  const diagnostics = [
    ...result.diagnostics,
    ...(result.plan === undefined ? [] : checkProtection(files.state, live, result.plan)),
  ];
  const text = printDiagnostics(ctx, diagnostics, files.sources);
  if (result.plan === undefined || hasErrors(diagnostics)) {
    ctx.io.stderr.write('guidectl: the plan cannot be made; nothing was changed\n');
    onFailure?.('the plan cannot be made', text, diagnostics);
    ctx.setExit(1);
    return undefined;
  }
  return result.plan;
}

/** Options of the deletion guards, shared by plan and apply. */
export interface GuardOptions {
  allowDelete: Partial<Record<DeleteKind, number>>;
  maxDeletes: Partial<Record<DeleteKind, number>>;
  maxDeleteShare?: number;
}

/** Adds the deletion-guard flags. */
export function guardOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--allow-delete <kind=n>',
        'allow this run to delete at most N guides, groups or memberships, whatever the guard (e.g. guides=12); repeatable',
      )
        .argParser(kindCounts('--allow-delete'))
        .default({}, 'none'),
    )
    .addOption(
      new Option(
        '--max-deletes <kind=n>',
        'the deletion guard: most guides, groups or memberships a plan may delete (overrides safety.max_deletes); repeatable',
      )
        .argParser(kindCounts('--max-deletes'))
        .default({}, '10 each'),
    )
    .option(
      '--max-delete-share <share>',
      'the deletion guard: largest share of the live count a plan may delete, 0.25 or 25% (overrides safety.max_delete_share) (default: 25%)',
      parseShare,
    );
}

export function guardFlags(options: GuardOptions): GuardFlags {
  return {
    allowDelete: options.allowDelete,
    maxDeletes: options.maxDeletes,
    ...(options.maxDeleteShare === undefined ? {} : { maxDeleteShare: options.maxDeleteShare }),
  };
}

/**
 * The deletion guards of `plan` against `live`, under the files' `safety` settings and this run's
 * flags (flags win).
 */
export function deleteGuards(
  safety: Pick<SafetyPolicy, 'maxDeletes' | 'maxDeleteShare'> | undefined,
  plan: Plan,
  live: LiveState,
  options: GuardOptions,
): GuardResult[] {
  const policy = resolveGuardPolicy(safety, guardFlags(options));
  return checkDeleteGuards(countDeletes(plan), countLive(live), policy);
}

/** Parses `guides=12` (or `guides=12,groups=2`) into counts by kind, merged with earlier ones. */
export function kindCounts(
  flag: string,
): (value: string, previous: Partial<Record<DeleteKind, number>>) => Partial<Record<DeleteKind, number>> {
  return (value, previous) => {
    const out = { ...previous };
    for (const part of value.split(',')) {
      const match = /^\s*([a-z]+)\s*=\s*([0-9]+)\s*$/.exec(part);
      const kind = DELETE_KINDS.find((k) => k === match?.[1]);
      const n = Number(match?.[2]);
      if (match === null || kind === undefined || !Number.isSafeInteger(n)) {
        throw new InvalidArgumentError(
          `${flag} takes KIND=N, where KIND is guides, groups or memberships and N a whole number, e.g. ${flag} guides=12; not ${JSON.stringify(part)}.`,
        );
      }
      out[kind] = n;
    }
    return out;
  };
}

/** Parses a share: `0.25` or `25%`, from 0 to 1. */
export function parseShare(value: string): number {
  const match = /^\s*([0-9]+(?:\.[0-9]+)?)\s*(%?)\s*$/.exec(value);
  const n = match === null ? Number.NaN : Number(match[1]) / (match[2] === '%' ? 100 : 1);
  if (!(n >= 0 && n <= 1)) {
    throw new InvalidArgumentError('--max-delete-share takes a share from 0 to 1, as 0.25 or 25%.');
  }
  return n;
}
