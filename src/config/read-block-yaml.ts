import { isScalar, LineCounter, type ScalarTag, Schema } from 'yaml';
import type { SpanPart, ValuePath } from '../core/positions.js';

/**
 * A fast reader for the block YAML that desired-state files are written in: a root mapping, block
 * mappings and lists, one-line plain and quoted scalars, one-line flow lists of scalars, `{}`,
 * comments. The `yaml` package takes seconds on a file of 100,000 guides (its lexer, parser and
 * composer are generators, about 1.3 MB/s); this reads the same files in one pass over the text.
 *
 * It gives exactly what the `yaml` package path of `parseYaml` gives for the files it reads: the
 * same value, the same positions (the package's node ranges, including where a mapping ends, which
 * depends on the comments after it) and the same duplicate keys. Anything else — anchors, tags,
 * block scalars, multi-line scalars, flow mappings, tabs, `---`, CR line ends, syntax errors, a top
 * level that is not a mapping — makes it decline (return undefined) at once, and the `yaml`
 * package reads the file, with its diagnostics. The differential test
 * (test/config/read-block-yaml.test.ts) holds the two paths equal on thousands of random files.
 */
export interface BlockYaml {
  readonly value: Record<string, unknown>;
  /** Line starts of the text, as the `yaml` package's LineCounter holds them. */
  readonly lineCounter: LineCounter;
  /** The offsets `locateRange` of parse-yaml.ts gives for the same path in the same file. */
  locateRange(path: ValuePath, part: SpanPart): [number, number];
  /** The range of the scalar at `path`; undefined when the path does not end at a scalar. */
  scalarRange(path: ValuePath): [number, number] | undefined;
  readonly text: string;
  /** Duplicate keys in the order the yaml path reports them; the first of each key is kept. */
  readonly duplicates: readonly DuplicateKey[];
}

export interface DuplicateKey {
  readonly key: string;
  readonly start: number;
  readonly end: number;
  /** Where the first of the two keys starts. */
  readonly firstStart: number;
}

/**
 * Deeper files are left to the yaml path, which refuses nesting beyond MAX_NESTING with its own
 * diagnostic; a desired-state file needs about 6 levels.
 */
const MAX_DEPTH = 32;
/** The yaml package refuses (in strict mode) an implicit key longer than 1024 characters. */
const MAX_KEY_CHARS = 1000;

/**
 * Characters that this reader does not handle, anywhere in the file: tabs (YAML refuses them in
 * indentation and they are rare elsewhere), CR (the yaml package folds CRLF), other C0 and C1
 * controls, the BOM, and the Unicode line and paragraph separators.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is its job
const UNHANDLED_CHARS = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]/;

/** Sets a key as an own property; "__proto__" is an ordinary key here, never the object's prototype. */
export function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    object[key] = value;
  }
}

/** Reads `text`, or returns undefined when it is outside the subset (the yaml package reads it then). */
export function readBlockYaml(text: string): BlockYaml | undefined {
  if (UNHANDLED_CHARS.test(text)) return undefined;
  const reader = new BlockReader(text);
  let read: { value: Record<string, unknown>; root: MapNode } | undefined;
  try {
    read = reader.readDocument();
  } catch (error) {
    if (error === DECLINED) return undefined;
    throw error;
  }
  if (read === undefined) return undefined;
  const { root, value } = read;
  const lineCounter = new LineCounter();
  // The same line starts as the yaml package records (one after each "\n"), shared, not copied.
  lineCounter.lineStarts = reader.starts;
  return {
    value,
    lineCounter,
    locateRange: (path, part) => locateRange(root, path, part),
    scalarRange: (path) => scalarRange(root, path),
    text,
    duplicates: reader.duplicates,
  };
}

/** A scalar: its range is the `yaml` package's range[0] and range[1] (an empty value: start === end). */
interface ScalarNode {
  readonly kind: 'scalar';
  readonly start: number;
  readonly end: number;
}

