import type { Span, ValuePath } from '../core/positions.js';
import { setOwn } from './read-block-yaml.js';

/**
 * `${name}` in the string values of a desired-state file: found once in the parsed value, then
 * replaced per environment by copying only the mappings and lists on the way to each string that
 * changes (everything else is shared between environments, so a guide without a reference is the
 * same object in every environment). Positions stay those of the parsed file.
 */

/** The longest value name, in characters. */
export const VALUE_NAME_MAX_CHARS = 64;
/** A value name, unanchored: what may stand between `${` and `}`. */
export const VALUE_NAME_SHAPE = `[A-Za-z_][A-Za-z0-9_]{0,${VALUE_NAME_MAX_CHARS - 1}}`;
/** The rule of value names, as the schema's `envValues` states it. */
export const VALUE_NAME = new RegExp(`^${VALUE_NAME_SHAPE}$`);
/** The rule of {@link VALUE_NAME} in words, for messages. */
export const VALUE_NAME_RULE = `a name is a letter or "_", then letters, digits or "_", at most ${VALUE_NAME_MAX_CHARS} characters`;

/** One `${name}` in a string: the name, and its offsets in the string (end exclusive). */
export interface ValueReference {
  readonly name: string;
  readonly start: number;
  readonly end: number;
}

/** A `${` that starts no reference: no closing `}`, or no valid name before it. */
export interface TemplateProblem {
  readonly start: number;
  readonly end: number;
  /** The text from `${` to its `}` (or to the end of the string), for the message. */
  readonly text: string;
}

/** A string split into literal text and references; `$${` is already the literal `${`. */
export interface Template {
  readonly parts: readonly (string | ValueReference)[];
  readonly references: readonly ValueReference[];
  readonly problems: readonly TemplateProblem[];
}

/** Splits a string at each `${name}`; `$${` is a literal `${`, any other `$` is itself. */
export function parseTemplate(text: string): Template {
  const parts: (string | ValueReference)[] = [];
  const references: ValueReference[] = [];
  const problems: TemplateProblem[] = [];
  let literal = '';
  let from = 0;
  for (let i = text.indexOf('$'); i !== -1; i = text.indexOf('$', from)) {
    literal += text.slice(from, i);
    if (text.startsWith('$${', i)) {
      literal += '${';
      from = i + 3;
      continue;
    }
    if (!text.startsWith('${', i)) {
      literal += '$';
      from = i + 1;
      continue;
    }
    const close = text.indexOf('}', i + 2);
    const name = close === -1 ? '' : text.slice(i + 2, close);
    if (close === -1 || !VALUE_NAME.test(name)) {
      const end = close === -1 ? text.length : close + 1;
      problems.push({ start: i, end, text: text.slice(i, end) });
      literal += '${';
      from = i + 2;
      continue;
    }
    if (literal !== '') parts.push(literal);
    literal = '';
    const reference = { name, start: i, end: close + 1 };
    parts.push(reference);
    references.push(reference);
    from = close + 1;
  }
  literal += text.slice(from);
  if (literal !== '') parts.push(literal);
  return { parts, references, problems };
}

/** The string `template` makes with the values `lookup` gives; undefined when one is missing. */
export function fillTemplate(
  template: Template,
  lookup: (name: string) => string | undefined,
): string | undefined {
  let out = '';
  for (const part of template.parts) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    const value = lookup(part.name);
    if (value === undefined) return undefined;
    out += value;
  }
  return out;
}

/** A string value of the file that holds `${`, where it is, and what it is made of. */
export interface StringUse {
  readonly path: ValuePath;
  readonly text: string;
  readonly template: Template;
}

/**
 * The strings holding `${` in a parsed file, in document order, leaving out what is never
 * substituted: `version`, `environments`, the `x-` keys (anchors only; what is merged or aliased
 * from them is found where it is used) and `only_in` lists. A mapping or list shared by aliases is
 * found at each place it is used; one found to hold no `${` is not searched again.
 */
export function findStringUses(root: Readonly<Record<string, unknown>>): StringUse[] {
  const uses: StringUse[] = [];
  const clean = new WeakSet<object>();
  const walk = (node: unknown, path: (string | number)[]): boolean => {
    if (typeof node === 'string') {
      if (!node.includes('${')) return false;
      uses.push({ path: [...path], text: node, template: parseTemplate(node) });
      return true;
    }
    if (typeof node !== 'object' || node === null || clean.has(node)) return false;
    let found = false;
    const entries: [string | number, unknown][] = Array.isArray(node)
      ? node.map((v, i) => [i, v])
      : Object.entries(node);
    for (const [key, value] of entries) {
      if (key === 'only_in') continue;
      path.push(key);
      if (walk(value, path)) found = true;
      path.pop();
    }
    if (!found) clean.add(node);
    return found;
  };
  for (const [key, value] of Object.entries(root)) {
    if (key === 'version' || key === 'environments' || key.startsWith('x-')) continue;
    walk(value, [key]);
  }
  return uses;
}

