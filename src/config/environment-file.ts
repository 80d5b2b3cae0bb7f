import type { Diagnostic, DiagnosticCode } from '../core/diagnostics.js';
import { quote } from '../core/diagnostics.js';
import { type DeclaredEnvironment, ENVIRONMENT_NAME } from '../core/environments.js';
import type { Span, SpanPart, ValuePath } from '../core/positions.js';
import { isRecord } from '../core/records.js';
import { CREDENTIALS_HINT } from './check-schema.js';
import type { ParsedYaml } from './parse-yaml.js';
import {
  findStringUses,
  lineStartsOf,
  type SourceSpans,
  type StringUse,
  sourceSpans,
  VALUE_NAME,
  type ValueReference,
} from './substitute-values.js';
import { suggest } from './suggest.js';

/** The rule of environment names, as the schema's `environmentName` states it. */
/** The rule of credentials prefixes, as the schema's `credentialsPrefix` states it. */
const CREDENTIALS_PREFIX = /^[A-Z](?:[A-Z0-9_]{0,62}[A-Z0-9])?$/;

/**
 * A prefix that passes the rule of names but looks like a key or token pasted in: long, without
 * "_", and with several digits (STAGING, PROD_CN and BRAND7 are prefixes; 5F2A9C01B7E4D3A8 is not).
 */
function looksLikeSecret(prefix: string): boolean {
  if (prefix.includes('_') || prefix.length < 16) return false;
  let digits = 0;
  for (const c of prefix) if (c >= '0' && c <= '9') digits++;
  return digits >= 4;
}

/** A declared environment with its values (as far as they are well-formed; the schema reports the rest). */
export interface Environment extends DeclaredEnvironment {
  readonly values: ReadonlyMap<string, string>;
  /**
   * Names written under `values:` whose value is refused (not text: the schema reports it): the
   * value is declared, so a `${name}` of it is not also an unknown or missing value.
   */
  readonly refusedValues: ReadonlySet<string>;
}

/**
 * One parsed desired-state file with what environments need of it: its text (to find each `${`
 * in its source) and its strings that hold `${`, found once.
 */
export class EnvironmentFile {
  readonly uses: readonly StringUse[];
  private lineStarts: number[] | undefined;
  private readonly spans = new Map<StringUse, SourceSpans>();
  private byPath: Map<string, StringUse> | undefined;

  constructor(
    readonly parsed: ParsedYaml,
    private readonly text: string,
  ) {
    // Most files hold no "${" at all: one search of the text instead of a walk of the value.
    const value = parsed.value;
    this.uses = text.includes('${') && isRecord(value) ? findStringUses(value) : [];
  }

  /** The string holding `${` at `path`, if that is one. */
  useAt(path: ValuePath): StringUse | undefined {
    if (this.uses.length === 0) return undefined;
    this.byPath ??= new Map(this.uses.map((use) => [pathKey(use.path), use]));
    return this.byPath.get(pathKey(path));
  }

  /** Where each reference and each malformed `${` of `use` is written (found in one pass, kept). */
  spansOf(use: StringUse): SourceSpans {
    let spans = this.spans.get(use);
    if (spans === undefined) {
      this.lineStarts ??= lineStartsOf(this.text);
      spans = sourceSpans(this.text, this.lineStarts, this.parsed.locate(use.path), use);
      this.spans.set(use, spans);
    }
    return spans;
  }
}

function pathKey(path: ValuePath): string {
  return path.join('\u0000');
}

/** The `only_in` of a guide, group or task as written, when it is a list of text; else undefined. */
export function onlyInOf(item: unknown): readonly string[] | undefined {
  if (!isRecord(item)) return undefined;
  const list = item['only_in'];
  return Array.isArray(list) && list.every((e) => typeof e === 'string') ? list : undefined;
}

/** Whether a guide, group or task exists in `environment` (every one exists in the files without environments). */
export function existsIn(item: unknown, environment: string | undefined): boolean {
  if (environment === undefined) return true;
  const only = onlyInOf(item);
  return only === undefined || only.includes(environment);
}