interface MapNode {
  readonly kind: 'map';
  readonly start: number;
  end: number;
  /** The entries in the order written, without the duplicates of a key. */
  readonly entries: Entry[];
  /**
   * The entries by key, made on first use: a valid file never needs it (`locate` is for
   * diagnostics), and not making a Map beside the value's object halves the work per key.
   */
  index: Map<string, Entry> | undefined;
  /** The entry found last (see `findEntry`). */
  cursor: number;
}

interface SeqNode {
  readonly kind: 'seq';
  readonly start: number;
  end: number;
  readonly items: FastNode[];
}

type FastNode = ScalarNode | MapNode | SeqNode;

interface Entry {
  readonly key: string;
  /** Its place in `entries`. */
  readonly at: number;
  readonly keyStart: number;
  readonly keyEnd: number;
  readonly value: FastNode;
}

/**
 * The walk of `path` from `root`, as `walkPath` of parse-yaml.ts: the node reached, the entry
 * whose value it is (none after a list's item), and whether every segment was found.
 */
function walkPath(
  root: MapNode,
  path: ValuePath,
): { node: FastNode; entry: Entry | undefined; complete: boolean } {
  let node: FastNode = root;
  let entry: Entry | undefined;
  for (const segment of path) {
    if (node.kind === 'map') {
      const found = findEntry(node, String(segment));
      if (found === undefined) return { node, entry, complete: false };
      entry = found;
      node = found.value;
    } else if (node.kind === 'seq') {
      const item: FastNode | undefined = node.items[Number(segment)];
      if (item === undefined) return { node, entry, complete: false };
      entry = undefined;
      node = item;
    } else {
      return { node, entry, complete: false };
    }
  }
  return { node, entry, complete: true };
}

/** The offsets `locateRange` of parse-yaml.ts gives, over these nodes. */
function locateRange(root: MapNode, path: ValuePath, part: SpanPart): [number, number] {
  const { node, entry, complete } = walkPath(root, path);
  if (entry !== undefined && (node.start === node.end || (complete && part === 'key'))) {
    return [entry.keyStart, entry.keyEnd];
  }
  return [node.start, node.end];
}

function scalarRange(root: MapNode, path: ValuePath): [number, number] | undefined {
  const { node, complete } = walkPath(root, path);
  return complete && node.kind === 'scalar' ? [node.start, node.end] : undefined;
}

/**
 * The entry of `key`. Diagnostics ask for the keys of a mapping mostly in the order written (ajv
 * reports unknown keys in that order): the entry found last and the one after it are tried first,
 * so that 200,000 unknown keys need no index; small mappings are searched through.
 */
function findEntry(node: MapNode, key: string): Entry | undefined {
  const { entries, cursor } = node;
  const last = entries[cursor];
  if (last !== undefined && last.key === key) return last;
  const next = entries[cursor + 1];
  if (next !== undefined && next.key === key) {
    node.cursor = cursor + 1;
    return next;
  }
  const found = entries.length <= 8 ? entries.find((e) => e.key === key) : indexOf(node).get(key);
  if (found !== undefined) node.cursor = found.at;
  return found;
}

function indexOf(node: MapNode): Map<string, Entry> {
  if (node.index === undefined) {
    node.index = new Map();
    for (const entry of node.entries) node.index.set(entry.key, entry);
  }
  return node.index;
}

/** Thrown inside the reader when the text is outside the subset; never escapes `readBlockYaml`. */
const DECLINED = new Error('outside the block YAML subset');

function decline(): never {
  throw DECLINED;
}

/** The core schema's tags that resolve plain scalars, in the order the yaml package tries them. */
const PLAIN_TAGS: readonly ScalarTag[] = new Schema({}).tags.filter(
  (tag): tag is ScalarTag => tag.collection === undefined && tag.default === true && tag.test !== undefined,
);
/** The options the yaml path composes with (parse-yaml.ts): `intAsBigInt` is off there too. */
const RESOLVE_OPTIONS = { strict: true, uniqueKeys: false } as const;

