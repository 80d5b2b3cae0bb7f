import { GuidectlError } from '../core/errors.js';

/**
 * An answer of the guide API that does not have the shape the wire page fixes for its operation
 * (a field missing or of the wrong type, or text that is not JSON). It is never retried: the same
 * question gets the same answer. `path` names the offending field, e.g. `group_list[3].id`.
 */
export class MalformedAnswerError extends GuidectlError {
  override readonly code = 'GUIDE_MALFORMED_ANSWER';

  constructor(
    readonly operation: string,
    readonly path: string,
    problem: string,
  ) {
    super(`${operation} failed: the answer is malformed: ${path === '' ? '' : `${path} `}${problem}`);
  }
}

/**
 * A request that cannot be put on the wire as given (e.g. a `group_id` that is not an unsigned
 * 64-bit integer). Detected before any call is made.
 */
export class InvalidRequestError extends GuidectlError {
  override readonly code = 'GUIDE_INVALID_REQUEST';

  constructor(
    readonly operation: string,
    problem: string,
  ) {
    super(`${operation}: invalid request: ${problem}`);
  }
}
