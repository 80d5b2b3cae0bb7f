import { OPERATION_NAMES, OPERATIONS } from '../wire/operations.js';

/**
 * The guide operations by wire name, those that read and those that write, one line each
 * (`guidectl api`); given a width, each wrapped to it, its further lines indented.
 */
export function renderOperationList(indent = '', width = Number.POSITIVE_INFINITY): string {
  const reads = OPERATION_NAMES.filter((op) => !OPERATIONS[op].writes);
  const writes = OPERATION_NAMES.filter((op) => OPERATIONS[op].writes);
  return [wrapList(`${indent}reads:`, reads, width), wrapList(`${indent}writes:`, writes, width)].join('\n');
}

/** `head` then the names, comma-separated, in lines at most `width` long (a longer name alone). */
function wrapList(head: string, names: readonly string[], width: number): string {
  const hanging = ' '.repeat(head.length);
  const lines: string[] = [];
  let line = head;
  names.forEach((name, i) => {
    const word = ` ${name}${i < names.length - 1 ? ',' : ''}`;
    const empty = line === head || line === hanging;
    if (!empty && line.length + word.length > width) {
      lines.push(line);
      line = hanging;
    }
    line += word;
  });
  return [...lines, line].join('\n');
}
