import {
  type Alias,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type Pair,
  parseDocument,
  Scalar,
  type YAMLError,
  type YAMLMap,
} from 'yaml';
import type { Diagnostic, DiagnosticCode } from '../core/diagnostics.js';
import type { LocatedFile, Span, SpanPart, ValuePath } from '../core/positions.js';
import { ifDefined, isRecord } from '../core/records.js';
import { type BlockYaml, readBlockYaml, setOwn } from './read-block-yaml.js';

/** A YAML file parsed into a plain value, that can still say where each part of the value was written. */
export interface ParsedYaml extends LocatedFile {
  readonly file: string;
  /** Plain data: objects, arrays, strings, numbers, booleans and null only. */
  readonly value: unknown;
  /** Where the value at `path` was written; falls back to the nearest enclosing node that exists. */
  locate(path: ValuePath, part?: SpanPart): Span;
  /**
   * The scalar at `path` as written in the file (`007`, `0x1F`, `1e400`), for messages that must
   * not show a number as JavaScript reads it (`7`, `31`, `Infinity`); undefined when `path` does
   * not end at a scalar of the file.
   */
  writtenScalar(path: ValuePath): string | undefined;
}

export interface ParseYamlResult {
  /** Present when the file is well-formed YAML holding a mapping (it may still break the schema). */
  readonly parsed?: ParsedYaml;
  readonly diagnostics: Diagnostic[];
  /**
   * Set when the text is not a YAML mapping at all (a `.env` file, a key, a note): such a file is
   * not a desired-state file, and its lines must never be shown under a diagnostic (they may hold
   * a secret).
   */
  readonly notMapping?: true;
}

/** Collections nested deeper than this are refused: the file format needs about 6 levels. */
export const MAX_NESTING = 64;
/**
 * How many nodes aliases may add to the document when expanded. Sharing a list of quick replies
 * between thousands of guides stays far below; an "alias bomb" (a few lines that expand to
 * billions of nodes) goes far above.
 */
export const MAX_ALIAS_EXPANSION = 1_000_000;

const CORE_TAG_PREFIX = 'tag:yaml.org,2002:';
const ALLOWED_TAGS = new Set(
  ['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => CORE_TAG_PREFIX + t),
);

/**
 * Parses one file's text. Diagnostics are pinned to positions in `text`; `parsed` is absent when
 * the file is not usable YAML (syntax errors, an empty file, a top level that is not a mapping).
 */
export function parseYaml(file: string, text: string): ParseYamlResult {
  // Most files are plain block YAML, which the fast reader reads with the same result; it
  // declines everything else, which the yaml package reads below.
  const block = readBlockYaml(text);
  if (block !== undefined) return fromBlockYaml(file, block);
  return parseYamlWithPackage(file, text);
}

/** `parseYaml` by the yaml package alone (exported for the test that holds the fast reader to it). */
export function parseYamlWithPackage(file: string, text: string): ParseYamlResult {
  const lineCounter = new LineCounter();
  const at = (code: DiagnosticCode, start: number, end: number, message: string, hint?: string): Diagnostic =>
    makeDiagnostic(file, lineCounter, code, start, end, message, hint);

  const deep = findDeepFlowNesting(text);
  if (deep !== undefined) {
    // Count lines ourselves: the yaml package has not been run, so the line counter is empty.
    const { line, column } = positionOf(text, deep);
    return {
      diagnostics: [
        {
          severity: 'error',
          code: 'yaml-nesting-too-deep',
          message: `lists and mappings are nested more than ${MAX_NESTING} levels deep here`,
          hint: 'a desired-state file needs about 6 levels; check for unbalanced "[" or "{"',
          file,
          line,
          column,
        },
      ],
    };
  }

  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    // The yaml package looks for a duplicate key by comparing each key with every earlier one of
    // its mapping: quadratic, minutes for 200,000 keys. The walker below does it with a Map.
    uniqueKeys: false,
    strict: true,
    // 'error' keeps warnings off stderr; 'silent' would also drop the error for a second document.
    logLevel: 'error',
  });

  const syntax = syntaxDiagnostics(doc.errors, at, text, (offset) => lineCounter.linePos(offset).line);
  if (syntax.length > 0) {
    return isMap(doc.contents) ? { diagnostics: syntax } : { diagnostics: syntax, notMapping: true };
  }

  const root = doc.contents;
  if (root === null || (isScalar(root) && root.value === null && isBlank(text, root.range))) {
    return {
      diagnostics: [
        at(
          'file-empty',
          0,
          0,
          'the file is empty',
          'a desired-state file is a mapping that starts with "version: 1"; delete the file if it is not needed',
        ),
      ],
    };
  }

  const walker = new NodeWalker(text, at, (offset) => lineCounter.linePos(offset).line);
  const value = walker.walk(root, 0);
  if (walker.diagnostics.length > 0) return { diagnostics: walker.diagnostics };

  if (!isMap(root)) {
    const [start, end] = rangeOf(root);
    return {
      notMapping: true,
      diagnostics: [
        at(
          'top-level-not-mapping',
          start,
          end,
          `the top level of the file is ${describeNode(root)}; it must be a mapping of keys such as "version", "guides" and "groups"`,
          'start the file with "version: 1" on its own line',
        ),
      ],
    };
  }

  const { aliasTargets, entries } = walker;
  const locate = (path: ValuePath, part: SpanPart = 'value'): Span => {
    const [start, end] = locateRange(root, path, part, aliasTargets, entries);
    return spanOf(lineCounter, start, end);
  };
  const writtenScalar = (path: ValuePath): string | undefined => {
    const node = findNode(root, path, aliasTargets, entries);
    return isScalar(node) && node.range ? text.slice(node.range[0], node.range[1]) : undefined;
  };
  // Duplicate keys do not stop the checks: the first of the two is kept, and the rest is checked.
  return { parsed: { file, value, locate, writtenScalar }, diagnostics: walker.duplicates };
}

