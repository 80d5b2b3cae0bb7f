import { charLength } from '../core/guide-rules.js';
import { isRecord } from '../core/records.js';
import { type Id64, toId64 } from '../wire/ids.js';
import { invalidArgs, missingParameter } from './api-error.js';

/**
 * Checked readers for request bodies. A field that is absent (or `null`) is "missing" (40101) when
 * required; a field of the wrong type or out of range is 40097 with an errmsg that names it.
 * Unknown fields are ignored, as the real API does.
 */
export type Body = Readonly<Record<string, unknown>>;

/** Reads a field of an object without ever touching its prototype chain. */
export function field(body: Body, name: string): unknown {
  return Object.hasOwn(body, name) ? body[name] : undefined;
}

export function isAbsent(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

/** Characters as WeChat counts them: Unicode code points (the rule lives in core, shared with config). */
export { charLength } from '../core/guide-rules.js';

export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

interface StringRules {
  /** Most characters (code points). */
  maxChars?: number;
  /** Most UTF-8 bytes. */
  maxBytes?: number;
  /** Whether "" is acceptable; default false. */
  allowEmpty?: boolean;
}

function checkString(name: string, value: unknown, rules: StringRules): string {
  if (typeof value !== 'string') throw invalidArgs(`${name} must be a string`);
  if (value === '' && rules.allowEmpty !== true) throw invalidArgs(`${name} must not be empty`);
  if (rules.maxChars !== undefined && charLength(value) > rules.maxChars) {
    throw invalidArgs(`${name} is ${charLength(value)} characters; the limit is ${rules.maxChars}`);
  }
  if (rules.maxBytes !== undefined && utf8Length(value) > rules.maxBytes) {
    throw invalidArgs(`${name} is ${utf8Length(value)} bytes; the limit is ${rules.maxBytes}`);
  }
  return value;
}

export function requireString(body: Body, name: string, rules: StringRules = {}): string {
  const value = field(body, name);
  if (isAbsent(value)) throw missingParameter(name);
  return checkString(name, value, rules);
}

export function optionalString(body: Body, name: string, rules: StringRules = {}): string | undefined {
  const value = field(body, name);
  if (isAbsent(value)) return undefined;
  return checkString(name, value, rules);
}

export function requireBoolean(body: Body, name: string): boolean {
  const value = field(body, name);
  if (isAbsent(value)) throw missingParameter(name);
  if (typeof value !== 'boolean') throw invalidArgs(`${name} must be true or false`);
  return value;
}

interface IntRules {
  min?: number;
  max?: number;
}

function checkInt(name: string, value: unknown, rules: IntRules): number {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^-?[0-9]{1,15}$/.test(value)) n = Number(value);
  else throw invalidArgs(`${name} must be an integer`);
  if (!Number.isSafeInteger(n)) throw invalidArgs(`${name} must be an integer`);
  if (rules.min !== undefined && n < rules.min) throw invalidArgs(`${name} must be at least ${rules.min}`);
  if (rules.max !== undefined && n > rules.max) throw invalidArgs(`${name} must be at most ${rules.max}`);
  return n;
}

/** An integer given as a JSON number or a numeric string (as the real API tolerates). */
export function requireInt(body: Body, name: string, rules: IntRules = {}): number {
  const value = field(body, name);
  if (isAbsent(value)) throw missingParameter(name);
  return checkInt(name, value, rules);
}

export function optionalInt(body: Body, name: string, rules: IntRules = {}): number | undefined {
  const value = field(body, name);
  if (isAbsent(value)) return undefined;
  return checkInt(name, value, rules);
}

/** A 64-bit id given as a JSON number or a decimal string. */
export function requireId64(body: Body, name: string): Id64 {
  const value = field(body, name);
  if (isAbsent(value) || value === '') throw missingParameter(name);
  const id = toId64(value);
  if (id === undefined)
    throw invalidArgs(`${name} must be an unsigned 64-bit integer (a number or a decimal string)`);
  return id;
}

export function requireObject(body: Body, name: string): Body {
  const value = field(body, name);
  if (isAbsent(value)) throw missingParameter(name);
  if (!isRecord(value)) throw invalidArgs(`${name} must be an object`);
  return value;
}

export function requireArray(body: Body, name: string): unknown[] {
  const value = field(body, name);
  if (isAbsent(value)) throw missingParameter(name);
  if (!Array.isArray(value)) throw invalidArgs(`${name} must be an array`);
  return value;
}

/** An array of strings, each checked by the rules; `name[i]` is named in errors. */
export function checkStringArray(
  name: string,
  values: readonly unknown[],
  rules: StringRules = {},
): string[] {
  return values.map((v, i) => checkString(`${name}[${i}]`, v, rules));
}

/** Identity of a guide in a request: account wins over openid; null and "" count as absent. */
export type GuideKey = { readonly account: string } | { readonly openid: string };

export function optionalGuideKey(body: Body): GuideKey | undefined {
  const account = field(body, 'guide_account');
  if (!isAbsent(account) && account !== '') {
    if (typeof account !== 'string') throw invalidArgs('guide_account must be a string');
    return { account };
  }
  const openid = field(body, 'guide_openid');
  if (!isAbsent(openid) && openid !== '') {
    if (typeof openid !== 'string') throw invalidArgs('guide_openid must be a string');
    return { openid };
  }
  return undefined;
}

export function requireGuideKey(body: Body): GuideKey {
  const key = optionalGuideKey(body);
  if (key === undefined) throw missingParameter('guide_account or guide_openid');
  return key;
}
