import type { ErrorObject } from 'ajv/dist/2020.js';
import type { DesiredState } from '../core/desired.js';
import { type Diagnostic, hasErrors, quote } from '../core/diagnostics.js';
import type { Span, SpanPart, ValuePath } from '../core/positions.js';
import { ifDefined, isRecord } from '../core/records.js';
import type { WrittenParts } from '../core/written.js';
import type { RuleFile } from '../kinds/config-port.js';
import { checkRules } from './check-rules.js';
import { type CompiledSchema, checkSchema } from './check-schema.js';
import { type Environment, type EnvironmentFile, existsIn, missingValues } from './environment-file.js';
import { mergeFiles, type ValidFile } from './merge-files.js';
import type { ParsedYaml } from './parse-yaml.js';
import {
  type RecipientsFileRead,
  recipientsFileKey,
  recipientsFileTasks,
  recipientsKey,
} from './recipients-file.js';
import { fillTemplate, replaceStrings, type StringUse } from './substitute-values.js';

/** What the checks of one environment (or of files without environments) need, made once per load. */
export interface CheckInput {
  readonly schema: CompiledSchema;
  readonly files: readonly EnvironmentFile[];
  /** The problems found before any environment is checked (files, YAML, references). */
  readonly common: readonly Diagnostic[];
  /** Every declared environment (for "another environment has this value"). */
  readonly environments: readonly Environment[];
  /**
   * The files of recipients the tasks name, in every environment, by `recipientsFileKey` (see
   * {@link recipientsFilesOf}); their problems are not counted when the rules ask whether the
   * files are complete.
   */
  readonly recipientsFiles: ReadonlyMap<string, RecipientsFileRead>;
  /** The schema's errors of each guide and group, shared by the environments checked. */
  readonly itemErrors: WeakMap<object, readonly ErrorObject[]>;
  readonly displayPath: (file: string) => string;
}

/**
 * A diagnostic found while checking one environment, with the values of the `${…}` it points at
 * (when it points at one): the same problem in several environments is reported once.
 */
export interface EnvironmentDiagnostic {
  readonly diagnostic: Diagnostic;
  readonly note?: string;
  /** Set when the problem is the same in every environment (in the `environments:` declarations). */
  readonly everywhere?: true;
}

export interface EnvironmentCheck {
  /** The desired state, when neither this check nor the common one found an error. */
  readonly state?: DesiredState;
  readonly diagnostics: readonly EnvironmentDiagnostic[];
}

/**
 * The schema, the rules and normalisation, over the files as `environment` sees them: each `${name}`
 * replaced by its value there, and the guides, groups and tasks that are not in it (`only_in`)
 * left out; each task's recipients from the file its `recipients_file` names there.
 * A problem in a string made from `${…}` is reported at the `${` and noted with the values used; a
 * string with a value missing in this environment is reported once as that and not checked further.
 * Without an environment, the files are checked as written, but for `$${`, a literal `${` there too.
 */
