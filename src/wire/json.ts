import { isInteger, isLosslessNumber, isSafeNumber, parse, stringify } from 'lossless-json';
import { ifDefined } from '../core/records.js';

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

/**
 * A number of JSON text that would reach the wire with other digits: one with a fraction or an
 * exponent that a double cannot hold exactly (`2125033751215493121.0`, `2.125033751215493121e18`,
 * `1e400`). `parseJson` reads it as the nearest double, as a JSON parser of the API does; input
 * typed by a user is checked with `parseJsonExact` instead, so that an id is never changed silently.
 */
export interface InexactNumber {
  /** Where it is: the keys and array indexes from the top of the value. */
  readonly path: readonly (string | number)[];
  /** The number as written. */
  readonly text: string;
  /** Its value when it is a whole number (written with `.0` or an exponent), digit for digit. */
  readonly whole?: bigint;
}

/**
 * Parses JSON text as `parseJson` does (numbers held in doubles, integers beyond 2^53 as
 * `bigint`s) and lists the numbers whose digits a double would not keep (see `InexactNumber`).
 * Throws `SyntaxError` on invalid text.
 */
export function parseJsonExact(text: string): { readonly value: unknown; readonly inexact: InexactNumber[] } {
  const inexact: InexactNumber[] = [];
  const value = exactValue(parse(text), [], inexact);
  return { value, inexact };
}

function exactValue(value: unknown, path: (string | number)[], inexact: InexactNumber[]): unknown {
  if (isLosslessNumber(value)) {
    const text = value.value;
    if (isInteger(text) || isSafeNumber(text)) return parseNumber(text);
    const whole = wholeValue(text);
    inexact.push({ path: [...path], text, ...ifDefined('whole', whole) });
    return Number(text);
  }
  if (Array.isArray(value)) return value.map((item, i) => exactValue(item, [...path, i], inexact));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = exactValue(item, [...path, key], inexact);
  return out;
}

/** The value of a JSON number when it is whole (`12.0`, `1.2e1`), without passing through a double. */
function wholeValue(text: string): bigint | undefined {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (match === null) return undefined;
  const [, sign = '', int = '', fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText);
  const digits = `${int}${fraction}`.replace(/^0+(?=\d)/, '');
  // The value is digits × 10^shift.
  const shift = exponent - fraction.length;
  if (shift >= 0) return shift > 40 ? undefined : BigInt(`${sign}${digits}${'0'.repeat(shift)}`);
  const kept = digits.slice(0, Math.max(0, digits.length + shift));
  const dropped = digits.slice(Math.max(0, digits.length + shift));
  if (/[1-9]/.test(dropped)) return undefined;
  return BigInt(`${sign}${kept === '' ? '0' : kept}`);
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
