import { InterruptedError } from './errors.js';

/** What a stop during the read of the files says: nothing was read from the account, nor changed. */
export const FILES_INTERRUPTED = 'interrupted while reading the files; nothing was read or changed';

/**
 * Throws `InterruptedError` when `signal` was aborted, counting a signal (Ctrl-C) that came during
 * the synchronous work just done (the parse of the files): its handler runs when the event loop
 * next polls, which the second of two turns waits for (the first may end the poll that the work
 * was part of).
 */
export async function throwIfStopped(signal: AbortSignal | undefined, message: string): Promise<void> {
  for (let turn = 0; turn < 2; turn++) await new Promise((turned) => setImmediate(turned));
  if (signal?.aborted === true) throw new InterruptedError(message);
}
