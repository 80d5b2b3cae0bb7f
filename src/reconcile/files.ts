import { loadDesiredState } from '../config/index.js';
import type { DesiredState } from '../core/desired.js';
import { type Diagnostic, hasErrors } from '../core/diagnostics.js';
import { UsageError } from '../core/errors.js';

/** Desired-state files loaded without an error: the state, and each file's text for diagnostics. */
export interface LoadedFiles {
  readonly state: DesiredState;
  /** Each file's text by its path, to quote the lines of later diagnostics (plan errors). */
  readonly sources: ReadonlyMap<string, string>;
}

/** The files, when they have no error; every diagnostic (warnings too); the texts either way. */
export interface LoadResult {
  readonly files?: LoadedFiles;
  readonly diagnostics: readonly Diagnostic[];
  readonly sources: ReadonlyMap<string, string>;
}

/** Loads, checks and merges the files and folders at `paths` (relative to `cwd`). */
export async function loadFiles(paths: readonly string[], cwd: string): Promise<LoadResult> {
  const result = await loadDesiredState(paths, { cwd });
  const sources = new Map(result.files.map((f) => [f.file, f.text]));
  const { state, diagnostics, environments } = result;
  // Which environment to plan is chosen with its target (--env NAME), which comes with target
  // selection; until then a file with environments is never planned as if it had none.
  if (environments !== undefined && !hasErrors(diagnostics)) {
    throw new UsageError(
      `the files declare environments (${environments.map((e) => e.name).join(', ')}); plan and apply do not read files with environments yet: "guidectl validate" checks them`,
    );
  }
  return state === undefined || hasErrors(diagnostics)
    ? { diagnostics, sources }
    : { files: { state, sources }, diagnostics, sources };
}