/** The lists whose items may take `only_in`. */
const ONLY_IN_LISTS = ['guides', 'groups', 'tasks'] as const;
type OnlyInList = (typeof ONLY_IN_LISTS)[number];

function isOnlyInList(key: unknown): key is OnlyInList {
  return ONLY_IN_LISTS.some((list) => list === key);
}

/** The guide, group or task a path of the file is inside, if any. */
function itemAt(root: unknown, path: ValuePath): unknown {
  const [list, index] = path;
  if (!isRecord(root) || !isOnlyInList(list) || typeof index !== 'number') return undefined;
  const items = root[list];
  return Array.isArray(items) ? items[index] : undefined;
}

/** Whether the string at `path` of `file` is in `environment` (it is not when its guide, group or task is not). */
export function useExistsIn(file: EnvironmentFile, path: ValuePath, environment: string): boolean {
  const item = itemAt(file.parsed.value, path);
  return item === undefined || existsIn(item, environment);
}

export interface DeclaredEnvironments {
  /** Undefined when no file has `environments`; in the order written. */
  readonly environments?: readonly Environment[];
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * The environments of the files: those of the one file that has `environments` (a second file
 * with the key is an error: one place states which accounts exist). Entries the schema refuses
 * are left out here; the schema check reports them.
 */
export function declaredEnvironments(
  files: readonly EnvironmentFile[],
  displayPath: (file: string) => string,
): DeclaredEnvironments {
  const diagnostics: Diagnostic[] = [];
  let first: ParsedYaml | undefined;
  let environments: Environment[] | undefined;
  for (const { parsed } of files) {
    const value = parsed.value;
    if (!isRecord(value) || !('environments' in value)) continue;
    if (first !== undefined) {
      const place = first.locate(['environments'], 'key');
      const shown =
        first.file === parsed.file
          ? `line ${place.line}`
          : `${displayPath(first.file)}:${place.line}:${place.column}`;
      diagnostics.push(
        at(
          parsed,
          ['environments'],
          'key',
          'environments-duplicate',
          `"environments" is also declared at ${shown}`,
          {
            hint: 'declare the environments in one file of the folder; the other files use their values',
            related: [{ file: first.file, line: place.line, column: place.column, message: 'declared here' }],
          },
        ),
      );
      continue;
    }
    first = parsed;
    environments = readEnvironments(parsed, value['environments'], diagnostics);
  }
  return environments === undefined ? { diagnostics } : { environments, diagnostics };
}

/**
 * The name of the embedded service's database without `--env` (`.guidectl/local.db`): an
 * environment of this name would share it, since an environment's is `.guidectl/<name>.db`.
 */
const RESERVED_NAME = 'local';

/**
 * An environment's name that would share a database file with another: `local` (the default
 * database's), or a name that differs from an earlier one only in case (one file on the file
 * systems of macOS and Windows). Such an environment is kept, so that its uses are checked too.
 */
function checkNameClash(
  parsed: ParsedYaml,
  name: string,
  earlier: readonly Environment[],
  diagnostics: Diagnostic[],
): void {
  const lower = name.toLowerCase();
  if (lower === RESERVED_NAME) {
    diagnostics.push(
      at(
        parsed,
        ['environments', name],
        'key',
        'environment-name-reserved',
        `an environment cannot be named ${quote(name)}: its database would be .guidectl/${RESERVED_NAME}.db, the one guidectl uses without --env`,
        { hint: 'rename it, e.g. "dev" or "sandbox" (and in only_in)' },
      ),
    );
    return;
  }
  const same = earlier.find((e) => e.name.toLowerCase() === lower);
  if (same === undefined) return;
  const { line, column } = same.source;
  diagnostics.push(
    at(
      parsed,
      ['environments', name],
      'key',
      'environment-name-conflict',
      `environment ${quote(name)} differs from ${quote(same.name)} only in case: the two would share the database .guidectl/${lower}.db where file names ignore case`,
      {
        hint: 'give the environments names that differ in more than case',
        related: [{ file: same.source.file, line, column, message: 'declared here' }],
      },
    ),
  );
}

function readEnvironments(parsed: ParsedYaml, written: unknown, diagnostics: Diagnostic[]): Environment[] {
  if (!isRecord(written)) return [];
  const out: Environment[] = [];
  for (const [name, entry] of Object.entries(written)) {
    if (!ENVIRONMENT_NAME.test(name) || !isRecord(entry)) continue;
    checkNameClash(parsed, name, out, diagnostics);
    const values = new Map<string, string>();
    const refusedValues = new Set<string>();
    const writtenValues = entry['values'];
    if (isRecord(writtenValues)) {
      for (const [key, value] of Object.entries(writtenValues)) {
        if (!VALUE_NAME.test(key)) continue;
        if (typeof value === 'string') values.set(key, value);
        else refusedValues.add(key);
      }
    }
    const { base_url: baseUrl, credentials } = entry;
    if (
      typeof credentials === 'string' &&
      CREDENTIALS_PREFIX.test(credentials) &&
      looksLikeSecret(credentials)
    ) {
      diagnostics.push({
        ...at(
          parsed,
          ['environments', name, 'credentials'],
          'value',
          'environment-credentials-invalid',
          `the credentials of environment ${name} look like a secret, not the prefix of variable names; the value is not shown`,
          { hint: CREDENTIALS_HINT },
        ),
        mayHoldSecret: true,
      });
      continue;
    }
    const { line, column, endLine, endColumn } = parsed.locate(['environments', name], 'key');
    out.push({
      name,
      ...(typeof baseUrl === 'string' ? { baseUrl } : {}),
      ...(typeof credentials === 'string' && CREDENTIALS_PREFIX.test(credentials)
        ? { credentialsPrefix: credentials }
        : {}),
      values,
      refusedValues,
      source: { file: parsed.file, line, column, endLine, endColumn },
    });
  }
  return out;
}

/**
 * The checks of references and `only_in` that do not depend on one environment: malformed `${`,
 * names that no environment has, and `only_in` entries that name no environment. Without
 * environments, a `${name}` is a warning (it stays as written; `$${` is the literal `${` there too)
 * and `only_in` an error.
 */
export function checkReferences(
  files: readonly EnvironmentFile[],
  environments: readonly Environment[] | undefined,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const file of files) {
    checkOnlyIn(file.parsed, environments, out);
    for (const use of file.uses) {
      if (environments === undefined) undeclared(file, use, out);
      else checkUse(file, use, environments, out);
    }
  }
  return out;
}

