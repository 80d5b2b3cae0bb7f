/**
 * A plain object (parsed JSON or YAML, a request body): not `null`, not an array. What it holds is
 * still unknown, so every read of it is checked by its caller.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