/**
 * A plain scalar's value, resolved by the same tags as the yaml package (null, bool, int, float,
 * else text). Every core tag's test starts with one of `~ n N t T f F + - . 0-9`: other text is a
 * string without running the eleven tests.
 */
function resolvePlain(source: string): unknown {
  const c = source.charCodeAt(0);
  const maybeTagged =
    c === 0x7e || // ~
    c === 0x6e || // n
    c === 0x4e || // N
    c === 0x74 || // t
    c === 0x54 || // T
    c === 0x66 || // f
    c === 0x46 || // F
    c === 0x2b || // +
    c === 0x2d || // -
    c === 0x2e || // .
    (c >= 0x30 && c <= 0x39);
  if (!maybeTagged) return source;
  // Digits only: the core schema's decimal int, which the yaml package reads with parseInt.
  if (isDigits(source)) return Number.parseInt(source, 10);
  for (const tag of PLAIN_TAGS) {
    if (tag.test?.test(source) !== true) continue;
    const resolved = tag.resolve(source, decline, RESOLVE_OPTIONS);
    return isScalar(resolved) ? resolved.value : resolved;
  }
  return source;
}

function isDigits(source: string): boolean {
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return source.length > 0;
}

/** The escapes of double-quoted text, as the yaml package reads them. */
const ESCAPES: Readonly<Record<string, string>> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
};

const DOCUMENT_START = '---';
const DOCUMENT_END = '...';
const SPACE = 0x20;
const NEWLINE = 0x0a;
const HASH = 0x23;
const COLON = 0x3a;
const DASH = 0x2d;
const SQUOTE = 0x27;
const DQUOTE = 0x22;

/** A scalar or flow list written on one line, and where it ends. */
interface Inline {
  readonly value: unknown;
  readonly node: FastNode;
  /** Just after the value (the closing quote or bracket; a plain scalar's last non-space character). */
  readonly after: number;
}

/** A key and the position of its ":". */
interface Key {
  readonly key: string;
  readonly start: number;
  readonly end: number;
  readonly colon: number;
}

/**
 * Comments after a collection's last value, not taken into the value: the yaml package puts them
 * at the end of the innermost collection that is closed by the next line and that they are
 * indented into (see `closeCollection`).
 */
interface Trailing {
  /** The indentation of the most indented of those comments. */
  readonly maxIndent: number;
  /** Whether a collection has taken them already. */
  taken: boolean;
}

class BlockReader {
  /** The offset where each line starts; the last line may be empty (the text ends with "\n"). */
  readonly starts: number[] = [0];
  readonly duplicates: DuplicateKey[] = [];
  /** The offset of each line's first character that is not a space. */
  private readonly firsts: number[] = [];
  /** Whether each line holds content (not only spaces, not a comment). */
  private readonly contents: boolean[] = [];
  private readonly n: number;
  /** The next content line (not blank, not a comment) after what was read; `starts.length` at the end. */
  private line = 0;
  /** Where the last value read ends, comments taken in included: the yaml package's range[2]. */
  private lastEnd = 0;
  private trailing: Trailing | undefined;
  /** The next " #" (-1: none) and the next key ":" (see `keyColonFrom`) after the offsets searched. */
  private nextHash = -2;
  private nextColon = -1;
  private readonly keyCache: ({ readonly source: string; readonly key: string } | undefined)[] = [];

  constructor(private readonly text: string) {
    this.n = text.length;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
    // Each line's indentation and kind, once: the reader asks for them several times per line.
    for (let line = 0; line < this.starts.length; line++) {
      let p = this.startOf(line);
      while (text.charCodeAt(p) === SPACE) p++;
      this.firsts.push(p);
      this.contents.push(p < this.endOf(line) && text.charCodeAt(p) !== HASH);
    }
  }

