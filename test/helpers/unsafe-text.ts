/**
 * What must never reach a terminal raw: control characters other than the line feeds of the output
 * itself, the line and paragraph separators, format characters (zero-width ones, bidirectional
 * marks and overrides, the byte-order mark) and lone surrogates (what report/escape.ts escapes).
 */
export const UNSAFE = /(?!\n)[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/u;
