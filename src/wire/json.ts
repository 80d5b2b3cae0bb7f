import { isInteger, parse, stringify } from 'lossless-json';

/**
 * JSON for the guide API without losing 64-bit ids.
 *
 * `group_id` and `task_id` are unsigned 64-bit integers above 2^53, which `JSON.parse` silently
 * rounds. `parseJson` turns every integer that does not fit a double exactly into a `bigint`, and
 * every other number into a `number`; `stringifyJson` writes a `bigint` as a bare JSON number.
 * Texts without a run of 16 digits cannot hold an unsafe integer and take the native fast path.
 */

const LONG_DIGIT_RUN = /\d{16}/;

function parseNumber(text: string): number | bigint {
  if (isInteger(text)) {
    const n = Number(text);
    if (Number.isSafeInteger(n)) return n;
    return BigInt(text);
  }
  return Number(text);
}

/** Parses JSON text; throws `SyntaxError` on invalid text. */
export function parseJson(text: string): unknown {
  if (!LONG_DIGIT_RUN.test(text)) return JSON.parse(text);
  return parse(text, null, parseNumber);
}

function containsBigInt(value: unknown): boolean {
  if (typeof value === 'bigint') return true;
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(containsBigInt);
  for (const v of Object.values(value)) if (containsBigInt(v)) return true;
  return false;
}

/** Serialises a value; `bigint`s become JSON numbers with every digit kept. */
export function stringifyJson(value: unknown): string {
  if (!containsBigInt(value)) return JSON.stringify(value);
  const text = stringify(value);
  if (text === undefined) throw new TypeError('value cannot be represented as JSON');
  return text;
}

/**
 * Serialises a value for people: indented by `indent` spaces, `bigint`s still bare JSON numbers
 * with every digit kept.
 */
export function stringifyJsonPretty(value: unknown, indent = 2): string {
  if (!containsBigInt(value)) return JSON.stringify(value, null, indent);
  const text = stringify(value, undefined, indent);
  if (text === undefined) throw new TypeError('value cannot be represented as JSON');
  return text;
}
