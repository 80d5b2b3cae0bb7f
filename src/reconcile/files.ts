import { loadDesiredState } from '../config/index.js';
import type { DesiredState } from '../core/desired.js';
import { type Diagnostic, hasErrors } from '../core/diagnostics.js';

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
  const { state, diagnostics } = result;
  return state === undefined || hasErrors(diagnostics)
    ? { diagnostics, sources }
    : { files: { state, sources }, diagnostics, sources };
}
