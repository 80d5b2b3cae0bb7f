/**
 * Places in a desired-state file, for the checks that report problems there: `config/` parses the
 * files and the kinds' rules (`kinds/<kind>/rules.ts`) point into them through these types.
 */

/** A range in a file, 1-based; the end is exclusive. */
export interface Span {
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
}

/** A path into the parsed value: mapping keys and list indexes. */
export type ValuePath = readonly (string | number)[];

/** Which part of a mapping entry to point at: its key (for unknown keys) or its value. */
export type SpanPart = 'key' | 'value';

/** A parsed file that can say where each part of its value was written. */
export interface LocatedFile {
  readonly file: string;
  locate(path: ValuePath, part?: SpanPart): Span;
}

/** An entry of a list with its index in the list as written, so that it can still be located. */
export interface Indexed<T> {
  readonly index: number;
  readonly value: T;
}
