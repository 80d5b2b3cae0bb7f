import { GuidectlError } from '../core/errors.js';
import { ERRCODE } from '../wire/errcodes.js';

/**
 * An error answer of the guide API. Thrown inside an operation's transaction, so that the
 * transaction rolls back and the call changes nothing; the router turns it into
 * `{"errcode", "errmsg"}`.
 */
export class ApiError extends GuidectlError {
  override readonly code = 'GUIDE_API_ERROR';

  constructor(
    readonly errcode: number,
    readonly errmsg: string,
  ) {
    super(`${errcode}: ${errmsg}`);
  }
}

/** 40097 naming the field and what is wrong with it. */
export function invalidArgs(message: string): ApiError {
  return new ApiError(ERRCODE.invalidArgs, `invalid args: ${message}`);
}

/** 40101 naming the missing field. */
export function missingParameter(field: string): ApiError {
  return new ApiError(ERRCODE.missingParameter, `missing parameter: ${field}`);
}