export function checkEnvironment(input: CheckInput, environment: Environment | undefined): EnvironmentCheck {
  const diagnostics: Diagnostic[] = [];
  const valid: ValidFile[] = [];
  const ruleFiles: RuleFile[] = [];
  const marks = new Marks();
  const everywhere = new Set<Diagnostic>();
  const name = environment?.name;
  const include = name === undefined ? undefined : (item: unknown): boolean => existsIn(item, name);
  const recipients = new Map<string, readonly string[]>();
  const recipientProblems: Diagnostic[] = [];
  for (const file of input.files) {
    const parsed = environment === undefined ? writtenView(file) : environmentView(file, environment, marks);
    // Located through the view: a path made from `${…}` is reported at it, with its values noted.
    for (const { index, path } of recipientsFilesOf(file, environment)) {
      const read = input.recipientsFiles.get(recipientsFileKey(parsed.file, path));
      if (read === undefined) continue;
      if (read.kind === 'read') {
        recipients.set(recipientsKey(parsed.file, index), read.openids);
        for (const d of read.diagnostics) recipientProblems.push(d);
        continue;
      }
      const { code, message, hint } = read;
      const where = parsed.locate(['tasks', index, 'recipients_file'], 'value');
      recipientProblems.push({ severity: 'error', code, message, hint, file: parsed.file, ...where });
    }
    const checked = checkSchema(
      parsed,
      input.schema,
      include === undefined ? {} : { cache: input.itemErrors, include },
    );
    for (const d of checked.diagnostics) diagnostics.push(d);
    for (const d of checked.declarations ?? []) everywhere.add(d);
    if (checked.parts !== undefined) ruleFiles.push({ parsed, parts: partsIn(checked.parts, name) });
    if (checked.written !== undefined) valid.push({ parsed, written: checked.written });
  }
  // With a file missing or broken, or a guide whose account could not be read, a group member may
  // be a guide defined in what could not be read.
  const complete =
    !hasErrors(input.common) &&
    ruleFiles.length === input.files.length &&
    ruleFiles.every((f) => f.parts.incomplete !== true);
  for (const d of checkRules(ruleFiles, { complete, displayPath: input.displayPath })) diagnostics.push(d);

  for (const d of recipientProblems) diagnostics.push(d);
  const found = marks.apply(diagnostics, everywhere);
  if (environment !== undefined) {
    for (const file of input.files) {
      for (const d of missingValues(file, environment, input.environments)) found.push({ diagnostic: d });
    }
  }
  const failed = hasErrors(input.common) || found.some((f) => f.diagnostic.severity === 'error');
  return failed ? { diagnostics: found } : { state: mergeFiles(valid, recipients, name), diagnostics: found };
}

/**
 * The recipients file of each task of `file` that exists in `environment`, as the environment
 * sees its `recipients_file` (each `${name}` replaced; none when a value is missing there, which
 * is reported as that), or as written without an environment (but for `$${`, as every string).
 */
export function recipientsFilesOf(
  file: EnvironmentFile,
  environment: Environment | undefined,
): { readonly index: number; readonly path: string }[] {
  const out: { index: number; path: string }[] = [];
  const tasks = isRecord(file.parsed.value) ? file.parsed.value['tasks'] : undefined;
  for (const { index, value } of recipientsFileTasks(file.parsed.value)) {
    if (environment !== undefined && Array.isArray(tasks) && !existsIn(tasks[index], environment.name))
      continue;
    const use = file.useAt(['tasks', index, 'recipients_file']);
    const path =
      use === undefined
        ? value.recipients_file
        : environment === undefined
          ? (fillTemplate(use.template, (n) => `\${${n}}`) ?? use.text)
          : use.template.problems.length > 0
            ? undefined
            : fillTemplate(use.template, (n) => environment.values.get(n));
    if (path !== undefined && path.trim() !== '') out.push({ index, path });
  }
  return out;
}

/** The parts of a file that exist in `environment`, with their indexes as written. */
function partsIn(parts: WrittenParts, environment: string | undefined): WrittenParts {
  if (environment === undefined) return parts;
  return {
    ...parts,
    guides: parts.guides.filter((g) => existsIn(g.value, environment)),
    groups: parts.groups.filter((g) => existsIn(g.value, environment)),
    tasks: parts.tasks.filter((t) => existsIn(t.value, environment)),
  };
}

/**
 * The file without an environment: each `${name}` kept as written (`checkReferences` warns of it),
 * and each `$${` the literal `${` it writes, as in a file with environments. Positions are those
 * of the file, as no string changes but for its `$${`.
 */
function writtenView(file: EnvironmentFile): ParsedYaml {
  const { parsed } = file;
  const replacements: { path: ValuePath; value: string }[] = [];
  for (const use of file.uses) {
    const value = fillTemplate(use.template, (name) => `\${${name}}`) ?? use.text;
    if (value !== use.text) replacements.push({ path: use.path, value });
  }
  const root = parsed.value;
  if (replacements.length === 0 || !isRecord(root)) return parsed;
  return { ...parsed, value: replaceStrings(root, replacements) };
}

/**
 * The file as `environment` sees it: its value with every `${name}` that the environment has
 * replaced, and `locate` that points a string made from `${…}` at its first `${` (and marks the
 * place, so that what is reported there gets its note, or is dropped when a value is missing).
 */
