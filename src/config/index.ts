import type { DesiredState } from '../core/desired.js';
import { countDiagnostics, type Diagnostic, hasErrors, sortDiagnostics } from '../core/diagnostics.js';
import type { DeclaredEnvironment } from '../core/environments.js';
import { UsageError } from '../core/errors.js';
import { displayPath } from '../core/paths.js';
import { ifDefined } from '../core/records.js';
import {
  type CheckInput,
  checkEnvironment,
  mergeEnvironmentDiagnostics,
  recipientsFilesOf,
} from './check-environment.js';
import { type CompiledSchema, loadSchema } from './check-schema.js';
import { checkLoneSurrogates } from './check-text.js';
import {
  checkReferences,
  declaredEnvironments,
  type Environment,
  EnvironmentFile,
} from './environment-file.js';
import { nullListsAsNone } from './none-lists.js';
import { parseYaml } from './parse-yaml.js';
import { readRecipientsFiles } from './recipients-file.js';
import {
  type ConfigFs,
  DEFAULT_MAX_FILE_BYTES,
  nodeConfigFs,
  readSourceFiles,
  type SourceFile,
} from './source-files.js';
import { suggest } from './suggest.js';

export { isConfigFileName } from './file-names.js';
export type { ConfigFs, SourceFile } from './source-files.js';
export { DEFAULT_MAX_FILE_BYTES } from './source-files.js';

export interface LoadDesiredStateOptions {
  /**
   * Relative paths are resolved against this folder, and messages that name another file name it
   * relative to this folder. Without it, paths are used as given.
   */
  readonly cwd?: string;
  /** The file-system reads; defaults to node:fs/promises. */
  readonly fs?: ConfigFs;
  /** Files larger than this are refused unread; default {@link DEFAULT_MAX_FILE_BYTES}. */
  readonly maxFileBytes?: number;
  /** The JSON Schema to check against; defaults to the package's `schema/guidectl.schema.json`. */
  readonly schemaFile?: string;
  /**
   * The environment (of the files' `environments:`) whose desired state is wanted; only it is
   * checked. Absent: every environment is checked and `states` holds each one's state.
   */
  readonly environment?: string;
  /**
   * Told the size in bytes of the files once they are read, before they are parsed (a caller
   * may size its heap by it: parsing is where the memory goes).
   */
  readonly beforeParse?: (bytes: number) => void;
}

export interface LoadDesiredStateResult {
  /**
   * The normalised desired state; present exactly when no diagnostic is an error and, when the
   * files declare environments, one was chosen (`environment`).
   */
  readonly state?: DesiredState;
  /** Every problem found, errors and warnings, in the order of `sortDiagnostics` (by file, line, column). */
  readonly diagnostics: readonly Diagnostic[];
  /**
   * The desired-state files that were read, in load order, with their text (for showing the lines
   * of diagnostics). A file that is not one (not a YAML mapping, or a mapping with neither
   * "version" nor any key of the format) is left out, so that its lines are never shown: it may
   * be a `.env` file or a key that a link or a wrong path brought in.
   */
  readonly files: readonly SourceFile[];
  /** The environments the files declare, in the order written; absent when they declare none. */
  readonly environments?: readonly DeclaredEnvironment[];
  /** The desired state of each environment checked, by name, when no diagnostic is an error. */
  readonly states?: ReadonlyMap<string, DesiredState>;
  /**
   * The values of the one environment chosen (`environment`), as written, by name: what
   * `export --as-environment-file` writes back as references. Absent when none was chosen.
   */
  readonly values?: ReadonlyMap<string, string>;
}

/**
 * Reads the desired state from files and folders: YAML with source positions, the JSON Schema,
 * the semantic rules, then normalisation. Mistakes in the files are returned as diagnostics, all
 * of them at once; only a broken installation (the schema file missing) throws, and a chosen
 * environment that the files do not declare (a UsageError).
 *
 * Each path is a YAML file or a folder of `*.yaml`/`*.yml` files (not recursive); everything is
 * merged into one state. No network, no output.
 */
export async function loadDesiredState(
  paths: readonly string[],
  options: LoadDesiredStateOptions = {},
): Promise<LoadDesiredStateResult> {
  const config = await loadConfig(paths, options);
  return options.environment === undefined ? config.check() : config.desiredState(options.environment);
}

/**
 * Desired-state files read and parsed once, to be checked for each environment: what it costs per
 * environment is replacing its `${…}` (only the mappings and lists on the way to each are copied)
 * and the checks of what that changed, not reading and parsing the files again.
 */
export interface DesiredConfig {
  /** As {@link LoadDesiredStateResult.files}. */
  readonly files: readonly SourceFile[];
  /** The environments the files declare, in the order written (never a secret); absent when none. */
  readonly environments?: readonly DeclaredEnvironment[];
  /**
   * The errors found before any environment is checked: paths and files that cannot be read, YAML
   * syntax, the `environments:` declarations and `${…}` references; sorted as `check` sorts them.
   * When they hide the environments (a misspelt path), they say why none is declared.
   */
  readonly readErrors: readonly Diagnostic[];
  /**
   * Checks the files in every environment, or in those named; files that declare no environment
   * are checked as written (then `state` is their desired state). Throws a UsageError for a name
   * that the files do not declare.
   */
  check(environments?: readonly string[]): LoadDesiredStateResult;
  /** The desired state of one environment (`state`), with the diagnostics of that environment. */
  desiredState(environment: string): LoadDesiredStateResult;
}

