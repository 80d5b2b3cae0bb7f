import type { CliIo } from '../../src/cli/io.js';

// Apart from cli.ts, which imports vitest: the benchmarks run the program with it outside vitest.

export interface CaptureOptions {
  /** The answer to the confirmation question (as if typed on a terminal). */
  answer?: string;
  /** The asker itself (say, one that cancels); takes the place of `answer`. */
  ask?: (question: string) => Promise<string | undefined>;
  tty?: boolean;
  /** The first Ctrl-C; `abandon`, the second. */
  stop?: AbortSignal;
  abandon?: AbortSignal;
  /** The clock and timer of progress lines. */
  now?: () => number;
  every?: (ms: number, fn: () => void) => () => void;
  /** Sees each write to stdout (stderr) as it happens. */
  onStdout?: (text: string) => void;
  onStderr?: (text: string) => void;
}

/** An in-memory CliIo whose output the test reads with `out()` and `err()`. */
export function captureIo(
  env: Record<string, string | undefined>,
  cwd: string,
  options: CaptureOptions = {},
): CliIo & { out(): string; err(): string } {
  let out = '';
  let err = '';
  const tty = options.tty === true;
  return {
    stdout: {
      write: (s) => {
        out += s;
        options.onStdout?.(s);
      },
      isTTY: tty,
    },
    stderr: {
      write: (s) => {
        err += s;
        options.onStderr?.(s);
      },
      isTTY: tty,
    },
    env,
    cwd,
    stopSignal: options.stop ?? new AbortController().signal,
    ...(options.abandon === undefined ? {} : { abandonSignal: options.abandon }),
    ...(options.ask !== undefined
      ? { ask: options.ask }
      : options.answer === undefined
        ? {}
        : { ask: async () => options.answer }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.every === undefined ? {} : { every: options.every }),
    out: () => out,
    err: () => err,
  };
}
