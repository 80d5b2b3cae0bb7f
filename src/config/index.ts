import type { DesiredState } from '../core/desired.js';
import { countDiagnostics, type Diagnostic, hasErrors, sortDiagnostics } from '../core/diagnostics.js';
import { UsageError } from '../core/errors.js';
import { displayPath } from '../core/paths.js';
import { checkRules, type RuleFile } from './check-rules.js';
import { checkSchema, loadSchema } from './check-schema.js';
import {
  type ConfigFs,
  DEFAULT_MAX_FILE_BYTES,
  loadFiles,
  nodeConfigFs,
  type SourceFile,
} from './load-files.js';
import { normalise, type ValidFile } from './normalise.js';
import { parseYaml } from './parse-yaml.js';
import { readRecipientsFiles } from './recipients-file.js';

export type { ConfigFs, SourceFile } from './load-files.js';
export { DEFAULT_MAX_FILE_BYTES, isConfigFileName } from './load-files.js';

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
}

export interface LoadDesiredStateResult {
  /** The normalised desired state; present exactly when no diagnostic is an error. */
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
}

/**
 * Reads the desired state from files and folders: YAML with source positions, the JSON Schema,
 * the semantic rules, then normalisation. Mistakes in the files are returned as diagnostics, all
 * of them at once; only a broken installation (the schema file missing) throws.
 *
 * Each path is a YAML file or a folder of `*.yaml`/`*.yml` files (not recursive); everything is
 * merged into one state. No network, no output.
 */
export async function loadDesiredState(
  paths: readonly string[],
  options: LoadDesiredStateOptions = {},
): Promise<LoadDesiredStateResult> {
  if (paths.length === 0) throw new UsageError('no file or folder given');
  const { cwd } = options;
  const schema = await loadSchema(options.schemaFile);

  const loaded = await loadFiles(paths, {
    fs: options.fs ?? nodeConfigFs,
    ...(cwd === undefined ? {} : { cwd }),
    maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
  });
  const diagnostics: Diagnostic[] = [...loaded.diagnostics];

  const valid: ValidFile[] = [];
  const ruleFiles: RuleFile[] = [];
  const shown: SourceFile[] = [];
  const formatKeys = Object.keys(schema.schema['properties'] ?? {});
  for (const source of loaded.files) {
    const { parsed, diagnostics: yamlDiagnostics, notMapping } = parseYaml(source.file, source.text);
    for (const d of yamlDiagnostics) diagnostics.push(d);
    if (notMapping === true) continue;
    if (parsed !== undefined && !looksLikeDesiredState(parsed.value, formatKeys)) {
      diagnostics.push(notDesiredState(source.file, formatKeys));
      continue;
    }
    shown.push(source);
    if (parsed === undefined) continue;
    const { written, parts, diagnostics: schemaDiagnostics } = checkSchema(parsed, schema);
    for (const d of schemaDiagnostics) diagnostics.push(d);
    if (parts !== undefined) ruleFiles.push({ parsed, parts });
    if (written !== undefined) valid.push({ parsed, written });
  }

  // With a file missing or broken, a group member may be a guide defined in what could not be read.
  const complete = !hasErrors(diagnostics);
  const rules = checkRules(ruleFiles, { complete, displayPath: (file) => displayPath(file, cwd) });
  for (const d of rules) diagnostics.push(d);
  const { recipients, diagnostics: recipientProblems } = await readRecipientsFiles(
    ruleFiles,
    options.fs ?? nodeConfigFs,
    options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
  );
  for (const d of recipientProblems) diagnostics.push(d);

  const sorted = capDiagnostics(
    withoutRepeats(
      sortDiagnostics(
        diagnostics,
        loaded.files.map((f) => f.file),
      ),
    ),
  );
  if (hasErrors(sorted)) return { diagnostics: sorted, files: shown };
  return { state: normalise(valid, recipients), diagnostics: sorted, files: shown };
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
    file: first?.file ?? '',
    line: first?.line ?? 1,
    column: first?.column ?? 1,
  };
  return [...sorted.slice(0, MAX_DIAGNOSTICS), summary];
}
