import { GuideApiError } from '../client/errors.js';
import type { GuideClient } from '../client/index.js';
import { errorMessage, UsageError } from '../core/errors.js';
import { isRecord } from '../core/records.js';
import { parseJson } from '../wire/json.js';
import type { OperationName } from '../wire/operations.js';

/** The request body of a call made by hand: a JSON object (none: `{}`), read without losing 64-bit ids. */
export function parseRequestBody(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    const why = errorMessage(error);
    throw new UsageError(`the request body is not valid JSON: ${why}`);
  }
  if (!isRecord(value)) {
    throw new UsageError('the request body must be a JSON object, e.g. \'{"guide_account": "alice_wx"}\'');
  }
  return value;
}

/**
 * One raw call of `operation` (`guidectl api`): its answer, or for an error answer of the
 * operation itself, that answer as it came (`{errcode, errmsg}`, the errmsg scrubbed of secrets)
 * with the error to fail with. Any other failure (the network, a token) is thrown.
 */
export async function callByHand(
  client: Pick<GuideClient, 'call'>,
  operation: OperationName,
  body: Record<string, unknown>,
): Promise<{ readonly answer: unknown; readonly error?: GuideApiError }> {
  try {
    return { answer: await client.call(operation, body) };
  } catch (error) {
    if (!(error instanceof GuideApiError) || error.operation !== operation) throw error;
    return { answer: { errcode: error.errcode, errmsg: error.errmsg }, error };
  }
}
