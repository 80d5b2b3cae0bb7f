/**
 * A 64-bit id of the guide API (`group_id`, `task_id`): an unsigned integer below 2^64, held as
 * its canonical decimal string (no sign, no leading zeros) so that it never passes through a
 * double. Values of about 19 digits are normal.
 */
export type Id64 = string & { readonly __id64: unique symbol };

export const MAX_ID64 = (1n << 64n) - 1n;

/**
 * Reads an id given as a JSON number (already a `bigint` or a safe `number` after `parseJson`) or
 * as a decimal string. Returns undefined when the value is not an unsigned 64-bit integer.
 */
export function toId64(value: unknown): Id64 | undefined {
  let n: bigint;
  if (typeof value === 'bigint') n = value;
  else if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) return undefined;
    n = BigInt(value);
  } else if (typeof value === 'string') {
    if (!/^[0-9]{1,20}$/.test(value)) return undefined;
    n = BigInt(value);
  } else return undefined;
  if (n < 0n || n > MAX_ID64) return undefined;
  return n.toString() as Id64;
}

/** The value to put in a JSON body so that `stringifyJson` writes the id as a bare number. */
export function id64ToJson(id: Id64): bigint {
  return BigInt(id);
}