function fromBlockYaml(file: string, block: BlockYaml): ParseYamlResult {
  const { lineCounter } = block;
  const at: At = (code, start, end, message, hint) =>
    makeDiagnostic(file, lineCounter, code, start, end, message, hint);
  const lineOf = (offset: number): number => lineCounter.linePos(offset).line;
  const diagnostics = block.duplicates.map((d) =>
    duplicateKeyDiagnostic(at, lineOf, d.key, [d.start, d.end], d.firstStart),
  );
  const locate = (path: ValuePath, part: SpanPart = 'value'): Span => {
    const [start, end] = block.locateRange(path, part);
    return spanOf(lineCounter, start, end);
  };
  const writtenScalar = (path: ValuePath): string | undefined => {
    const range = block.scalarRange(path);
    return range === undefined ? undefined : block.text.slice(range[0], range[1]);
  };
  return { parsed: { file, value: block.value, locate, writtenScalar }, diagnostics };
}

function makeDiagnostic(
  file: string,
  lineCounter: LineCounter,
  code: DiagnosticCode,
  start: number,
  end: number,
  message: string,
  hint: string | undefined,
): Diagnostic {
  const span = spanOf(lineCounter, start, end);
  return {
    severity: 'error',
    code,
    message,
    file,
    line: span.line,
    column: span.column,
    endLine: span.endLine,
    endColumn: span.endColumn,
    ...ifDefined('hint', hint),
  };
}

type At = (code: DiagnosticCode, start: number, end: number, message: string, hint?: string) => Diagnostic;

function spanOf(lineCounter: LineCounter, start: number, end: number): Span {
  const a = lineCounter.linePos(start);
  const b = lineCounter.linePos(Math.max(start, end));
  return { line: a.line, column: a.col, endLine: b.line, endColumn: b.col };
}

/** Plain-word advice for the yaml package's most common syntax errors. */
const SYNTAX_HINTS: Partial<Record<YAMLError['code'], string>> = {
  BAD_INDENT: 'check the indentation of this line against the lines above it',
  BLOCK_AS_IMPLICIT_KEY: 'a value that contains ": " must be quoted, e.g. title: "Sale: 50% off"',
  MISSING_CHAR: 'a quote, bracket or brace is not closed',
  MULTILINE_IMPLICIT_KEY: 'a key must fit on one line; check for a missing ":" or a stray indent',
  UNEXPECTED_TOKEN: 'check for a stray character, or quote the value',
  BAD_SCALAR_START: 'quote a value that starts with a special character such as "@", "`", "%" or "|"',
  BAD_DQ_ESCAPE: 'inside "double quotes" a backslash starts an escape; use single quotes or write "\\\\"',
};