function environmentView(file: EnvironmentFile, environment: Environment, marks: Marks): ParsedYaml {
  const { parsed } = file;
  if (file.uses.length === 0) return parsed;
  const replacements: { path: ValuePath; value: string }[] = [];
  const unresolved = new Set<StringUse>();
  for (const use of file.uses) {
    const filled =
      use.template.problems.length > 0
        ? undefined
        : fillTemplate(use.template, (name) => environment.values.get(name));
    if (filled === undefined) unresolved.add(use);
    else if (filled !== use.text) replacements.push({ path: use.path, value: filled });
  }
  const root = parsed.value;
  const value = replacements.length > 0 && isRecord(root) ? replaceStrings(root, replacements) : root;
  const locate = (path: ValuePath, part: SpanPart = 'value'): Span => {
    const use = part === 'value' ? file.useAt(path) : undefined;
    const span = use === undefined ? undefined : file.spansOf(use).references[0];
    if (use === undefined || span === undefined) return parsed.locate(path, part);
    marks.mark(parsed.file, span, unresolved.has(use) ? DROP : noteOf(use, environment));
    return span;
  };
  // A replaced string is text, never a number: the scalars that writtenScalar is for are as written.
  return { file: parsed.file, value, locate, writtenScalar: parsed.writtenScalar };
}

/** `${shop_app} = "wx…"` for each name the string uses. */
function noteOf(use: StringUse, environment: Environment): string {
  const names = [...new Set(use.template.references.map((r) => r.name))];
  return names.map((name) => `\${${name}} = ${quote(environment.values.get(name) ?? '')}`).join(', ');
}

const DROP = Symbol('drop');

/** The places of `${…}` that diagnostics were pointed at, with what to do with them. */
class Marks {
  private readonly marks = new Map<string, string | typeof DROP>();

  mark(file: string, span: Span, what: string | typeof DROP): void {
    this.marks.set(placeKey(file, span), what);
  }

  /**
   * The diagnostics with their notes, without those at a string whose value is missing; those of
   * `everywhere` are marked as not depending on the environment.
   */
  apply(diagnostics: readonly Diagnostic[], everywhere: ReadonlySet<Diagnostic>): EnvironmentDiagnostic[] {
    const out: EnvironmentDiagnostic[] = [];
    for (const diagnostic of diagnostics) {
      if (everywhere.has(diagnostic)) {
        out.push({ diagnostic, everywhere: true });
        continue;
      }
      const mark = this.marks.size === 0 ? undefined : this.marks.get(placeKey(diagnostic.file, diagnostic));
      if (mark === DROP) continue;
      out.push(mark === undefined ? { diagnostic } : { diagnostic, note: mark });
    }
    return out;
  }
}

function placeKey(file: string, place: { readonly line: number; readonly column: number }): string {
  return `${file}\u0000${place.line}\u0000${place.column}`;
}

/**
 * The diagnostics of the environments checked, each problem once: one found in every environment
 * declared (`declared` of them), at a place that is not a `${…}`, as it is; any other named by the
 * environments it is found in (and the values used, at a `${…}`).
 */
export function mergeEnvironmentDiagnostics(
  checks: readonly { readonly environment: string; readonly found: readonly EnvironmentDiagnostic[] }[],
  declared: number,
): Diagnostic[] {
  const groups = new Map<string, { diagnostic: Diagnostic; note?: string; environments: string[] }>();
  const everywhere = new Map<string, Diagnostic>();
  for (const { environment, found } of checks) {
    for (const { diagnostic: d, note, everywhere: same } of found) {
      const key = [d.severity, d.code, d.file, d.line, d.column, d.message, note ?? ''].join('\u0000');
      if (same === true) {
        everywhere.set(key, d);
        continue;
      }
      const group = groups.get(key);
      if (group === undefined) {
        groups.set(key, {
          diagnostic: d,
          ...ifDefined('note', note),
          environments: [environment],
        });
      } else if (!group.environments.includes(environment)) {
        group.environments.push(environment);
      }
    }
  }
  const out: Diagnostic[] = [...everywhere.values()];
  for (const { diagnostic, note, environments } of groups.values()) {
    if (note === undefined && environments.length === declared) {
      out.push(diagnostic);
      continue;
    }
    const named = `in environment${environments.length === 1 ? '' : 's'} ${environments.join(', ')}`;
    const prefix = note === undefined ? named : `${named} (${note})`;
    out.push({ ...diagnostic, message: `${prefix}: ${diagnostic.message}`, environments });
  }
  return out;
}