  readDocument(): { value: Record<string, unknown>; root: MapNode } | undefined {
    const first = this.nextContent(0);
    if (first === this.starts.length || this.indentOf(first) !== 0) return undefined;
    const start = this.startOf(first);
    // Document markers ("---", "...") can only be at column 0.
    for (const lineStart of this.starts) {
      if (this.text.startsWith(DOCUMENT_START, lineStart) || this.text.startsWith(DOCUMENT_END, lineStart)) {
        return undefined;
      }
    }
    const root = this.readMap(first, 0, start, 1);
    if (this.line !== this.starts.length) return undefined;
    return root;
  }

  private startOf(line: number): number {
    return this.starts[line] ?? this.n;
  }

  /** The offset of the "\n" that ends `line`, or the end of the text. */
  private endOf(line: number): number {
    const next = this.starts[line + 1];
    return next === undefined ? this.n : next - 1;
  }

  private nextStartOf(line: number): number {
    return this.starts[line + 1] ?? this.n;
  }

  /** The offset of the first character of `line` that is not a space. */
  private firstOf(line: number): number {
    return this.firsts[line] ?? this.n;
  }

  private indentOf(line: number): number {
    return this.firstOf(line) - this.startOf(line);
  }

  /** The first line from `line` on that holds something other than spaces and a comment. */
  private nextContent(line: number): number {
    const count = this.starts.length;
    let i = line;
    while (i < count && this.contents[i] !== true) i++;
    return i;
  }

  /** Whether `line` is a list item ("-" then a space or the end of the line) at its indentation. */
  private isDashLine(line: number): boolean {
    const p = this.firstOf(line);
    return this.text.charCodeAt(p) === DASH && this.isBlankOrEnd(p + 1, line);
  }

  private isBlankOrEnd(p: number, line: number): boolean {
    return p >= this.endOf(line) || this.text.charCodeAt(p) === SPACE;
  }

  private skipSpaces(p: number): number {
    let q = p;
    while (this.text.charCodeAt(q) === SPACE) q++;
    return q;
  }

  /**
   * A block mapping whose first key starts at `keyStart` on `line` (after "- " for a mapping in a
   * list item) and whose keys are at column `indent`.
   */
  private readMap(
    line: number,
    indent: number,
    keyStart: number,
    depth: number,
  ): { value: Record<string, unknown>; root: MapNode } {
    if (depth > MAX_DEPTH) decline();
    const node: MapNode = {
      kind: 'map',
      start: keyStart,
      end: keyStart,
      entries: [],
      index: undefined,
      cursor: 0,
    };
    const value: Record<string, unknown> = {};
    let at = line;
    let start = keyStart;
    for (;;) {
      this.readEntry(node, value, at, start, indent, depth);
      const next = this.line;
      if (next === this.starts.length) break;
      const nextIndent = this.indentOf(next);
      if (nextIndent > indent) decline();
      if (nextIndent < indent) break;
      if (this.isDashLine(next)) decline();
      this.trailing = undefined;
      at = next;
      start = this.startOf(next) + indent;
    }
    this.closeCollection(node, indent);
    return { value, root: node };
  }

  private readEntry(
    node: MapNode,
    object: Record<string, unknown>,
    line: number,
    keyStart: number,
    indent: number,
    depth: number,
  ): void {
    const key = this.readKey(line, keyStart);
    const valueStart = this.skipSpaces(key.colon + 1);
    let item: { value: unknown; node: FastNode };
    if (valueStart >= this.endOf(line) || this.text.charCodeAt(valueStart) === HASH) {
      item = this.readBlockValue(line, indent, valueStart, depth, true);
    } else {
      item = this.readLineValue(line, valueStart, indent);
    }
    if (Object.hasOwn(object, key.key)) {
      const firstStart = indexOf(node).get(key.key)?.keyStart ?? key.start;
      this.duplicates.push({ key: key.key, start: key.start, end: key.end, firstStart });
      return;
    }
    const entry: Entry = {
      key: key.key,
      at: node.entries.length,
      keyStart: key.start,
      keyEnd: key.end,
      value: item.node,
    };
    node.entries.push(entry);
    node.index?.set(key.key, entry);
    setOwn(object, key.key, item.value);
  }