function syntaxDiagnostics(
  errors: readonly YAMLError[],
  at: At,
  text: string,
  lineOf: (offset: number) => number,
): Diagnostic[] {
  if (errors.length === 0) return [];
  // A tab in the indentation throws off everything after it; report only the tabs then.
  const tabs = errors.filter((e) => e.code === 'TAB_AS_INDENT');
  if (tabs.length > 0) {
    return tabs.map((e) =>
      at(
        'yaml-tab-indent',
        e.pos[0],
        e.pos[1],
        'a tab is used for indentation; YAML allows only spaces there',
        'replace the tab with spaces (set your editor to insert spaces for .yaml files)',
      ),
    );
  }
  const out: Diagnostic[] = [];
  const seenLines = new Set<number>();
  // Where a key indented too deep was found: the yaml package's second error there is an echo.
  const overindented = new Set<number>();
  for (const e of errors) {
    if (e.code === 'MULTILINE_IMPLICIT_KEY' && overindented.has(e.pos[0])) continue;
    const d =
      unquotedReference(e, at, text) ??
      misindentedKey(e, at, text, lineOf) ??
      overindentedKey(e, at, text, lineOf) ??
      syntaxDiagnostic(e, at);
    // One error per line: the later ones on a line are almost always echoes of the first.
    if (d.code === 'yaml-indent' && e.code === 'BLOCK_AS_IMPLICIT_KEY') overindented.add(e.pos[0]);
    if (seenLines.has(d.line)) continue;
    seenLines.add(d.line);
    out.push(d);
  }
  return out;
}

/**
 * An unquoted `${name}` inside `[ ]` or `{ }`: its `{` starts a mapping there, and the yaml
 * package's words ("missing , or : between flow sequence items") do not say so.
 */
