/**
 * A plain object (parsed JSON or YAML, a request body): not `null`, not an array. What it holds is
 * still unknown, so every read of it is checked by its caller.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `{ [key]: value }`, or `{}` when the value is undefined: for an optional key that must be
 * absent rather than undefined (`exactOptionalPropertyTypes`), as `...ifDefined('hint', hint)`.
 */
export function ifDefined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  const out: { [P in K]?: V } = {};
  if (value !== undefined) out[key] = value;
  return out;
}
