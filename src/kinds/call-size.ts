import { formatCount } from '../core/count.js';
import type { SourceRef } from '../core/desired.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { MAX_REQUEST_BODY_BYTES } from '../core/guide-rules.js';
import type { CallBody, JsonValue } from '../core/plan-data.js';

/**
 * How much of a list the planner puts in one call that appends (quick replies, sensitive words
 * under `append`): a quarter of the request limit, so that the rest of the body and the client's
 * encoding never bring a call near {@link MAX_REQUEST_BODY_BYTES}.
 */
export const APPEND_BUDGET_BYTES = MAX_REQUEST_BODY_BYTES / 4;

/** The UTF-8 bytes of a value as JSON: what it adds to a request body. */
export function jsonBytes(value: JsonValue | CallBody): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/**
 * `items` in runs of at most {@link APPEND_BUDGET_BYTES} as JSON list entries, in order; an item
 * larger than that alone makes a run of its own (the size check of the call then speaks of it).
 */
export function splitByBytes<T extends JsonValue>(items: readonly T[]): T[][] {
  const runs: T[][] = [];
  let run: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = jsonBytes(item) + 1;
    if (run.length > 0 && bytes + size > APPEND_BUDGET_BYTES) {
      runs.push(run);
      run = [];
      bytes = 0;
    }
    run.push(item);
    bytes += size;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/**
 * An error when a call's body passes the request limit: `what` names the call in words, `hint` the
 * fix. Such a call is never made: the service would refuse it (45002) on every apply.
 */
export function checkBodySize(
  body: CallBody,
  source: SourceRef,
  what: string,
  hint: string,
): Diagnostic | undefined {
  const bytes = jsonBytes(body);
  if (bytes <= MAX_REQUEST_BODY_BYTES) return undefined;
  return {
    ...source,
    severity: 'error',
    code: 'request-too-large',
    message: `${what} would be ${formatBytes(bytes)}; the limit of one request is ${formatBytes(MAX_REQUEST_BODY_BYTES)}`,
    hint,
  };
}

/** `1,345,678 bytes (1.28 MiB)`. */
function formatBytes(n: number): string {
  return `${formatCount(n)} bytes (${Number((n / (1024 * 1024)).toFixed(2))} MiB)`;
}