  /**
   * The value of a key or list item with nothing after it on its line: a mapping or list on the
   * lines below, more indented (or a list at the key's own indentation), or else empty (null).
   * `commentsBefore`: comments before the "-" of this list item went with it (see `readSeq`).
   */
  private readBlockValue(
    line: number,
    indent: number,
    emptyAt: number,
    depth: number,
    ofKey: boolean,
    commentsBefore = false,
  ): { value: unknown; node: FastNode } {
    const next = this.nextContent(line + 1);
    if (next < this.starts.length) {
      const nextIndent = this.indentOf(next);
      const dash = this.isDashLine(next);
      if (nextIndent > indent && !ofKey) decline();
      if (nextIndent > indent && dash) return this.readSeq(next, nextIndent, depth + 1);
      if (nextIndent > indent) {
        const read = this.readMap(next, nextIndent, this.startOf(next) + nextIndent, depth + 1);
        return { value: read.value, node: read.root };
      }
      if (nextIndent === indent && dash && ofKey) return this.readSeq(next, nextIndent, depth + 1);
    }
    // The yaml package puts an empty value after the ":" (or "-") and the spaces after it. The
    // comments below it go with it and never end a collection; when there is one (or one before
    // the "-"), the value's range[2] runs on to the next line's first character.
    this.line = next;
    this.trailing = undefined;
    const commented =
      commentsBefore || this.text.charCodeAt(emptyAt) === HASH || this.hasCommentLine(line + 1, next);
    this.lastEnd = commented ? this.contentStart(next) : emptyAt;
    return { value: null, node: { kind: 'scalar', start: emptyAt, end: emptyAt } };
  }

  private hasCommentLine(from: number, to: number): boolean {
    for (let i = from; i < to; i++) if (this.firstOf(i) !== this.endOf(i)) return true;
    return false;
  }

  /** The first character of content line `line`, or the end of the text. */
  private contentStart(line: number): number {
    return line === this.starts.length ? this.n : this.firstOf(line);
  }

  private readSeq(line: number, indent: number, depth: number): { value: unknown[]; node: SeqNode } {
    if (depth > MAX_DEPTH) decline();
    const node: SeqNode = { kind: 'seq', start: this.startOf(line) + indent, end: 0, items: [] };
    const value: unknown[] = [];
    let at = line;
    let commentsBefore = false;
    for (;;) {
      const item = this.readItem(at, indent, depth, commentsBefore);
      node.items.push(item.node);
      value.push(item.value);
      const next = this.line;
      if (next === this.starts.length) break;
      const nextIndent = this.indentOf(next);
      if (nextIndent > indent) decline();
      if (nextIndent < indent || !this.isDashLine(next)) break;
      // Comments after the last item that no collection inside it kept go with the next "-".
      commentsBefore = this.trailing !== undefined && !this.trailing.taken;
      this.trailing = undefined;
      at = next;
    }
    this.closeCollection(node, indent);
    return { value, node };
  }

  /** One list item: "-", then nothing, a scalar or flow list, or the first key of a mapping. */
  private readItem(
    line: number,
    indent: number,
    depth: number,
    commentsBefore: boolean,
  ): { value: unknown; node: FastNode } {
    const dash = this.startOf(line) + indent;
    const start = this.skipSpaces(dash + 1);
    const end = this.endOf(line);
    if (start >= end || this.text.charCodeAt(start) === HASH) {
      return this.readBlockValue(line, indent, start, depth, false, commentsBefore);
    }
    const c = this.text.charCodeAt(start);
    if (c === DASH && this.isBlankOrEnd(start + 1, line)) decline();
    if (this.isKeyAt(line, start)) {
      const read = this.readMap(line, start - this.startOf(line), start, depth + 1);
      return { value: read.value, node: read.root };
    }
    return this.readLineValue(line, start, indent);
  }

