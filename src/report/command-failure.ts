import type { Diagnostic } from '../core/diagnostics.js';
import { errorMessage, errorStack, GuidectlError, InvalidFilesError } from '../core/errors.js';
import { escapeControlsKeepingLines } from './escape.js';

/**
 * What a command that failed with `error` prints: on stderr one line (`guidectl: MESSAGE`), or a
 * stack trace for a bug (an error that is not a GuidectlError); with `json` (a command given
 * `--json` that printed nothing yet), on stdout first the failure as one JSON object, as `plan
 * --json` and `apply --json` print theirs (with the files' diagnostics when they are why), so that
 * a script reading stdout never reads nothing.
 */
export async function renderCommandFailure(
  error: unknown,
  options: { readonly json: boolean; readonly cwd: string },
): Promise<{ readonly stdout: string; readonly stderr: string }> {
  const internal = 'internal error (please report it):';
  const known = error instanceof GuidectlError;
  const message = known ? error.message : `${internal} ${errorMessage(error)}`;
  const diagnostics = error instanceof InvalidFilesError ? error.diagnostics : [];
  return {
    stdout: options.json ? await renderFailureJson(message, diagnostics, options.cwd) : '',
    stderr: `guidectl: ${known ? escapeControlsKeepingLines(message) : `${internal}\n${errorStack(error)}`}\n`,
  };
}

/** The object of `failureToJson`, loaded only then: report/plan.ts loads the diff package. */
async function renderFailureJson(
  error: string,
  diagnostics: readonly Diagnostic[],
  cwd: string,
): Promise<string> {
  const { failureToJson } = await import('./plan.js');
  return `${JSON.stringify(failureToJson(error, diagnostics, { cwd }), null, 2)}\n`;
}
