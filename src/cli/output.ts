import type { Diagnostic } from '../core/diagnostics.js';
import { renderDiagnostics } from '../report/diagnostics.js';
import type { CommandContext } from './io.js';

// What every command prints the same way. Its own module, so that the commands that read no
// account (validate, envs, show) do not load session.ts and, through it, the target and the planner.

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

export function printDiagnostics(
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