  /** Whether a key (text then ":" and a space or the end of the line) starts at `p`. */
  private isKeyAt(line: number, p: number): boolean {
    const c = this.text.charCodeAt(p);
    const end = this.endOf(line);
    if (c === SQUOTE || c === DQUOTE) {
      const after = this.skipSpaces(this.readQuoted(line, p).after);
      return after < end && this.text.charCodeAt(after) === COLON;
    }
    return this.findPlainEnd(line, p).colon !== -1;
  }

  private readKey(line: number, start: number): Key {
    const c = this.text.charCodeAt(start);
    let key: string;
    let end: number;
    let colon: number;
    if (c === SQUOTE || c === DQUOTE) {
      const quoted = this.readQuoted(line, start);
      key = String(quoted.value);
      end = quoted.after;
      colon = this.skipSpaces(end);
      if (this.text.charCodeAt(colon) !== COLON || !this.isBlankOrEnd(colon + 1, line)) decline();
    } else {
      if (!isPlainKeyStart(c)) decline();
      const plain = this.findPlainEnd(line, start);
      if (plain.colon === -1) decline();
      end = plain.end;
      colon = plain.colon;
      key = this.plainKey(start, end);
    }
    if (colon - start > MAX_KEY_CHARS) decline();
    return { key, start, end, colon };
  }

  /**
   * A plain key as a string. Keys repeat (every guide has a "nickname"): the last key of each
   * length and first letter is kept and given again when the text matches, which saves a string
   * per entry (most of them would live as long as the value).
   */
  private plainKey(start: number, end: number): string {
    const slot = ((end - start) * 31 + this.text.charCodeAt(start)) & 0xff;
    const cached = this.keyCache[slot];
    if (
      cached !== undefined &&
      cached.source.length === end - start &&
      this.text.startsWith(cached.source, start)
    ) {
      return cached.key;
    }
    const source = this.text.slice(start, end);
    // Keys are names: anything that looks like flow syntax, or a merge key, goes the yaml path.
    if (/[[\]{},]/.test(source) || source === '<<') decline();
    const resolved = resolvePlain(source);
    const key = resolved === null ? '' : String(resolved);
    this.keyCache[slot] = { source, key };
    return key;
  }

  /**
   * Where a plain scalar starting at `start` ends in block context: before " #" (a comment) or
   * ": " (a key), or at the end of the line, trailing spaces left out. `colon` is the ":" of a key.
   * The searches are indexOf's (native speed even before the JIT has compiled this code).
   */
  private findPlainEnd(line: number, start: number): { end: number; colon: number } {
    const lineEnd = this.endOf(line);
    const keyColon = this.keyColonFrom(start);
    let colon = keyColon < lineEnd ? keyColon : -1;
    if (this.nextHash !== -1 && this.nextHash < start) this.nextHash = this.text.indexOf(' #', start);
    const hash = this.nextHash !== -1 && this.nextHash < lineEnd ? this.nextHash : -1;
    let stop = lineEnd;
    if (hash !== -1 && (colon === -1 || hash < colon)) {
      stop = hash;
      colon = -1;
    } else if (colon !== -1) {
      stop = colon;
    }
    while (stop > start && this.text.charCodeAt(stop - 1) === SPACE) stop--;
    return { end: stop, colon };
  }

  /**
   * The first ":" at or after `from` that is followed by a space or a line end (the end of the
   * text if none). Plain scalars are read from the start of the text to its end, so the one found
   * stays the answer until it is passed: each part of the text is searched once.
   */
  private keyColonFrom(from: number): number {
    if (this.nextColon < from) {
      let c = this.text.indexOf(':', from);
      while (c !== -1 && c + 1 < this.n) {
        const next = this.text.charCodeAt(c + 1);
        if (next === SPACE || next === NEWLINE) break;
        c = this.text.indexOf(':', c + 1);
      }
      this.nextColon = c === -1 ? this.n : c;
    }
    return this.nextColon;
  }