/** Reads, parses and checks what does not depend on an environment; see {@link DesiredConfig}. */
export async function loadConfig(
  paths: readonly string[],
  options: LoadDesiredStateOptions = {},
): Promise<DesiredConfig> {
  // A JavaScript caller gets no type check: one path given as a string would be read letter by letter.
  const given: unknown = paths;
  if (!Array.isArray(given) || !given.every((p) => typeof p === 'string'))
    throw new UsageError(
      `the paths to read must be an array of file or folder paths, such as ["guides.yaml"], not ${
        Array.isArray(given)
          ? 'an array holding other values'
          : given === undefined
            ? 'undefined'
            : `a ${typeof given}`
      }`,
    );
  if (paths.length === 0) throw new UsageError('no file or folder given');
  const { cwd } = options;
  const schema = await loadSchema(options.schemaFile);
  const loaded = await readSourceFiles(paths, {
    fs: options.fs ?? nodeConfigFs,
    ...ifDefined('cwd', cwd),
    maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
  });
  options.beforeParse?.(loaded.bytes);
  const common: Diagnostic[] = [...loaded.diagnostics];
  const { files, shown } = parseFiles(loaded.files, schema, common);
  const show = (file: string): string => displayPath(file, cwd);
  const declared = declaredEnvironments(files, show);
  for (const d of declared.diagnostics) common.push(d);
  for (const d of checkReferences(files, declared.environments)) common.push(d);
  // Read once for all the environments: each path as each environment names it.
  const views = declared.environments?.length ? declared.environments : [undefined];
  const recipientsFiles = await readRecipientsFiles(
    files.map((f) => ({
      file: f.parsed.file,
      paths: new Set(views.flatMap((e) => recipientsFilesOf(f, e).map((r) => r.path))),
    })),
    options.fs ?? nodeConfigFs,
    options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
  );
  const input: CheckInput = {
    schema,
    files,
    common,
    environments: declared.environments ?? [],
    recipientsFiles,
    itemErrors: new WeakMap(),
    displayPath: show,
  };
  return configOf(
    input,
    declared.environments,
    shown,
    loaded.files.map((f) => f.file),
  );
}

/** Parses each file, leaving out (with a diagnostic) what is not a desired-state file. */
function parseFiles(
  sources: readonly SourceFile[],
  schema: CompiledSchema,
  diagnostics: Diagnostic[],
): { files: EnvironmentFile[]; shown: SourceFile[] } {
  const files: EnvironmentFile[] = [];
  const shown: SourceFile[] = [];
  const formatKeys = Object.keys(schema.schema['properties'] ?? {});
  for (const source of sources) {
    const { parsed, diagnostics: yamlDiagnostics, notMapping } = parseYaml(source.file, source.text);
    if (parsed === undefined && notMapping !== true) {
      // Not read to the end: the file is known to be a desired-state file only from its "version:"
      // line on, and the lines before it (or all, without one) may be a secret's.
      const known = versionLine(source.text);
      for (const d of yamlDiagnostics)
        diagnostics.push(known !== undefined && d.line >= known ? d : { ...d, mayHoldSecret: true });
    } else {
      for (const d of yamlDiagnostics) diagnostics.push(d);
    }
    if (notMapping === true) continue;
    if (parsed !== undefined && !looksLikeDesiredState(parsed.value, formatKeys)) {
      diagnostics.push(notDesiredState(source.file, formatKeys));
      continue;
    }
    shown.push(source);
    if (parsed === undefined) continue;
    for (const d of checkLoneSurrogates(parsed, source.text)) diagnostics.push(d);
    files.push(new EnvironmentFile({ ...parsed, value: nullListsAsNone(parsed.value) }, source.text));
  }
  return { files, shown };
}