/**
 * `root` with the string at each path replaced, copying only the mappings and lists on the way
 * (a copy is made once and shared by the replacements under it). `root` itself is not changed.
 */
export function replaceStrings(
  root: Readonly<Record<string, unknown>>,
  replacements: readonly { readonly path: ValuePath; readonly value: string }[],
): Record<string, unknown> {
  const copies = new WeakSet<object>();
  const copy = (node: Container): Container => {
    const made: Container = Array.isArray(node) ? node.slice() : copyRecord(node);
    copies.add(made);
    return made;
  };
  const top = copyRecord(root);
  copies.add(top);
  for (const { path, value } of replacements) {
    let parent: Container = top;
    for (let i = 0; i < path.length - 1; i++) {
      const key = path[i] ?? '';
      const child = readAt(parent, key);
      if (!isContainer(child)) break;
      if (copies.has(child)) {
        parent = child;
        continue;
      }
      const made = copy(child);
      writeAt(parent, key, made);
      parent = made;
    }
    const last = path.at(-1);
    if (last !== undefined) writeAt(parent, last, value);
  }
  return top;
}

/** A mapping or a list of the parsed value. */
type Container = Record<string, unknown> | unknown[];

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

function copyRecord(node: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) setOwn(out, key, value);
  return out;
}

function readAt(container: Container, key: string | number): unknown {
  return Array.isArray(container) ? container[Number(key)] : container[String(key)];
}

function writeAt(container: Container, key: string | number, value: unknown): void {
  if (Array.isArray(container)) container[Number(key)] = value;
  else setOwn(container, String(key), value);
}

/** Where the references and the malformed `${` of a string are written, in the order of the template's. */
export interface SourceSpans {
  readonly references: readonly Span[];
  readonly problems: readonly Span[];
}

/**
 * Where each reference of `use` and each malformed `${` (from the `${` to its `}` or the string's
 * end) is written in the file `text`, given the span of its string: the source of the string
 * (quotes included) is parsed once and its parts matched with the value's. When the source does
 * not show the references (or the problems) as the value does (an escape such as `\x24{` made
 * one), each of that kind is placed at the whole string.
 */
export function sourceSpans(
  text: string,
  lineStarts: readonly number[],
  span: Span,
  use: StringUse,
): SourceSpans {
  const start = offsetOf(lineStarts, span.line, span.column);
  const end = offsetOf(lineStarts, span.endLine, span.endColumn);
  const found = parseTemplate(text.slice(start, end));
  const place = (part: { readonly start: number; readonly end: number }): Span => {
    const a = positionAt(lineStarts, start + part.start);
    const b = positionAt(lineStarts, start + part.end);
    return { line: a.line, column: a.column, endLine: b.line, endColumn: b.column };
  };
  return {
    references: matchParts(found.references, use.template.references, (r) => r.name, place, span),
    problems: matchParts(found.problems, use.template.problems, (p) => p.text, place, span),
  };
}

/**
 * The span of each `wanted` part: that of the `found` one at its index when the two lists hold the
 * same parts (compared by `key`), else `whole`.
 */
function matchParts<P extends { readonly start: number; readonly end: number }>(
  found: readonly P[],
  wanted: readonly P[],
  key: (part: P) => string,
  place: (part: P) => Span,
  whole: Span,
): Span[] {
  const same =
    found.length === wanted.length &&
    found.every((p, i) => {
      const w = wanted[i];
      return w !== undefined && key(p) === key(w);
    });
  return wanted.map((_, i) => {
    const p = same ? found[i] : undefined;
    return p === undefined ? whole : place(p);
  });
}

/** The offset of each line's start in `text`. */
export function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function offsetOf(lineStarts: readonly number[], line: number, column: number): number {
  return (lineStarts[line - 1] ?? 0) + column - 1;
}

function positionAt(lineStarts: readonly number[], offset: number): { line: number; column: number } {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((lineStarts[mid] ?? 0) <= offset) low = mid;
    else high = mid - 1;
  }
  return { line: low + 1, column: offset - (lineStarts[low] ?? 0) + 1 };
}
