import type { Diagnostic } from '../core/diagnostics.js';
import type { OutputChunk } from '../report/apply-output.js';
import { renderDiagnostics } from '../report/diagnostic-text.js';
import type { CommandContext } from './io.js';

// What every command prints the same way. Its own module, so that the commands that read no
// account (validate, envs, show) do not load session.ts and, through it, the target and the planner.

/** Colour on a stream: only on a terminal, without `--no-color`, and with NO_COLOR unset or empty. */
export function useColor(ctx: CommandContext, stream: 'stdout' | 'stderr'): boolean {
  const value = ctx.io.env['NO_COLOR'];
  return ctx.io[stream].isTTY && ctx.colorFlag() && (value === undefined || value === '');
}

/**
 * Told why a command failed before it had a plan to show: a headline and the diagnostics (for
 * `--json`, which prints them as `validate --json` does, and `plan --markdown`, whose comment must
 * say why there is no plan).
 */
export type FailureSink = (
  headline: string,
  diagnostics: readonly Diagnostic[],
  sources: ReadonlyMap<string, string>,
) => void;

/** The diagnostics on stderr (in colour on a terminal), each with the line of its file it is about. */
export function printDiagnostics(
  ctx: CommandContext,
  diagnostics: readonly Diagnostic[],
  sources: ReadonlyMap<string, string>,
): void {
  if (diagnostics.length === 0) return;
  ctx.io.stderr.write(
    renderDiagnostics(diagnostics, { cwd: ctx.io.cwd, color: useColor(ctx, 'stderr'), sources }),
  );
}

/**
 * No plan can be shown (`headline`: the files have errors, the plan cannot be made): the
 * diagnostics and a line saying so on stderr, the failure told to `onFailure`, exit 1.
 */
export function reportNoPlan(
  ctx: CommandContext,
  headline: string,
  failure: {
    readonly diagnostics: readonly Diagnostic[];
    readonly sources: ReadonlyMap<string, string>;
    /** What was not done, after the headline: `nothing was changed`. */
    readonly outcome: string;
  },
  onFailure?: FailureSink,
): void {
  printDiagnostics(ctx, failure.diagnostics, failure.sources);
  ctx.io.stderr.write(`guidectl: ${headline}; ${failure.outcome}\n`);
  onFailure?.(headline, failure.diagnostics, failure.sources);
  ctx.setExit(1);
}

/** Writes each chunk of a report to its stream, in order. */
export function writeChunks(ctx: CommandContext, chunks: readonly OutputChunk[]): void {
  for (const chunk of chunks) ctx.io[chunk.to].write(chunk.text);
}
