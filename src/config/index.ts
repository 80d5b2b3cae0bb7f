import * as nodePath from 'node:path';
import type { DesiredState } from '../core/desired.js';
import { type Diagnostic, hasErrors, sortDiagnostics } from '../core/diagnostics.js';
import { UsageError } from '../core/errors.js';
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
  /** The files that were read, in load order, with their text (for showing the lines of diagnostics). */
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
  for (const source of loaded.files) {
    const { parsed, diagnostics: yamlDiagnostics } = parseYaml(source.file, source.text);
    diagnostics.push(...yamlDiagnostics);
    if (parsed === undefined) continue;
    const { written, parts, diagnostics: schemaDiagnostics } = checkSchema(parsed, schema);
    diagnostics.push(...schemaDiagnostics);
    if (parts !== undefined) ruleFiles.push({ parsed, parts });
    if (written !== undefined) valid.push({ parsed, written });
  }

  // With a file missing or broken, a group member may be a guide defined in what could not be read.
  const complete = !hasErrors(diagnostics);
  diagnostics.push(
    ...checkRules(ruleFiles, {
      complete,
      displayPath: (file) => displayPath(file, cwd),
    }),
  );

  const sorted = sortDiagnostics(
    diagnostics,
    loaded.files.map((f) => f.file),
  );
  if (hasErrors(sorted)) return { diagnostics: sorted, files: loaded.files };
  return { state: normalise(valid), diagnostics: sorted, files: loaded.files };
}

/** A file as it is shown to the user: relative to `cwd` (the same rule as the renderers in `report/`). */
function displayPath(file: string, cwd: string | undefined): string {
  if (cwd === undefined || !nodePath.isAbsolute(file)) return file;
  const relative = nodePath.relative(cwd, file);
  const outside = relative === '' || relative === '..' || relative.startsWith(`..${nodePath.sep}`);
  return outside || nodePath.isAbsolute(relative) ? file : relative;
}
