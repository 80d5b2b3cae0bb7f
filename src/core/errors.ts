import type { Diagnostic } from './diagnostics.js';

/**
 * Thrown errors are for failures of the program, the network or the remote service; mistakes in
 * what a user wrote are returned as diagnostics instead. Every error class carries a stable `code`
 * that callers and tests branch on; the message is for people and may change.
 */
export abstract class GuidectlError extends Error {
  abstract readonly code: string;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A setting or argument given to the program is unusable (bad flag value, unreadable file). */
export class UsageError extends GuidectlError {
  override readonly code = 'GUIDECTL_USAGE';
}

/** The user stopped the command (Ctrl-C or SIGTERM); the message says what was done and what was not. */
export class InterruptedError extends GuidectlError {
  override readonly code = 'GUIDECTL_INTERRUPTED';
}

/**
 * The files given to a command have errors (`diagnostics`, printed already): it did nothing. Its
 * message is the headline (`the files have errors; no environment is listed`).
 */
export class InvalidFilesError extends GuidectlError {
  override readonly code = 'GUIDECTL_INVALID_FILES';
  readonly diagnostics: readonly Diagnostic[];

  constructor(message: string, diagnostics: readonly Diagnostic[]) {
    super(message);
    this.diagnostics = diagnostics;
  }
}

/** The `code` of a Node.js system error (`ENOENT`, `EADDRINUSE`, …), if the value carries one. */
export function errorCode(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** What went wrong, for a message: an error's own message, anything else thrown as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A failure of the program, for a log or a bug report: where it happened (the stack) when known. */
export function errorStack(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