  /**
   * A value that starts at `start` and ends on this line, then what follows it (spaces, a comment)
   * and the comments that the yaml package takes into it (see `takeComments`).
   */
  private readLineValue(line: number, start: number, indent: number): { value: unknown; node: FastNode } {
    const c = this.text.charCodeAt(start);
    let inline: Inline;
    if (c === SQUOTE || c === DQUOTE) {
      inline = this.readQuoted(line, start);
    } else if (c === 0x5b) {
      inline = this.readFlowList(line, start);
    } else if (c === 0x7b) {
      const close = this.skipSpaces(start + 1);
      if (this.text.charCodeAt(close) !== 0x7d) decline();
      inline = {
        value: {},
        node: { kind: 'map', start, end: close + 1, entries: [], index: undefined, cursor: 0 },
        after: close + 1,
      };
    } else {
      if (!isPlainValueStart(c) || (c === DASH && this.isBlankOrEnd(start + 1, line))) decline();
      const plain = this.findPlainEnd(line, start);
      if (plain.colon !== -1) decline();
      inline = {
        value: resolvePlain(this.text.slice(start, plain.end)),
        node: { kind: 'scalar', start, end: plain.end },
        after: plain.end,
      };
    }
    // After a quoted value or a flow list: spaces, then a comment (after at least one space) or the end.
    const rest = this.skipSpaces(inline.after);
    if (rest < this.endOf(line) && (this.text.charCodeAt(rest) !== HASH || rest === inline.after)) decline();
    this.takeComments(line, indent);
    return inline;
  }

  /**
   * After a value that ends `line`: the yaml package takes the comments below it that are indented
   * more than its collection (`indent`), with the blank lines before them, into the value's end,
   * up to the first comment that is not; the comments from there on are `trailing`.
   */
  private takeComments(line: number, indent: number): void {
    let end = this.nextStartOf(line);
    let taking = true;
    let maxIndent = -1;
    const count = this.starts.length;
    let i = line + 1;
    for (; i < count; i++) {
      if (this.contents[i] === true) break;
      const p = this.firstOf(i);
      if (p === this.endOf(i)) continue;
      const lineIndent = p - this.startOf(i);
      if (taking && lineIndent > indent) {
        end = this.nextStartOf(i);
      } else {
        taking = false;
        if (lineIndent > maxIndent) maxIndent = lineIndent;
      }
    }
    this.line = i;
    this.lastEnd = end;
    this.trailing = maxIndent === -1 ? undefined : { maxIndent, taken: false };
  }

  /**
   * A collection closed by the next content line (or the end of the text): its range ends where
   * its last value does; its "range[2]" also covers the trailing comments when one of them is
   * indented as far as the collection (the yaml package keeps them in it then, up to the next
   * line's first character; otherwise they move out to the enclosing collection). A collection
   * at column 0 never keeps them.
   */
  private closeCollection(node: MapNode | SeqNode, indent: number): void {
    node.end = this.lastEnd;
    const trailing = this.trailing;
    if (trailing === undefined || trailing.taken || indent === 0 || trailing.maxIndent < indent) return;
    trailing.taken = true;
    this.lastEnd = this.contentStart(this.line);
  }

  /** A one-line quoted scalar starting at `start`. */
  private readQuoted(line: number, start: number): Inline {
    const lineEnd = this.endOf(line);
    const quote = this.text.charCodeAt(start);
    let value = '';
    let from = start + 1;
    for (let p = start + 1; p < lineEnd; p++) {
      const c = this.text.charCodeAt(p);
      if (quote === SQUOTE && c === SQUOTE) {
        if (this.text.charCodeAt(p + 1) === SQUOTE && p + 1 < lineEnd) {
          value += this.text.slice(from, p + 1);
          from = p + 2;
          p++;
          continue;
        }
        value += this.text.slice(from, p);
        return { value, node: { kind: 'scalar', start, end: p + 1 }, after: p + 1 };
      }
      if (quote === DQUOTE && c === 0x5c) {
        value += this.text.slice(from, p);
        const escaped = this.readEscape(p, lineEnd);
        value += escaped.text;
        p = escaped.last;
        from = p + 1;
        continue;
      }
      if (quote === DQUOTE && c === DQUOTE) {
        value += this.text.slice(from, p);
        return { value, node: { kind: 'scalar', start, end: p + 1 }, after: p + 1 };
      }
    }
    return decline();
  }