function undeclared(file: EnvironmentFile, use: StringUse, out: Diagnostic[]): void {
  const first = use.template.references[0];
  const span = file.spansOf(use).references[0];
  if (first === undefined || span === undefined) return;
  out.push({
    ...spanDiagnostic(file.parsed.file, span, 'environments-undeclared', 'warning'),
    message: `\${${first.name}} is kept as written: no file given declares "environments", so it takes no value`,
    hint: `declare the environments with a value "${first.name}" under "environments:", or give the file that declares them too; for the text \${${first.name}} itself, write $\${${first.name}}`,
  });
}

function checkUse(
  file: EnvironmentFile,
  use: StringUse,
  environments: readonly Environment[],
  out: Diagnostic[],
): void {
  const { parsed } = file;
  const { problems: problemSpans, references: spans } = file.spansOf(use);
  use.template.problems.forEach((problem, i) => {
    const span = problemSpans[i] ?? parsed.locate(use.path);
    out.push({
      ...spanDiagnostic(parsed.file, span, 'env-reference-invalid', 'error'),
      message: `${quote(problem.text)} is not a reference to a value`,
      hint: `write \${name} with a name of letters, digits and "_"; write $\${ for a literal \${`,
    });
  });
  const known = new Set(environments.flatMap((e) => [...e.values.keys(), ...e.refusedValues]));
  use.template.references.forEach((reference, i) => {
    const span = spans[i];
    if (span !== undefined && !known.has(reference.name))
      out.push(unknownValue(parsed.file, span, reference, known));
  });
}

