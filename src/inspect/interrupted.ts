import { CallAbortedError, CallOutcomeUnknownError } from '../client/call-errors.js';
import { InterruptedError } from '../core/errors.js';
import { OPERATIONS, type OperationName } from '../wire/operations.js';

// A Ctrl-C stops the client's calls with CallAbortedError, whose message names the call it cut
// ("getguidemassendjoblist failed: …"): to a user who asked for a list, or for one write, that
// reads as a failure of the API. The commands say "interrupted", as plan does, and what it left.

/** What a stopped read becomes: "interrupted while reading `what`" (`after`: how far it got). */
export function interruptedRead(error: unknown, what: string, after = ''): unknown {
  if (!(error instanceof CallAbortedError)) return error;
  return new InterruptedError(`interrupted while reading ${what}${after}`);
}

/**
 * What a stopped call made by hand becomes: for a write, whether it may have been applied. A write
 * stopped before it was sent (in a read before it, or waiting for a token) was not; one stopped on
 * the wire may have been (the client makes it an unknown outcome), when `stopped` says the stop
 * was the user's.
 */
export function interruptedCall(error: unknown, operation: OperationName, stopped: boolean): unknown {
  const writes = OPERATIONS[operation].writes;
  if (error instanceof CallAbortedError) {
    return new InterruptedError(
      writes
        ? `interrupted before ${operation} was sent: nothing was written`
        : `interrupted before ${operation} was answered`,
    );
  }
  if (error instanceof CallOutcomeUnknownError && stopped && writes) {
    return new InterruptedError(
      `interrupted while ${operation} was on its way: it may have been applied, or may still be (its outcome is unknown); read the account to see before making it again`,
    );
  }
  return error;
}
