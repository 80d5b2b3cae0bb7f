/**
 * What must never reach a terminal raw: control characters other than the line feeds of the output
 * itself, the line and paragraph separators, bidirectional marks and overrides, and the byte-order
 * mark (the characters report/escape.ts escapes).
 */
export const UNSAFE = /(?!\n)[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/u;