  /** The escape at `p` ("\" and what follows) in double-quoted text; `last` is its last character. */
  private readEscape(p: number, lineEnd: number): { text: string; last: number } {
    const next = this.text[p + 1] ?? '';
    const simple = ESCAPES[next];
    if (simple !== undefined && p + 1 < lineEnd) return { text: simple, last: p + 1 };
    const length = next === 'x' ? 2 : next === 'u' ? 4 : next === 'U' ? 8 : 0;
    const hex = this.text.slice(p + 2, p + 2 + length);
    if (length === 0 || p + 2 + length > lineEnd || !/^[0-9a-fA-F]+$/.test(hex)) decline();
    const code = Number.parseInt(hex, 16);
    if (code > 0x10ffff) decline();
    return { text: String.fromCodePoint(code), last: p + 1 + length };
  }

  /** A one-line flow list of scalars: `[a, "b", 3]`, `[]`. */
  private readFlowList(line: number, start: number): Inline {
    const lineEnd = this.endOf(line);
    const items: FastNode[] = [];
    const value: unknown[] = [];
    let p = this.skipSpaces(start + 1);
    if (this.text.charCodeAt(p) === 0x5d) {
      return { value, node: { kind: 'seq', start, end: p + 1, items }, after: p + 1 };
    }
    for (;;) {
      if (p >= lineEnd) decline();
      const c = this.text.charCodeAt(p);
      let item: Inline;
      if (c === SQUOTE || c === DQUOTE) {
        item = this.readQuoted(line, p);
      } else {
        item = this.readFlowPlain(p, lineEnd);
      }
      items.push(item.node);
      value.push(item.value);
      p = this.skipSpaces(item.after);
      const sep = this.text.charCodeAt(p);
      if (sep === 0x5d) {
        return { value, node: { kind: 'seq', start, end: p + 1, items }, after: p + 1 };
      }
      if (sep !== 0x2c) decline();
      p = this.skipSpaces(p + 1);
    }
  }

  /** A plain scalar inside a flow list: up to "," or "]"; anything that could mean more than text declines. */
  private readFlowPlain(start: number, lineEnd: number): Inline {
    const c = this.text.charCodeAt(start);
    if (!isPlainValueStart(c) || c === DASH) decline();
    let last = start;
    let p = start;
    for (; p < lineEnd; p++) {
      const d = this.text.charCodeAt(p);
      if (d === 0x2c || d === 0x5d) break;
      // ":" "#" quotes and brackets inside flow text change its meaning; leave them to the yaml path.
      if (d === COLON || d === HASH || d === SQUOTE || d === DQUOTE || d === 0x5b || d === 0x7b || d === 0x7d)
        decline();
      if (d !== SPACE) last = p + 1;
    }
    if (p >= lineEnd) decline();
    return {
      value: resolvePlain(this.text.slice(start, last)),
      node: { kind: 'scalar', start, end: last },
      after: last,
    };
  }
}

/** Characters that cannot start a plain scalar, or that start something else (`-` is checked apart). */
function isPlainValueStart(c: number): boolean {
  switch (c) {
    case 0x3f: // ?
    case COLON:
    case 0x2c: // ,
    case 0x5b: // [
    case 0x5d: // ]
    case 0x7b: // {
    case 0x7d: // }
    case HASH:
    case 0x26: // &
    case 0x2a: // *
    case 0x21: // !
    case 0x7c: // |
    case 0x3e: // >
    case SQUOTE:
    case DQUOTE:
    case 0x25: // %
    case 0x40: // @
    case 0x60: // `
    case SPACE:
      return false;
    default:
      return !Number.isNaN(c);
  }
}

function isPlainKeyStart(c: number): boolean {
  return c !== DASH && isPlainValueStart(c);
}
