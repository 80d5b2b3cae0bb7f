import { GuideApiError } from '../client/call-errors.js';
import type { GuideClient } from '../client/index.js';
import { errorMessage, UsageError } from '../core/errors.js';
import { isRecord } from '../core/records.js';
import { type InexactNumber, parseJsonExact } from '../wire/json.js';
import type { OperationName } from '../wire/operations.js';
import { interruptedCall } from './interrupted.js';

/** The request body of a call made by hand: a JSON object (none: `{}`), read without losing 64-bit ids. */
export function parseRequestBody(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let parsed: ReturnType<typeof parseJsonExact>;
  try {
    parsed = parseJsonExact(text);
  } catch (error) {
    const why = errorMessage(error);
    throw new UsageError(`the request body is not valid JSON: ${why}`);
  }
  const { value, inexact } = parsed;
  const [first] = inexact;
  // Sent as the nearest double, a 64-bit id would name another task or group without a word.
  if (first !== undefined) throw new UsageError(inexactMessage(first));
  if (!isRecord(value)) {
    throw new UsageError('the request body must be a JSON object, e.g. \'{"guide_account": "alice_wx"}\'');
  }
  return value;
}

/** Why a number of the body cannot be sent as written, and how to write it. */
function inexactMessage({ path, text, whole }: InexactNumber): string {
  const field = path
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? key : `.${key}`))
    .join('');
  const where = field === '' ? 'the request body' : `the request body's ${field}`;
  const problem = `${where} is ${text}, a number that cannot be held exactly (it would be sent as ${String(Number(text))})`;
  if (whole !== undefined) {
    return `${problem}; write it as a whole number, ${whole}, or as a decimal string, "${whole}" (as 64-bit ids such as task_id and group_id may be)`;
  }
  return `${problem}; write it with fewer digits, or as a decimal string if it is a 64-bit id`;
}

/**
 * One raw call of `operation` (`guidectl api`): its answer, or for an error answer of the
 * operation itself, that answer as it came (`{errcode, errmsg}`, the errmsg scrubbed of secrets)
 * with the error to fail with. Any other failure (the network, a token) is thrown; one from the
 * `stop` signal (Ctrl-C) as an `InterruptedError` saying whether a write may have been applied.
 */
export async function callByHand(
  client: Pick<GuideClient, 'call'>,
  operation: OperationName,
  body: Record<string, unknown>,
  stop?: AbortSignal,
): Promise<{ readonly answer: unknown; readonly error?: GuideApiError }> {
  try {
    return { answer: await client.call(operation, body) };
  } catch (error) {
    if (!(error instanceof GuideApiError) || error.operation !== operation)
      throw interruptedCall(error, operation, stop?.aborted === true);
    return { answer: { errcode: error.errcode, errmsg: error.errmsg }, error };
  }
}
