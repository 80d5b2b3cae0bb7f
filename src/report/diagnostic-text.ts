import stringWidth from 'string-width';
import { compareText } from '../core/compare-text.js';
import { countOf, formatCount } from '../core/count.js';
import type { DesiredState } from '../core/desired.js';
import { countDiagnostics, type Diagnostic } from '../core/diagnostics.js';
import { displayPath } from '../core/paths.js';
import { ifDefined } from '../core/records.js';
import { escapeControls } from './escape.js';
import { type Paint, paint } from './paint.js';

export interface RenderDiagnosticsOptions {
  /** File paths are shown relative to this folder. */
  readonly cwd?: string;
  /** ANSI colour; only when asked (a terminal, and NO_COLOR not set). */
  readonly color?: boolean;
  /** The text of each file by path: when given, the line of each diagnostic is shown under it. */
  readonly sources?: ReadonlyMap<string, string>;
}

/**
 * Human text, one block per diagnostic:
 *
 *     guides.yaml:14:7: error: nickname "Alexandra the Great" is 19 characters; the limit is 16 [nickname-too-long]
 *        14 |   nickname: Alexandra the Great
 *           |             ^^^^^^^^^^^^^^^^^^^
 *       hint: …
 *
 * The first line of each block has the shape `file:line:col: severity: message [code]` that
 * editors and CI problem matchers read. The text may change between versions; machines should
 * read `renderDiagnosticsJson`.
 */
export function renderDiagnostics(
  diagnostics: readonly Diagnostic[],
  options: RenderDiagnosticsOptions = {},
): string {
  const p = paint(options.color === true);
  const lines: string[] = [];
  const lineCache = new Map<string, string[]>();
  for (const d of inPlaceOrder(diagnostics)) {
    const where = `${escapeControls(displayPath(d.file, options.cwd))}:${d.line}:${d.column}`;
    const severity = d.severity === 'error' ? p.red(p.bold('error')) : p.yellow(p.bold('warning'));
    lines.push(`${p.bold(where)}: ${severity}: ${escapeControls(d.message)} ${p.dim(`[${d.code}]`)}`);
    const text = options.sources?.get(d.file);
    // The line of a credentials setting may hold a secret pasted by mistake: never shown.
    if (text !== undefined && d.mayHoldSecret !== true) lines.push(...renderExcerpt(d, text, lineCache, p));
    if (d.hint !== undefined) lines.push(`  ${p.cyan('hint')}: ${escapeControls(d.hint)}`);
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** What a summary line says besides the counts: how much was read, and what it held. */
export interface SummaryFacts {
  readonly files: number;
  /** Counts of the desired state, when there is one (no errors). */
  readonly guides?: number;
  readonly groups?: number;
  /** Counted when there are any, as `export` counts what it wrote. */
  readonly tasks?: number;
  /** The counts of each environment's desired state, when the files declare environments (no errors). */
  readonly environments?: readonly {
    readonly name: string;
    readonly guides: number;
    readonly groups: number;
    readonly tasks?: number;
  }[];
}

/**
 * One line: `2 errors, 1 warning in 3 files`, or when there is no error
 * `valid: 3 files, 52 guides, 6 groups` (with the warnings counted first if any), or with
 * environments `valid: 1 file, 2 environments (staging: 3 guides, 1 group; production: 2 guides, 1 group)`.
 */
export function renderSummary(
  diagnostics: readonly Diagnostic[],
  facts: SummaryFacts,
  options: { readonly color?: boolean } = {},
): string {
  const p = paint(options.color === true);
  const { errors, warnings } = countDiagnostics(diagnostics);
  const files = countOf(facts.files, 'file');
  if (errors > 0) {
    const parts = [countOf(errors, 'error'), ...(warnings > 0 ? [countOf(warnings, 'warning')] : [])];
    // "in 1 of 3 files": the files the problems are in, of those read.
    const named = new Set(diagnostics.map((d) => d.file)).size;
    const where = named > 0 && named < facts.files ? `${formatCount(named)} of ${files}` : files;
    return `${p.red(parts.join(', '))} in ${where}\n`;
  }
  const contents = [files];
  if (facts.guides !== undefined) contents.push(countOf(facts.guides, 'guide'));
  if (facts.groups !== undefined) contents.push(countOf(facts.groups, 'group'));
  if (facts.tasks !== undefined) contents.push(countOf(facts.tasks, 'task'));
  if (facts.environments !== undefined) {
    const each = facts.environments.map((e) => {
      const tasks = e.tasks === undefined ? '' : `, ${countOf(e.tasks, 'task')}`;
      return `${escapeControls(e.name)}: ${countOf(e.guides, 'guide')}, ${countOf(e.groups, 'group')}${tasks}`;
    });
    contents.push(`${countOf(facts.environments.length, 'environment')} (${each.join('; ')})`);
  }
  const head = warnings > 0 ? p.yellow(`valid with ${countOf(warnings, 'warning')}`) : p.green('valid');
  return `${head}: ${contents.join(', ')}\n`;
}

/** What `validate` found, as `loadDesiredState` returns it. */
export interface Validated {
  readonly diagnostics: readonly Diagnostic[];
  readonly files: readonly { readonly file: string; readonly text: string }[];
  readonly state?: DesiredState;
  readonly environments?: readonly unknown[];
  readonly states?: ReadonlyMap<string, DesiredState>;
}

/**
 * `guidectl validate`'s human text: every diagnostic with its line, then the summary line, counting
 * the files read or named by a diagnostic, and the guides, groups and tasks (when there are any)
 * of the state (or of each environment's).
 */
export function renderValidation(result: Validated, options: RenderDiagnosticsOptions = {}): string {
  const sources = new Map(result.files.map((f) => [f.file, f.text]));
  const files = new Set([...result.files.map((f) => f.file), ...result.diagnostics.map((d) => d.file)]);
  const { state, states } = result;
  const facts: SummaryFacts = {
    files: files.size,
    ...(state === undefined || result.environments !== undefined
      ? {}
      : {
          guides: state.guides.length,
          groups: state.groups.length,
          ...(state.tasks?.length ? { tasks: state.tasks.length } : {}),
        }),
    ...(states === undefined || states.size === 0
      ? {}
      : {
          environments: [...states].map(([name, s]) => ({
            name,
            guides: s.guides.length,
            groups: s.groups.length,
            ...(s.tasks?.length ? { tasks: s.tasks.length } : {}),
          })),
        }),
  };
  const color = options.color === true;
  return (
    renderDiagnostics(result.diagnostics, { ...options, sources }) +
    renderSummary(result.diagnostics, facts, { color })
  );
}

/**
 * The diagnostics as a JSON array (with a final newline), each object with `severity`, `code`,
 * `message`, `file` (relative to `cwd`), `line`, `column` and, when known, `endLine`,
 * `endColumn`, `hint`, `environments` (the names of the environments the problem is found in, when
 * it depends on the environment), `not_shown` (on `too-many-problems`: `{errors, warnings}`, the
 * problems it stands for) and `related` (`[{file, line, column, message}]`). Keys are in that order.
 */
export function renderDiagnosticsJson(
  diagnostics: readonly Diagnostic[],
  options: { readonly cwd?: string } = {},
): string {
  return `${JSON.stringify(diagnosticsToJson(diagnostics, options), null, 2)}\n`;
}

/** The objects of {@link renderDiagnosticsJson}, for JSON outputs that hold diagnostics. */
export function diagnosticsToJson(
  diagnostics: readonly Diagnostic[],
  options: { readonly cwd?: string } = {},
): Record<string, unknown>[] {
  return inPlaceOrder(diagnostics).map((d) => ({
    severity: d.severity,
    code: d.code,
    message: d.message,
    file: displayPath(d.file, options.cwd),
    line: d.line,
    column: d.column,
    ...ifDefined('endLine', d.endLine),
    ...ifDefined('endColumn', d.endColumn),
    ...ifDefined('hint', d.hint),
    ...ifDefined('environments', d.environments),
    ...ifDefined('not_shown', d.notShown),
    ...(d.related === undefined
      ? {}
      : {
          related: d.related.map((r) => ({
            file: displayPath(r.file, options.cwd),
            line: r.line,
            column: r.column,
            message: r.message,
          })),
        }),
  }));
}

/**
 * The order every output lists diagnostics in: by file, line, then column; diagnostics at the same
 * place keep the order they were found in.
 */
function inPlaceOrder(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) => compareText(a.file, b.file) || a.line - b.line || a.column - b.column,
  );
}

