/**
 * The effects a command may use, injected so that tests can run the program in-process and read
 * what it printed. Only `cli/main.ts` builds the real one from `process`.
 */
export interface CliIo {
  readonly stdout: Output;
  readonly stderr: Output;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Resolves when the user asks the program to stop (SIGINT/SIGTERM); never in tests unless fired. */
  readonly stopSignal: AbortSignal;
  /**
   * Asks a question on the terminal and returns the answer; absent (or answering undefined) when
   * there is no terminal to ask on.
   */
  readonly ask?: (question: string) => Promise<string | undefined>;
  /** Milliseconds, for progress timing only; `Date.now` when absent. */
  readonly now?: () => number;
}

export interface Output {
  write(text: string): void;
  /** True when the stream is an interactive terminal (colour, progress, prompts). */
  readonly isTTY: boolean;
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