function configOf(
  input: CheckInput,
  environments: readonly Environment[] | undefined,
  files: readonly SourceFile[],
  fileOrder: readonly string[],
): DesiredConfig {
  const finish = (diagnostics: Diagnostic[]): Diagnostic[] =>
    capDiagnostics(withoutRepeats(sortDiagnostics(diagnostics, fileOrder)));
  const declared = environments?.map(
    ({ values: _values, refusedValues: _refused, ...environment }) => environment,
  );
  const check = (names?: readonly string[]): LoadDesiredStateResult => {
    // Declared but none readable (`environments: {}`, or every entry broken): checked as written.
    if (environments === undefined || environments.length === 0) {
      if (names !== undefined && names.length > 0 && !hasErrors(input.common)) {
        throw new UsageError(`no environment "${names[0]}": the files declare no environments`);
      }
      const checked = checkEnvironment(input, undefined);
      const diagnostics = finish([...input.common, ...checked.diagnostics.map((f) => f.diagnostic)]);
      const state = hasErrors(diagnostics) ? undefined : checked.state;
      return {
        ...ifDefined('state', state),
        diagnostics,
        files,
        ...(declared ? { environments: declared } : {}),
      };
    }
    const chosen =
      names === undefined ? environments : names.map((name) => environmentNamed(environments, name));
    const checks = chosen.map((environment) => ({
      environment,
      result: checkEnvironment(input, environment),
    }));
    const merged = mergeEnvironmentDiagnostics(
      checks.map(({ environment, result }) => ({ environment: environment.name, found: result.diagnostics })),
      environments.length,
    );
    const diagnostics = finish([...input.common, ...merged]);
    const states = new Map<string, DesiredState>();
    if (!hasErrors(diagnostics)) {
      for (const { environment, result } of checks)
        if (result.state) states.set(environment.name, result.state);
    }
    return { diagnostics, files, environments: declared ?? [], states };
  };
  return {
    files,
    ...ifDefined('environments', declared),
    readErrors: finish(input.common.filter((d) => d.severity === 'error')),
    check,
    desiredState: (name) => {
      const result = check([name]);
      const state = result.states?.get(name);
      const values = environments?.find((e) => e.name === name)?.values;
      return {
        ...result,
        ...ifDefined('state', state),
        ...ifDefined('values', values),
      };
    },
  };
}

/** The environment of this name; a UsageError naming the environments when there is none. */
export function environmentNamed<E extends { readonly name: string }>(
  environments: readonly E[],
  name: string,
): E {
  const found = environments.find((e) => e.name === name);
  if (found !== undefined) return found;
  const names = environments.map((e) => e.name);
  const guess = suggest(name, names);
  throw new UsageError(
    `no environment "${name}" in the files${guess === undefined ? '' : ` (did you mean "${guess}"?)`}; the environments are: ${names.join(', ')}`,
  );
}

/** The line (1-based) of the file's top-level `version:` key, undefined when no line starts with it. */
function versionLine(text: string): number | undefined {
  const at = text.search(/^(?:version|"version"|'version')[ \t]*:/m);
  if (at < 0) return undefined;
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** A mapping with "version" or at least one other key of the format. */
function looksLikeDesiredState(value: unknown, formatKeys: readonly string[]): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return formatKeys.some((key) => Object.hasOwn(value, key));
}

function notDesiredState(file: string, formatKeys: readonly string[]): Diagnostic {
  return {
    severity: 'error',
    code: 'file-not-desired-state',
    message: `this is not a desired-state file: it has none of the keys ${formatKeys.map((k) => `"${k}"`).join(', ')}; its lines are not shown`,
    hint: 'a desired-state file starts with "version: 1"; keep other YAML files out of the folder, or give the desired-state files by name',
    file,
    line: 1,
    column: 1,
  };
}

/**
 * Drops a diagnostic equal to the one before it (in sorted order, equal ones are neighbours): a
 * mistake in an anchored mapping that is merged or aliased in several places is one mistake, at
 * the one place it is written.
 */
function withoutRepeats(sorted: Diagnostic[]): Diagnostic[] {
  return sorted.filter((d, i) => {
    const p = sorted[i - 1];
    return (
      p === undefined ||
      p.file !== d.file ||
      p.line !== d.line ||
      p.column !== d.column ||
      p.code !== d.code ||
      p.message !== d.message
    );
  });
}

/**
 * At most this many diagnostics are returned, the first in the documented order, then one that
 * counts the rest: a file with 200,000 mistakes (generated, or not a desired-state file at all)
 * must not print 200,000 lines, and nobody fixes more than a hundred before running again.
 */
export const MAX_DIAGNOSTICS = 100;

function capDiagnostics(sorted: Diagnostic[]): Diagnostic[] {
  if (sorted.length <= MAX_DIAGNOSTICS) return sorted;
  const rest = sorted.slice(MAX_DIAGNOSTICS);
  const { errors, warnings } = countDiagnostics(rest);
  const first = rest[0];
  const parts = [
    ...(errors > 0 ? [`${errors.toLocaleString('en-US')} more error${errors === 1 ? '' : 's'}`] : []),
    ...(warnings > 0 ? [`${warnings.toLocaleString('en-US')} more warning${warnings === 1 ? '' : 's'}`] : []),
  ];
  const summary: Diagnostic = {
    severity: errors > 0 ? 'error' : 'warning',
    code: 'too-many-problems',
    message: `and ${parts.join(' and ')} not shown, from here on; only the first ${MAX_DIAGNOSTICS} are listed`,
    hint: 'fix the problems above and run again',
    notShown: { errors, warnings },
    file: first?.file ?? '',
    line: first?.line ?? 1,
    column: first?.column ?? 1,
    // Placed at the first problem not shown: its line is not shown either when it may be a secret.
    ...(first?.mayHoldSecret === true ? { mayHoldSecret: true } : {}),
  };
  return [...sorted.slice(0, MAX_DIAGNOSTICS), summary];
}
