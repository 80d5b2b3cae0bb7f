/**
 * The effects a command may use, injected so that tests can run the program in-process and read
 * what it printed. Only `cli/main.ts` builds the real one from `process`.
 */
export interface CliIo {
  readonly stdout: Output;
  readonly stderr: Output;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /**
   * Aborted by the first Ctrl-C (SIGINT) or SIGTERM: start nothing new. Reads stop at once;
   * apply lets its calls in flight finish, then reports.
   */
  readonly stopSignal: AbortSignal;
  /** Aborted by the second Ctrl-C or SIGTERM: apply abandons its calls in flight (outcome unknown). */
  readonly abandonSignal?: AbortSignal;
  /**
   * Asks for the signals above. Until a command calls it, SIGINT and SIGTERM end the process at
   * once, as they do any program, even inside long synchronous work (validating a huge file).
   * Commands that talk to a target call it before they start, so that they can stop cleanly.
   */
  readonly catchSignals?: () => void;
  /**
   * Asks a question on the terminal and returns the answer, or undefined when the user cancelled
   * (Ctrl-C, Ctrl-D, or a stop signal). Absent when there is no terminal to ask on.
   */
  readonly ask?: (question: string) => Promise<string | undefined>;
  /** Milliseconds: progress timing, and now for `chats`' default window; `Date.now` when absent. */
  readonly now?: () => number;
  /**
   * Calls `fn` every `ms` milliseconds until the returned function is called; it must not keep
   * the process alive. `setInterval` (unref'd) when absent. Progress lines use it.
   */
  readonly every?: (ms: number, fn: () => void) => () => void;
}

export interface Output {
  /** Writes text; once the reader has gone (a closed pipe), writing is a quiet no-op. */
  write(text: string): void;
  /** True when the stream is an interactive terminal (colour, progress, prompts). */
  readonly isTTY: boolean;
  /**
   * Resolves once the reader has taken what was written (at once when nothing waits), or false
   * once it has gone: a command that streams waits on it so that memory stays bounded.
   */
  drain?(): Promise<boolean>;
}

/** Exit codes, fixed for good: 0 success, 1 error, 2 success with changes pending. */
export type ExitStatus = 0 | 1 | 2;

/** What every command registration receives. */
export interface CommandContext {
  readonly io: CliIo;
  /** Sets the exit status of the program; the last call wins. */
  setExit(status: ExitStatus): void;
  /** False when `--no-color` was given; colour also needs a terminal and NO_COLOR unset. */
  colorFlag(): boolean;
}

export { InterruptedError } from '../core/errors.js';
