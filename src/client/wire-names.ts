// The wire names and ids that callers of `call()` work with, without loading the transport.
export { type Id64, toId64 } from '../wire/ids.js';
export { isOperationName, OPERATION_NAMES, type OperationName } from '../wire/operations.js';
