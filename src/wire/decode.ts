import { isRecord } from '../core/records.js';
import { type Id64, toId64 } from './ids.js';
import { MalformedAnswerError } from './shape-errors.js';

/** A JSON object as `parseJson` returns it: integers beyond 2^53 are `bigint`s. */
export type JsonObject = Readonly<Record<string, unknown>>;

const EMPTY: JsonObject = Object.freeze({});

/**
 * Checked reads of one object of an answer. Every read either returns a value of the promised
 * type or throws a `MalformedAnswerError` naming the operation and the field's path; nothing is
 * cast unchecked. `null` counts as absent, as the API treats it on input.
 *
 * Lists are read leniently: an absent or `null` list is an empty list (the real API leaves out
 * empty lists in some answers); the items themselves are checked strictly.
 */
export class AnswerReader {
  /**
   * `parent` and `at` say where this object sits in the answer; its path is only spelt out when
   * an error needs it (answers with long lists are decoded on hot paths).
   */
  constructor(
    readonly operation: string,
    private readonly value: JsonObject,
    private readonly parent?: AnswerReader,
    private readonly at?: string | number,
  ) {}

  /** Reads the top level of an answer. */
  static of(operation: string, value: unknown): AnswerReader {
    if (!isRecord(value)) throw new MalformedAnswerError(operation, '', 'is not a JSON object');
    return new AnswerReader(operation, value);
  }

  /** A reader standing for the list `key`, for the paths of its items. */
  private child(key: string): AnswerReader {
    return new AnswerReader(this.operation, EMPTY, this, key);
  }

  private get base(): string {
    return this.parent === undefined || this.at === undefined ? '' : this.parent.path(this.at);
  }

  private path(key: string | number): string {
    const base = this.base;
    if (typeof key === 'number') return `${base}[${key}]`;
    return base === '' ? key : `${base}.${key}`;
  }

  private fail(key: string | number, problem: string): never {
    throw new MalformedAnswerError(this.operation, this.path(key), problem);
  }

  private get(key: string): unknown {
    return Object.hasOwn(this.value, key) ? this.value[key] : undefined;
  }

  has(key: string): boolean {
    const v = this.get(key);
    return v !== undefined && v !== null;
  }

  string(key: string): string {
    const v = this.get(key);
    if (typeof v !== 'string') this.fail(key, v === undefined ? 'is missing' : 'must be a string');
    return v;
  }

  optionalString(key: string): string | undefined {
    return this.has(key) ? this.string(key) : undefined;
  }

  /** A whole number (a JSON number; a numeric string is accepted, as the API emits some). */
  integer(key: string): number {
    const v = this.get(key);
    if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
    if (typeof v === 'string' && /^-?[0-9]{1,15}$/.test(v)) return Number(v);
    return this.fail(key, v === undefined ? 'is missing' : 'must be a whole number');
  }

  /** A whole number from a closed set, e.g. a status. */
  oneOf<T extends number>(key: string, values: readonly T[]): T {
    const n = this.integer(key);
    const found = values.find((v) => v === n);
    if (found === undefined) this.fail(key, `is ${n}; expected one of ${values.join(', ')}`);
    return found;
  }

  /** A 64-bit id, kept exact as a decimal string. */
  id64(key: string): Id64 {
    const v = this.get(key);
    const id = toId64(v);
    if (id === undefined)
      this.fail(key, v === undefined ? 'is missing' : 'must be an unsigned 64-bit integer');
    return id;
  }

  object(key: string): AnswerReader {
    const v = this.get(key);
    if (!isRecord(v)) this.fail(key, v === undefined ? 'is missing' : 'must be an object');
    return new AnswerReader(this.operation, v, this, key);
  }

  optionalObject(key: string): AnswerReader | undefined {
    return this.has(key) ? this.object(key) : undefined;
  }

  private list(key: string): readonly unknown[] {
    const v = this.get(key);
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(key, 'must be a list');
    return v;
  }

  objects<T>(key: string, read: (item: AnswerReader) => T): T[] {
    const list = this.list(key);
    const holder: AnswerReader = this.child(key);
    return list.map((item, i) => {
      if (!isRecord(item)) holder.fail(i, 'must be an object');
      return read(new AnswerReader(this.operation, item, holder, i));
    });
  }

  strings(key: string): string[] {
    return this.list(key).map((item, i) => {
      if (typeof item !== 'string') return this.child(key).fail(i, 'must be a string');
      return item;
    });
  }

  id64s(key: string): Id64[] {
    return this.list(key).map((item, i) => {
      const id = toId64(item);
      if (id === undefined) return this.child(key).fail(i, 'must be an unsigned 64-bit integer');
      return id;
    });
  }
}
