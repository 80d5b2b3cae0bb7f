import { createInterface } from 'node:readline';

export interface PromptStreams {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** True for a terminal: then Ctrl-C and Ctrl-D arrive as keys, and cancel the question. */
  readonly terminal: boolean;
  /** Cancels a question being asked (a stop signal). */
  readonly signal?: AbortSignal;
}

/**
 * A question asker over `input` and `output`: resolves with the line typed, or undefined when the
 * user cancels: Ctrl-C, Ctrl-D or end of input, or the signal. On a terminal in raw mode Ctrl-C is
 * a key, not a signal, so readline reports it and it is handled here.
 */
export function createAsk(streams: PromptStreams): (question: string) => Promise<string | undefined> {
  return (question) =>
    new Promise((resolve) => {
      const { signal } = streams;
      if (signal?.aborted === true) {
        resolve(undefined);
        return;
      }
      const rl = createInterface({
        input: streams.input,
        output: streams.output,
        terminal: streams.terminal,
      });
      let settled = false;
      const settle = (answer: string | undefined): void => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', cancel);
        // The cursor is left after the question: end its line before anything else is printed.
        if (answer === undefined) streams.output.write('\n');
        rl.close();
        resolve(answer);
      };
      const cancel = (): void => settle(undefined);
      rl.on('SIGINT', cancel);
      rl.on('close', cancel);
      signal?.addEventListener('abort', cancel, { once: true });
      rl.question(question, (answer) => settle(answer));
    });
}
