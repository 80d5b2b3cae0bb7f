import { type DiagnosticCode, quote, type RuleProblem } from './diagnostics.js';
import { charLength } from './guide-rules.js';
import type { ValuePath } from './positions.js';
import { ifDefined, isRecord } from './records.js';

/**
 * The words for a value that breaks a constraint of the schema, by `$defs` entry and keyword
 * (`nickname/maxLength`): each kind gives those of its fragment beside it (`kinds/<kind>/rules.ts`),
 * and `config/check-schema.ts` turns ajv's errors into diagnostics with them.
 */

/** What the message of one schema error knows. */
export interface SchemaErrorContext {
  readonly path: ValuePath;
  /** The key or item name of the value, as the user would say it: `nickname`, `a quick reply`. */
  readonly name: string;
  readonly data: unknown;
  /** `data` as the file writes it, for a number (`1e400`, not `Infinity`); else `String(data)`. */
  readonly written: string;
  readonly limit: number;
}

export interface SchemaProblem extends RuleProblem {
  /** The message does not quote the value, which may be a secret: the line is not shown either. */
  readonly secret?: true;
}

/** What a constraint of one `$defs` entry means, in words. */
export type SchemaMessage = (ctx: SchemaErrorContext) => SchemaProblem;

/** Messages by `$defs name/keyword`. */
export type SchemaMessages = Readonly<Record<string, SchemaMessage>>;

/** A text that is empty (or, written with spaces only, blank). */
export const emptyText =
  (code: DiagnosticCode, what: string, hint?: string): SchemaMessage =>
  ({ data }) => ({
    code,
    message: typeof data === 'string' && data.length > 0 ? `${what} is blank` : `${what} is empty`,
    ...ifDefined('hint', hint),
  });

/** A text longer than its limit, in characters as WeChat counts them. */
export const textTooLong =
  (code: DiagnosticCode, what: string, hint?: string): SchemaMessage =>
  ({ data, limit }) => ({
    code,
    message: `${what} ${quote(data)} is ${countChars(data)} characters; the limit is ${limit}`,
    ...ifDefined('hint', hint),
  });

/** Characters as WeChat counts them (code points); 0 for what is not text. */
export function countChars(value: unknown): number {
  return typeof value === 'string' ? charLength(value) : 0;
}

/** How many items a list has, for "this one has 4"; `?` for what is not a list. */
export function itemCount(data: unknown): number | '?' {
  return Array.isArray(data) ? data.length : '?';
}

/** The keys of a mapping, for "this one has "text" and "image"". */
export function listKeys(data: unknown): string {
  if (!isRecord(data)) return 'several';
  const keys = Object.keys(data).map((k) => `"${k}"`);
  return keys.length <= 1 ? keys.join('') : `${keys.slice(0, -1).join(', ')} and ${keys.at(-1)}`;
}

/** What a welcome message is called where it is: a task's is a material. */
export function messageWord(path: ValuePath): string {
  return path.includes('materials') ? 'material' : 'welcome message';
}
