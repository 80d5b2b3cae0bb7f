import {
  type DesiredConfig,
  environmentNamed,
  type LoadDesiredStateOptions,
  type LoadDesiredStateResult,
  loadConfig,
} from '../config/index.js';
import type { DesiredState } from '../core/desired.js';
import { type Diagnostic, hasErrors } from '../core/diagnostics.js';
import type { DeclaredEnvironment } from '../core/environments.js';
import { UsageError } from '../core/errors.js';
import { displayPath } from '../core/paths.js';
import { ifDefined } from '../core/records.js';

/** Desired-state files loaded without an error: the state, and each file's text for diagnostics. */
export interface LoadedFiles {
  readonly state: DesiredState;
  /** Each file's text by its path, to quote the lines of later diagnostics (plan errors). */
  readonly sources: ReadonlyMap<string, string>;
  /** The environment of the files that `state` is (`--env NAME`); absent for files without environments. */
  readonly environment?: DeclaredEnvironment;
  /** The values of `environment` as written, by name (for `export --as-environment-file`). */
  readonly values?: ReadonlyMap<string, string>;
  /** The warnings of the files (they have no error), for outputs that carry them (`plan --json`). */
  readonly warnings?: readonly Diagnostic[];
}

/** The files, when they have no error; every diagnostic (warnings too); the texts either way. */
export interface LoadResult {
  readonly files?: LoadedFiles;
  readonly diagnostics: readonly Diagnostic[];
  readonly sources: ReadonlyMap<string, string>;
}

/** How files are read and checked, saying nothing: `loadFiles`, or files a run already read. */
export type ReadFiles = (paths: readonly string[], environment?: string) => Promise<LoadResult> | LoadResult;

/**
 * How a command loads its files in two steps, so that a load can be looked at before anything is
 * said of it (apply of a saved plan: were these the plan's files?): `read` reads and checks them
 * and says nothing (`loadFiles`, as a rule); `report` says what a read found (its diagnostics)
 * and gives the files when they have no error.
 */
export interface FilesLoad {
  read: ReadFiles;
  report(result: LoadResult): Promise<LoadedFiles | undefined>;
}

/** The files at `paths` read by `load`, as `environment` sees them, and reported: undefined when they have errors. */
export async function readAndReport(
  load: FilesLoad,
  paths: readonly string[],
  environment?: string,
): Promise<LoadedFiles | undefined> {
  return load.report(await load.read(paths, environment));
}

/**
 * Loads, checks and merges the files and folders at `paths` (relative to `cwd`), as `environment`
 * sees them when it is given. Files that declare environments need one (a UsageError naming them
 * otherwise, once what does not depend on an environment is found without error): a plan of one
 * account's values is never made against another's target. `beforeParse` is told how many bytes
 * were read, before they are parsed (see `loadDesiredState`).
 */
export async function loadFiles(
  paths: readonly string[],
  cwd: string,
  environment?: string,
  beforeParse?: (bytes: number) => void,
  /** Whether the command also takes `--all-envs` (plan and apply), for the message naming it. */
  allEnvs = false,
): Promise<LoadResult> {
  const config = await loadConfig(paths, { cwd, ...ifDefined('beforeParse', beforeParse) });
  if (environment !== undefined) return loadResultOf(config.desiredState(environment), environment);
  const declared = config.environments;
  if (declared === undefined) return loadResultOf(config.check());
  // No environment is checked (each is a full check) before the one to check is known.
  const common = config.check([]);
  if (hasErrors(common.diagnostics)) return loadResultOf(common);
  throw new UsageError(
    `the files declare environments (${declared.map((e) => e.name).join(', ')}): choose one with --env NAME${allEnvs ? ', or all of them with --all-envs' : ''}`,
  );
}

/**
 * `apply --all-envs`: the files at `paths` read and parsed once, then each environment's files
 * (as `loadFiles` gives them for `--env NAME`) without reading them again. A UsageError when the
 * files declare no environments (see {@link readAllEnvironments}). `read` may give the file-system
 * reads (node:fs by default) and be told the bytes read before they are parsed (see
 * `loadDesiredState`).
 */
export async function loadEachEnvironment(
  paths: readonly string[],
  cwd: string,
  read: Pick<LoadDesiredStateOptions, 'fs' | 'beforeParse'> = {},
): Promise<{ readonly names: readonly string[]; load(name: string): LoadResult }> {
  const { config, names } = await readAllEnvironments(paths, cwd, 'apply', read);
  return { names, load: (name) => loadResultOf(config.desiredState(name), name) };
}