/** Lines longer than this are not shown under a diagnostic (minified or binary-looking text). */
const MAX_EXCERPT_LENGTH = 300;

function renderExcerpt(d: Diagnostic, text: string, cache: Map<string, string[]>, p: Paint): string[] {
  let fileLines = cache.get(d.file);
  if (fileLines === undefined) {
    fileLines = text.split(/\r?\n/);
    cache.set(d.file, fileLines);
  }
  const source = fileLines[d.line - 1];
  if (source === undefined || source.length > MAX_EXCERPT_LENGTH || source.trim() === '') return [];

  // What is shown is the line as written, with tabs expanded and control characters escaped; the
  // carets are measured on the same text.
  const shown = (s: string): string => escapeControls(expandTabs(s));
  const before = shown(source.slice(0, d.column - 1));
  const endColumn = d.endLine === d.line && d.endColumn !== undefined ? d.endColumn : source.length + 1;
  const marked = shown(source.slice(d.column - 1, Math.max(d.column, endColumn) - 1));
  const pad = ' '.repeat(displayWidth(before));
  const carets = '^'.repeat(Math.max(1, displayWidth(marked)));
  const gutter = String(d.line);
  const colour = d.severity === 'error' ? p.red : p.yellow;
  return [
    `${p.dim(`  ${gutter} |`)} ${shown(source)}`,
    `${p.dim(`  ${' '.repeat(gutter.length)} |`)} ${pad}${colour(carets)}`,
  ];
}

function expandTabs(s: string): string {
  return s.replace(/\t/g, '    ');
}

/**
 * Terminal columns taken by `s`: tabs as 4, East Asian wide characters and emoji as 2, combining
 * marks as 0. string-width follows Unicode's width and emoji tables, which move with each release.
 */
export function displayWidth(s: string): number {
  return stringWidth(expandTabs(s));
}
