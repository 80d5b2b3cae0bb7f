import { OPERATION_NAMES, OPERATIONS } from '../wire/operations.js';

/** The guide operations by wire name, those that read and those that write, one line each (`guidectl api`). */
export function renderOperationList(indent = ''): string {
  const reads = OPERATION_NAMES.filter((op) => !OPERATIONS[op].writes);
  const writes = OPERATION_NAMES.filter((op) => OPERATIONS[op].writes);
  return `${indent}reads: ${reads.join(', ')}\n${indent}writes: ${writes.join(', ')}`;
}