/**
 * What `--all-envs` starts from, `plan`'s and `apply`'s: the files at `paths` read and parsed
 * once, and the names of the environments they declare, in the order declared. A UsageError when
 * they declare none: what kept them from being read when that hides them (a misspelt path, a file
 * that is not YAML), else that `--all-envs` works on the environments of "environments:".
 */
export async function readAllEnvironments(
  paths: readonly string[],
  cwd: string,
  command: 'plan' | 'apply',
  read: Pick<LoadDesiredStateOptions, 'fs' | 'beforeParse'> = {},
): Promise<{ readonly config: DesiredConfig; readonly names: readonly string[] }> {
  const config = await loadConfig(paths, { ...read, cwd });
  const names = (config.environments ?? []).map((e) => e.name);
  if (names.length > 0) return { config, names };
  if (config.readErrors.length > 0) throw cannotRead(config.readErrors, cwd);
  const does = command === 'plan' ? 'plans' : 'applies';
  throw new UsageError(
    `the files declare no environments: --all-envs ${does} each environment of "environments:"`,
  );
}

/** What `loadFiles` gives for a checked result: the files only when they have no error. */
function loadResultOf(result: LoadDesiredStateResult, environment?: string): LoadResult {
  const sources = new Map(result.files.map((f) => [f.file, f.text]));
  const { state, diagnostics, environments } = result;
  if (state === undefined || hasErrors(diagnostics)) return { diagnostics, sources };
  const chosen = environments?.find((e) => e.name === environment);
  const files: LoadedFiles = {
    state,
    sources,
    ...ifDefined('environment', chosen),
    ...ifDefined('values', result.values),
    ...(diagnostics.length === 0 ? {} : { warnings: diagnostics }),
  };
  return { files, diagnostics, sources };
}

/**
 * The environment `name` as the files at `paths` declare it, for a command that reads the files
 * only for that (`export --env`): the files' other problems do not matter here, as long as the
 * environment can be read. A UsageError when a path does not exist (with a near name if there is
 * one, as `plan` says), when the files declare none or none of that name, and then with what kept
 * the files from being read (a file that is not YAML).
 */
export async function declaredEnvironment(
  paths: readonly string[],
  cwd: string,
  name: string,
): Promise<DeclaredEnvironment> {
  const config = await loadConfig(paths, { cwd });
  const environments = config.environments ?? [];
  const missing = config.readErrors.filter((d) => d.code === 'path-not-found');
  const found = environments.find((e) => e.name === name);
  if (missing.length > 0 || (found === undefined && config.readErrors.length > 0)) {
    throw cannotRead(missing.length > 0 ? missing : config.readErrors, cwd);
  }
  if (environments.length > 0) return environmentNamed(environments, name);
  throw new UsageError(`no environment "${name}": the files ${paths.join(', ')} declare no environments`);
}

/**
 * The environment that `--env NAME --files PATH…` choose, for the commands that read the files
 * only to reach its account (tasks, chats, qrcode, path-menu, api): undefined when neither flag
 * is given, a UsageError when one is given without the other, else as {@link declaredEnvironment}.
 */
export async function environmentOfFlags(
  flags: { readonly env?: string | undefined; readonly files?: readonly string[] | undefined },
  cwd: string,
): Promise<DeclaredEnvironment | undefined> {
  const { env, files } = flags;
  if (env === undefined && files === undefined) return undefined;
  if (env === undefined || files === undefined)
    throw new UsageError('--env and --files go together: the files say where the environment is');
  return declaredEnvironment(files, cwd, env);
}

/** The environments cannot be read for `errors` (the first of them said, as {@link describeReadErrors} says them). */
function cannotRead(errors: readonly Diagnostic[], cwd: string): UsageError {
  return new UsageError(`the environments of the files cannot be read: ${describeReadErrors(errors, cwd)}`);
}

/** The first read errors as `file:line:col: message` (one line, or a list of at most 3). */
function describeReadErrors(errors: readonly Diagnostic[], cwd: string): string {
  const line = (d: Diagnostic): string => `${displayPath(d.file, cwd)}:${d.line}:${d.column}: ${d.message}`;
  const [first] = errors;
  if (errors.length === 1 && first !== undefined) return line(first);
  const shown = errors.slice(0, 3).map((d) => `  ${line(d)}`);
  const more = errors.length > shown.length ? [`  and ${errors.length - shown.length} more`] : [];
  return `the files have ${errors.length} errors:\n${[...shown, ...more].join('\n')}`;
}