function unquotedReference(e: YAMLError, at: At, text: string): Diagnostic | undefined {
  const [brace] = e.pos;
  if (text[brace] !== '{' || text[brace - 1] !== '$') return undefined;
  const close = text.indexOf('}', brace);
  const lineEnd = text.indexOf('\n', brace);
  if (close === -1 || (lineEnd !== -1 && close > lineEnd)) return undefined;
  let start = brace - 1;
  while (start > 0 && !/[\s[{,]/.test(text[start - 1] ?? ' ')) start--;
  // Only the reference is quoted back: text before it on the line may be anything.
  const reference = text.slice(brace - 1, close + 1);
  return at(
    'yaml-syntax',
    start,
    close + 1,
    `invalid YAML: ${reference} is not quoted, and inside [ ] or { } YAML reads its "{" as the start of a mapping`,
    start === brace - 1
      ? `quote the reference: "${reference}"`
      : `quote the whole value that holds it: "…${reference}"`,
  );
}

/** A line of the file that holds a key: where it starts, its key and the key's column. */
interface KeyLine {
  readonly start: number;
  readonly line: number;
  readonly key: string;
  readonly column: number;
}

/** The key a line holds (`  - name: x` holds "name" at column 4), if it holds one. */
function keyLineAt(text: string, start: number, line: number): KeyLine | undefined {
  const end = text.indexOf('\n', start);
  const m = /^( *)((?:- +)*)([^\s#"'[{&*!|>%@`-][^:#]*?):(?: |$)/.exec(
    text.slice(start, end === -1 ? undefined : end).replace(/\r$/, ''),
  );
  if (m === null) return undefined;
  const [, indent = '', dashes = '', key = ''] = m;
  return { start, line, key, column: indent.length + dashes.length };
}

/**
 * A key indented to no column of the keys above it (`   head_image_url:` under a list item whose
 * keys are at 4): the yaml package says "sequence item without - indicator" or "all mapping items
 * must start at the same column", at column 1. Say it is the indentation, at the key, and give the
 * nearest column a key above it is at.
 */
function misindentedKey(
  e: YAMLError,
  at: At,
  text: string,
  lineOf: (offset: number) => number,
): Diagnostic | undefined {
  const indentation =
    e.code === 'BAD_INDENT' || (e.code === 'MISSING_CHAR' && e.message.startsWith('Sequence item without'));
  if (!indentation) return undefined;
  const lineEnd = (start: number): number => {
    const end = text.indexOf('\n', start);
    return end === -1 ? text.length : end;
  };
  const isContent = (start: number): boolean => {
    const line = text.slice(start, lineEnd(start)).trim();
    return line !== '' && !line.startsWith('#');
  };
  // The error is at the start of the line, or of a blank or comment line before it.
  let start = text.lastIndexOf('\n', e.pos[0] - 1) + 1;
  while (start < text.length && !isContent(start)) start = lineEnd(start) + 1;
  if (start >= text.length) return undefined;
  const bad = keyLineAt(text, start, lineOf(start));
  if (bad === undefined) return undefined;
  // The columns keys above it are at, nearest first: a key further up counts when it is less
  // indented than those below it, up to one at column 0.
  const above: KeyLine[] = [];
  for (let s = start; s > 0 && above.at(-1)?.column !== 0; ) {
    s = text.lastIndexOf('\n', s - 2) + 1;
    const k = isContent(s) ? keyLineAt(text, s, 0) : undefined;
    const last = above.at(-1);
    if (k !== undefined && (last === undefined || k.column < last.column))
      above.push({ ...k, line: lineOf(s) });
  }
  if (above.length === 0 || above.some((k) => k.column === bad.column)) return undefined;
  const distance = (k: KeyLine): number => Math.abs(k.column - bad.column);
  const nearest = above.reduce((a, b) => (distance(b) < distance(a) ? b : a));
  return indentDiagnostic(
    at,
    bad,
    'a column no key above it is at, so YAML cannot tell which mapping it belongs to',
    nearest,
  );
}

/**
 * A key indented deeper than the key above it, whose value is on its own line
 * (`    nickname: Alice` then `      quick_replies: []`): YAML reads the two lines as one value,
 * and the yaml package says "nested mappings are not allowed in compact mappings" on the line
 * above. Say it is the indentation, at the key.
 */
function overindentedKey(
  e: YAMLError,
  at: At,
  text: string,
  lineOf: (offset: number) => number,
): Diagnostic | undefined {
  if (e.code !== 'BLOCK_AS_IMPLICIT_KEY') return undefined;
  const lineStart = text.lastIndexOf('\n', e.pos[0] - 1) + 1;
  const above = keyLineAt(text, lineStart, lineOf(lineStart));
  let start = text.indexOf('\n', e.pos[0]) + 1;
  while (start > 0 && start < text.length && /^\s*(#.*)?$/.test(lineText(text, start)))
    start = text.indexOf('\n', start) + 1;
  if (above === undefined || start <= 0 || start >= text.length) return undefined;
  const bad = keyLineAt(text, start, lineOf(start));
  if (bad === undefined || bad.column <= above.column) return undefined;
  return indentDiagnostic(
    at,
    bad,
    `deeper than "${above.key}" on line ${above.line}, which has its value on its line, so YAML reads both lines as one value`,
    above,
  );
}

/** A `yaml-indent` error at the key of `bad`, saying why its column is wrong and which to use. */
function indentDiagnostic(at: At, bad: KeyLine, why: string, like: KeyLine): Diagnostic {
  const spaces = (count: number): string => `${count} space${count === 1 ? '' : 's'}`;
  const keyStart = bad.start + bad.column;
  return at(
    'yaml-indent',
    keyStart,
    keyStart + bad.key.length,
    `the key "${bad.key}" is indented ${spaces(bad.column)}, ${why}`,
    `indent it by ${spaces(like.column)}, as "${like.key}" on line ${like.line}`,
  );
}

function lineText(text: string, start: number): string {
  const end = text.indexOf('\n', start);
  return text.slice(start, end === -1 ? undefined : end);
}

function syntaxDiagnostic(e: YAMLError, at: At): Diagnostic {
  const [start, end] = e.pos;
  if (e.code === 'MULTIPLE_DOCS') {
    return at(
      'yaml-multiple-documents',
      start,
      end,
      'the file holds more than one YAML document (a second "---")',
      'keep one document per file; to split the configuration, use a folder of files',
    );
  }
  if (/maximum call stack/i.test(e.message)) {
    return at('yaml-nesting-too-deep', start, end, 'lists and mappings are nested too deeply here');
  }
  return at('yaml-syntax', start, end, `invalid YAML: ${lowerFirst(e.message)}`, SYNTAX_HINTS[e.code]);
}

function lowerFirst(s: string): string {
  return s.length > 0 && /^[A-Z][a-z]/.test(s) ? s[0]?.toLowerCase() + s.slice(1) : s;
}

/**
 * Turns the parsed nodes into plain data, in one pass that also refuses what the yaml package
 * accepts but a desired-state file must not hold: tags other than the core ones (`!foo`,
 * `!!binary`), keys that are not plain values, aliases to nothing, nesting beyond
 * {@link MAX_NESTING}, and aliases that expand beyond {@link MAX_ALIAS_EXPANSION} (an "alias
 * bomb": the yaml package's own guard counts uses of an anchor, which would also refuse 10,000
 * guides sharing one list of quick replies, so the expansion is measured here instead). An alias
 * stands for the same object as its anchor, as in the yaml package's `toJS`. It also records which
 * node each alias stands for, for `locate`.
 */
class NodeWalker {
  /** Problems that make the file unusable: the walk stops being trusted. */
  readonly diagnostics: Diagnostic[] = [];
  /** Problems after which the file can still be checked: duplicate keys, bad merges. */
  readonly duplicates: Diagnostic[] = [];
  readonly aliasTargets = new Map<Alias, Node>();
  /** The entries of each mapping by key, merged ones included. */
  readonly entries = new Map<unknown, ReadonlyMap<string, Entry>>();
  private readonly anchors = new Map<string, Node>();
  /**
   * The node each anchor name was last given to, from where the node starts (an alias refers to the
   * last one before it), and the anchored lists and mappings being walked: an alias to one of those
   * is inside the node it refers to, a cycle.
   */
  private readonly latestAnchor = new Map<string, Node>();
  private readonly openAnchored = new Set<Node>();
  /** The value and expanded size (in nodes) of each anchored node. */
  private readonly anchored = new Map<Node, { readonly value: unknown; readonly size: number }>();
  /** Nodes visited, counting each alias once and what it expands to in `aliasExpansion`. */
  private visited = 0;
  private aliasExpansion = 0;
  private stopped = false;

  constructor(
    private readonly text: string,
    private readonly at: At,
    private readonly lineOf: (offset: number) => number,
  ) {}

  walk(node: unknown, depth: number): unknown {
    if (this.stopped) return null;
    if (isAlias(node)) return this.walkAlias(node);
    if (!isScalar(node) && !isMap(node) && !isSeq(node)) return null;

    if (depth > MAX_NESTING) {
      const [start, end] = rangeOf(node);
      this.stop(
        this.at(
          'yaml-nesting-too-deep',
          start,
          end,
          `lists and mappings are nested more than ${MAX_NESTING} levels deep here`,
        ),
      );
      return null;
    }
    const badTag = node.tag !== undefined && !ALLOWED_TAGS.has(node.tag);
    if (badTag) this.reportTag(node, node.tag ?? '');

    if (node.anchor !== undefined) this.latestAnchor.set(node.anchor, node);
    const before = this.visited + this.aliasExpansion;
    this.visited++;
    let value: unknown;
    if (isScalar(node)) {
      value = node.value;
      // A core tag can still make something else than plain data in YAML 1.1 (a date, say).
      if (
        !badTag &&
        value !== null &&
        typeof value !== 'string' &&
        typeof value !== 'number' &&
        typeof value !== 'boolean'
      ) {
        this.reportTag(node, node.tag ?? 'implicit');
      }
    } else {
      if (node.anchor !== undefined) this.openAnchored.add(node);
      if (isMap(node)) {
        value = this.walkMap(node, depth);
      } else {
        const list: unknown[] = [];
        for (const item of node.items) list.push(this.walk(item, depth + 1));
        value = list;
      }
      this.openAnchored.delete(node);
    }
    // Register the anchor only now: an alias inside its own anchor's node would make a cycle.
    if (node.anchor !== undefined) {
      this.anchors.set(node.anchor, node);
      this.anchored.set(node, { value, size: this.visited + this.aliasExpansion - before });
    }
    return value;
  }

  /**
   * A mapping, with its entries indexed by key (for `locate`, and to find duplicate keys in one
   * pass). Merge keys (`<<: *common`, `<<: [*a, *b]`) follow YAML 1.1: the keys written in the
   * mapping win over merged ones, and an earlier mapping of a merge list wins over a later one.
   */
  private walkMap(node: YAMLMap<unknown, unknown>, depth: number): Record<string, unknown> {
    const object: Record<string, unknown> = {};
    const index = new Map<string, Entry>();
    const merges: Pair<unknown, unknown>[] = [];
    for (const pair of node.items) {
      if (isMergeKey(pair.key)) {
        merges.push(pair);
        continue;
      }
      const key = this.walkKey(pair);
      const item = this.walk(pair.value, depth + 1);
      const first = index.get(key);
      if (first !== undefined) {
        this.reportDuplicate(key, pair.key, first.key);
        continue;
      }
      index.set(key, { key: pair.key, value: pair.value });
      setOwn(object, key, item);
    }
    merges.forEach((pair, i) => {
      if (i > 0) this.reportDuplicate('<<', pair.key, merges[0]?.key);
      else this.merge(pair, depth, object, index);
    });
    this.entries.set(node, index);
    return object;
  }

  /** Adds the entries of the mappings a merge key names that `object` does not have yet. */
  private merge(
    pair: Pair<unknown, unknown>,
    depth: number,
    object: Record<string, unknown>,
    index: Map<string, Entry>,
  ): void {
    const merged = this.walk(pair.value, depth + 1);
    if (this.stopped) return;
    const nodes: readonly unknown[] = isSeq(pair.value) ? pair.value.items : [pair.value];
    const values: readonly unknown[] = isSeq(pair.value) && Array.isArray(merged) ? merged : [merged];
    nodes.forEach((item, i) => {
      const source = isAlias(item) ? this.aliasTargets.get(item) : item;
      const sourceEntries = isMap(source) ? this.entries.get(source) : undefined;
      const sourceValue = values[i];
      if (sourceEntries === undefined || !isRecord(sourceValue)) {
        const [start, end] = rangeOf(item);
        this.duplicates.push(
          this.at(
            'yaml-merge-invalid',
            start,
            end,
            `the merge key "<<" takes a mapping, an alias of one (<<: *common) or a list of them (<<: [*a, *b]); this is ${describeNode(isAlias(item) ? source : item)}`,
            'anchor a mapping (x-common: &common {…}) and merge its alias',
          ),
        );
        return;
      }
      for (const [key, entry] of sourceEntries) {
        if (index.has(key)) continue;
        index.set(key, entry);
        setOwn(object, key, sourceValue[key]);
      }
    });
  }

  private reportDuplicate(key: string, node: unknown, first: unknown): void {
    this.duplicates.push(duplicateKeyDiagnostic(this.at, this.lineOf, key, rangeOf(node), rangeOf(first)[0]));
  }

  private walkKey(pair: Pair<unknown, unknown>): string {
    const key = pair.key;
    if (!isScalar(key) || (key.value !== null && typeof key.value === 'object')) {
      const [start, end] = rangeOf(key);
      this.diagnostics.push(
        this.at(
          'yaml-complex-key',
          start,
          end,
          'a mapping key must be a plain name, not a list, a mapping or an alias',
          'write keys such as "nickname:"; if this line was meant as text, quote it',
        ),
      );
      return '';
    }
    if (key.tag !== undefined && !ALLOWED_TAGS.has(key.tag)) this.reportTag(key, key.tag);
    this.visited++;
    return keyString(key.value);
  }

  private walkAlias(alias: Alias): unknown {
    const target = this.anchors.get(alias.source);
    const [start, end] = rangeOf(alias);
    this.visited++;
    const latest = this.latestAnchor.get(alias.source);
    if (latest !== undefined && this.openAnchored.has(latest)) {
      this.diagnostics.push(
        this.at(
          'yaml-syntax',
          start,
          end,
          `alias *${alias.source} is inside the list or mapping &${alias.source} that it refers to: recursive aliases are not allowed`,
          'an alias can only repeat a value written before it; write the inner value out instead',
        ),
      );
      return null;
    }
    const anchored = target === undefined ? undefined : this.anchored.get(target);
    if (target === undefined || anchored === undefined) {
      this.diagnostics.push(
        this.at(
          'yaml-syntax',
          start,
          end,
          `alias *${alias.source} refers to no anchor &${alias.source} before it`,
          'define the anchor (&name) earlier in the file than its first use (*name)',
        ),
      );
      return null;
    }
    this.aliasTargets.set(alias, target);
    this.aliasExpansion += anchored.size - 1;
    if (this.aliasExpansion > MAX_ALIAS_EXPANSION) {
      this.stop(
        this.at(
          'yaml-alias-limit',
          start,
          end,
          `aliases in this file expand to more than ${MAX_ALIAS_EXPANSION.toLocaleString('en-US')} extra values; this looks like an "alias bomb"`,
          'use fewer aliases (*name); write the values out instead',
        ),
      );
    }
    return anchored.value;
  }

  private reportTag(node: Node, tag: string): void {
    const [start] = rangeOf(node);
    const tagStart = this.findTagStart(start);
    const shown = tag.startsWith(CORE_TAG_PREFIX) ? `!!${tag.slice(CORE_TAG_PREFIX.length)}` : tag;
    this.diagnostics.push(
      this.at(
        'yaml-tag',
        tagStart ?? start,
        tagStart === undefined ? start : tagStart + shown.length,
        `the YAML tag ${shown} is not supported; a desired-state file holds only plain text, numbers, true/false, lists and mappings`,
        'remove the tag; to write text that starts with "!", quote it',
      ),
    );
  }

  /** Tags are written before the node's range: look back over spaces (and an anchor) for "!". */
  private findTagStart(nodeStart: number): number | undefined {
    let i = nodeStart;
    for (let token = 0; token < 2; token++) {
      while (i > 0 && /\s/.test(this.text[i - 1] ?? '')) i--;
      let j = i;
      while (j > 0 && !/\s/.test(this.text[j - 1] ?? '')) j--;
      if (this.text[j] === '!') return j;
      if (this.text[j] !== '&') return undefined;
      i = j;
    }
    return undefined;
  }

  private stop(diagnostic: Diagnostic): void {
    this.diagnostics.push(diagnostic);
    this.stopped = true;
  }
}

/** Where one entry of a mapping was written: its key and value nodes (a merged entry: in the source). */
interface Entry {
  readonly key: unknown;
  readonly value: unknown;
}

/** A YAML 1.1 merge key: `<<` written plain (a quoted "<<" is an ordinary key). */
function isMergeKey(key: unknown): boolean {
  return isScalar(key) && key.value === '<<' && key.type === Scalar.PLAIN && key.tag === undefined;
}

function duplicateKeyDiagnostic(
  at: At,
  lineOf: (offset: number) => number,
  key: string,
  [start, end]: [number, number],
  firstStart: number,
): Diagnostic {
  return at(
    'yaml-duplicate-key',
    start,
    end,
    `key "${key}" appears twice in the same mapping (first at line ${lineOf(firstStart)}); the first is used`,
    'remove one of the two, or merge their values',
  );
}

function rangeOf(node: unknown): [number, number] {
  if ((isScalar(node) || isMap(node) || isSeq(node) || isAlias(node)) && node.range) {
    return [node.range[0], node.range[1]];
  }
  return [0, 0];
}

function isBlank(text: string, range: Node['range']): boolean {
  return !range || text.slice(range[0], range[1]).trim() === '';
}

/** What a node is, never what it holds: the text may be a secret of a file that is not ours. */
function describeNode(node: unknown): string {
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) {
    const v = node.value;
    if (typeof v === 'string') return 'text';
    if (typeof v === 'number') return 'a number';
    if (typeof v === 'boolean') return `${v}`;
    return 'null';
  }
  return 'not a mapping';
}

/**
 * The walk of `path` from `root`, through aliases (resolved at each step): the node reached (an
 * alias at the end is not resolved), the entry whose value it is (none after a list's item), and
 * whether every segment was found; when one is not, `node` is the last node reached.
 */
function walkPath(
  root: Node,
  path: ValuePath,
  aliasTargets: ReadonlyMap<Alias, Node>,
  entries: ReadonlyMap<unknown, ReadonlyMap<string, Entry>>,
): { node: unknown; entry: Entry | undefined; complete: boolean } {
  let node: unknown = root;
  let entry: Entry | undefined;
  for (const segment of path) {
    if (isAlias(node)) node = aliasTargets.get(node) ?? node;
    if (isMap(node)) {
      const found = entries.get(node)?.get(String(segment));
      if (found === undefined) return { node, entry, complete: false };
      entry = found;
      node = found.value;
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)];
      if (item === undefined) return { node, entry, complete: false };
      entry = undefined;
      node = item;
    } else {
      return { node, entry, complete: false };
    }
  }
  return { node, entry, complete: true };
}

/**
 * The offsets of the node at `path`: of the nearest existing ancestor if the path ends early, and
 * of its key when the value is empty or `part` is the key.
 */
function locateRange(
  root: Node,
  path: ValuePath,
  part: SpanPart,
  aliasTargets: ReadonlyMap<Alias, Node>,
  entries: ReadonlyMap<unknown, ReadonlyMap<string, Entry>>,
): [number, number] {
  const { node, entry, complete } = walkPath(root, path, aliasTargets, entries);
  if (entry !== undefined && complete && part === 'key') return rangeOf(entry.key);
  const range = rangeOf(node);
  if (range[0] === range[1] && entry !== undefined) return rangeOf(entry.key);
  return range;
}

/** The node at `path`, through aliases; undefined when the path leads nowhere. */
function findNode(
  root: Node,
  path: ValuePath,
  aliasTargets: ReadonlyMap<Alias, Node>,
  entries: ReadonlyMap<unknown, ReadonlyMap<string, Entry>>,
): unknown {
  const { node, complete } = walkPath(root, path, aliasTargets, entries);
  if (!complete) return undefined;
  return isAlias(node) ? aliasTargets.get(node) : node;
}

function keyString(value: unknown): string {
  return value === null ? '' : String(value);
}

/** 1-based line and column of an offset, counted without the yaml package. */
export function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Finds where flow collections ("[", "{") nest deeper than {@link MAX_NESTING}, before the yaml
 * package sees the text: its parser recurses once per level and takes seconds on a megabyte of
 * "[". A rough scan is enough, as long as it never raises a false alarm:
 * - outside a flow collection, "[" and "{" open one only where a value starts (first on the line,
 *   or after ":", "-", "?"), not inside text such as `note: see [1`;
 * - inside one, every bracket counts (YAML does not allow them in plain text there);
 * - quoted text and comments are skipped; a quote counts only where a value starts (not in "it's").
 */
function findDeepFlowNesting(text: string): number | undefined {
  const NEWLINE = 0x0a;
  let depth = 0;
  /** The previous character, and the previous one that is not a space, on this line. */
  let previous = NEWLINE;
  let lastSolid = NEWLINE;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === NEWLINE) {
      previous = NEWLINE;
      lastSolid = NEWLINE;
      continue;
    }
    if (c === 0x5b || c === 0x7b) {
      // [ {
      if (
        depth > 0 ||
        lastSolid === NEWLINE ||
        lastSolid === 0x3a ||
        lastSolid === 0x2d ||
        lastSolid === 0x3f
      ) {
        depth++;
        if (depth > MAX_NESTING) return i;
      }
    } else if (c === 0x5d || c === 0x7d) {
      // ] }
      if (depth > 0) depth--;
    } else if ((c === 0x22 || c === 0x27) && startsValue(previous)) {
      // "…" with backslash escapes, or '…' where '' is an escaped quote (skipping to each next
      // quote handles it). Quoted text may span lines.
      i++;
      while (i < n && text.charCodeAt(i) !== c) i += c === 0x22 && text.charCodeAt(i) === 0x5c ? 2 : 1;
    } else if (c === 0x23 && (previous === 0x20 || previous === 0x09 || previous === NEWLINE)) {
      // # comment, to the end of the line
      while (i + 1 < n && text.charCodeAt(i + 1) !== NEWLINE) i++;
    }
    previous = text.charCodeAt(i);
    if (previous !== 0x20 && previous !== 0x09) lastSolid = previous;
  }
  return undefined;
}

/** Whether a quote after this character code opens a quoted value. */
function startsValue(previous: number): boolean {
  // newline, space, tab, "[", "{", ",", ":", "-", "?"
  return [0x0a, 0x20, 0x09, 0x5b, 0x7b, 0x2c, 0x3a, 0x2d, 0x3f].includes(previous);
}
