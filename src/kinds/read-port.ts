import type { AnswerOf, RequestOf } from '../wire/messages.js';
import type { OPERATIONS, OperationName } from '../wire/operations.js';

/** The operations that only read. */
export type ReadOperation = {
  [O in OperationName]: (typeof OPERATIONS)[O]['writes'] extends false ? O : never;
}[OperationName];

/**
 * How a kind reads the account, without a client: a read operation by its wire name and request,
 * answering the decoded answer. `live/` gives one over the client, with its read window and
 * progress; a test gives one over the guide service. `O` is the operations the kind reads.
 */
export type ReadPort<O extends ReadOperation = ReadOperation> = <P extends O>(
  operation: P,
  request: RequestOf<P>,
) => Promise<AnswerOf<P>>;
