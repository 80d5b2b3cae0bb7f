import { loadConfig, loadDesiredState } from '../config/index.js';
import type { DesiredState } from '../core/desired.js';
import { type Diagnostic, hasErrors } from '../core/diagnostics.js';
import type { DeclaredEnvironment } from '../core/environments.js';
import { UsageError } from '../core/errors.js';

/** Desired-state files loaded without an error: the state, and each file's text for diagnostics. */
export interface LoadedFiles {
  readonly state: DesiredState;
  /** Each file's text by its path, to quote the lines of later diagnostics (plan errors). */
  readonly sources: ReadonlyMap<string, string>;
  /** The environment of the files that `state` is (`--env NAME`); absent for files without environments. */
  readonly environment?: DeclaredEnvironment;
  /** The values of `environment` as written, by name (for `export --as-environment-file`). */
  readonly values?: ReadonlyMap<string, string>;
}

/** The files, when they have no error; every diagnostic (warnings too); the texts either way. */
export interface LoadResult {
  readonly files?: LoadedFiles;
  readonly diagnostics: readonly Diagnostic[];
  readonly sources: ReadonlyMap<string, string>;
}

/**
 * Loads, checks and merges the files and folders at `paths` (relative to `cwd`), as `environment`
 * sees them when it is given. Files that declare environments need one (a UsageError naming them
 * otherwise): a plan of one account's values is never made against another's target.
 * `beforeParse` is told how many bytes were read, before they are parsed (see `loadDesiredState`).
 */
export async function loadFiles(
  paths: readonly string[],
  cwd: string,
  environment?: string,
  beforeParse?: (bytes: number) => void,
): Promise<LoadResult> {
  const result = await loadDesiredState(paths, {
    cwd,
    ...(environment === undefined ? {} : { environment }),
    ...(beforeParse === undefined ? {} : { beforeParse }),
  });
  const sources = new Map(result.files.map((f) => [f.file, f.text]));
  const { state, diagnostics, environments } = result;
  if (environments !== undefined && environment === undefined && !hasErrors(diagnostics)) {
    throw new UsageError(
      `the files declare environments (${environments.map((e) => e.name).join(', ')}): choose one with --env NAME`,
    );
  }
  const chosen = environments?.find((e) => e.name === environment);
  return state === undefined || hasErrors(diagnostics)
    ? { diagnostics, sources }
    : {
        files: {
          state,
          sources,
          ...(chosen === undefined ? {} : { environment: chosen }),
          ...(result.values === undefined ? {} : { values: result.values }),
        },
        diagnostics,
        sources,
      };
}

/**
 * The environments the files at `paths` declare, in the order written, for a command that reads
 * the files only for that (`export --env`, `apply --all-envs`): the files' other problems do not
 * matter here, as long as the environments can be read. A UsageError saying `none` when there are none.
 */
async function environmentsOf(
  paths: readonly string[],
  cwd: string,
  none: string,
): Promise<readonly DeclaredEnvironment[]> {
  const environments = (await loadConfig(paths, { cwd })).environments ?? [];
  if (environments.length === 0) throw new UsageError(none);
  return environments;
}

/** The environment `name` as the files at `paths` declare it: a UsageError when they do not. */
export async function declaredEnvironment(
  paths: readonly string[],
  cwd: string,
  name: string,
): Promise<DeclaredEnvironment> {
  const none = `no environment "${name}": the files ${paths.join(', ')} declare no environments`;
  const environments = await environmentsOf(paths, cwd, none);
  const found = environments.find((e) => e.name === name);
  if (found !== undefined) return found;
  throw new UsageError(
    `no environment "${name}" in the files; the environments are: ${environments.map((e) => e.name).join(', ')}`,
  );
}

/** The names of the environments the files at `paths` declare, in the order written (`--all-envs`). */
export async function declaredEnvironmentNames(paths: readonly string[], cwd: string): Promise<string[]> {
  const none = 'the files declare no environments: --all-envs applies each environment of "environments:"';
  return (await environmentsOf(paths, cwd, none)).map((e) => e.name);
}