/**
 * The references of the file that `environment` has no value for, though another environment
 * has (a name none has is `env-value-unknown`, reported once), in the guides, groups and tasks
 * that exist in it. The message does not name the environment: the caller says where it applies.
 */
export function missingValues(
  file: EnvironmentFile,
  environment: Environment,
  environments: readonly Environment[],
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const use of file.uses) {
    if (!useExistsIn(file, use.path, environment.name)) continue;
    const spans = file.spansOf(use).references;
    use.template.references.forEach((reference, i) => {
      const span = spans[i];
      const { name } = reference;
      if (span === undefined || environment.values.has(name) || environment.refusedValues.has(name)) return;
      const having = environments
        .filter((e) => e.values.has(name) || e.refusedValues.has(name))
        .map((e) => e.name);
      if (having.length === 0) return;
      out.push({
        ...spanDiagnostic(file.parsed.file, span, 'env-value-missing', 'error'),
        message: `there is no value "${reference.name}" (${having.join(', ')} ${having.length === 1 ? 'has' : 'have'} one)`,
        hint: `add "${reference.name}" under "values:" of environment ${environment.name}, or limit what uses it with only_in`,
      });
    });
  }
  return out;
}

function unknownValue(
  file: string,
  span: Span,
  reference: ValueReference,
  known: ReadonlySet<string>,
): Diagnostic {
  const guess = suggest(reference.name, [...known]);
  return {
    ...spanDiagnostic(file, span, 'env-value-unknown', 'error'),
    message: `no environment has a value "${reference.name}"${guess === undefined ? '' : `; did you mean "${guess}"?`}`,
    hint: 'declare it under "values:" of each environment, or write $${ for a literal ${',
  };
}

/** `only_in` of each guide, group and task: names of declared environments, at least one. */
function checkOnlyIn(
  parsed: ParsedYaml,
  environments: readonly Environment[] | undefined,
  out: Diagnostic[],
): void {
  const root = parsed.value;
  if (!isRecord(root)) return;
  const names = (environments ?? []).map((e) => e.name);
  for (const list of ONLY_IN_LISTS) {
    const items = root[list];
    if (!Array.isArray(items)) continue;
    items.forEach((item: unknown, index) => {
      const only = onlyInOf(item);
      if (only === undefined) return;
      const path = [list, index, 'only_in'];
      if (environments === undefined) {
        out.push(
          at(
            parsed,
            path,
            'key',
            'only-in-unknown',
            'only_in names environments, but no file given declares "environments"',
            {
              hint: 'declare the environments under "environments:", or give the file that declares them too',
            },
          ),
        );
        return;
      }
      if (only.length === 0) {
        out.push(
          at(
            parsed,
            path,
            'value',
            'only-in-empty',
            `only_in is empty: this ${ITEM_WORDS[list]} would exist in no environment`,
            {
              hint: 'name the environments it exists in, or remove it',
            },
          ),
        );
      }
      only.forEach((name, i) => {
        if (!ENVIRONMENT_NAME.test(name) || names.includes(name)) return;
        const guess = suggest(name, names);
        out.push(
          at(
            parsed,
            [...path, i],
            'value',
            'only-in-unknown',
            `no environment is named ${quote(name)}${guess === undefined ? '' : `; did you mean "${guess}"?`}`,
            {
              hint: `the environments are: ${names.join(', ')}`,
            },
          ),
        );
      });
    });
  }
}

const ITEM_WORDS: Readonly<Record<OnlyInList, string>> = { guides: 'guide', groups: 'group', tasks: 'task' };

function at(
  parsed: ParsedYaml,
  path: ValuePath,
  part: SpanPart,
  code: DiagnosticCode,
  message: string,
  extra: Pick<Diagnostic, 'hint' | 'related'> = {},
): Diagnostic {
  return { ...spanDiagnostic(parsed.file, parsed.locate(path, part), code, 'error'), message, ...extra };
}

function spanDiagnostic(
  file: string,
  span: Span,
  code: DiagnosticCode,
  severity: Diagnostic['severity'],
): Diagnostic {
  const { line, column, endLine, endColumn } = span;
  return { severity, code, message: '', file, line, column, endLine, endColumn };
}
