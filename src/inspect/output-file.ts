import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { errorCode, UsageError } from '../core/errors.js';

/** Where an export's text goes, piece by piece: a file, or the command's stdout. */
export interface OutputFile {
  /** Appends text; resolves once written (false: the reader has gone), so memory holds one piece. */
  write(text: string): Promise<boolean>;
  /** The output is complete: a file is renamed into place. */
  commit(): Promise<void>;
  /** The output is not complete: a file's hidden copy is removed. */
  abandon(): Promise<void>;
}

/** A stream as the CLI gives it: writes that never throw, and a wait for the reader. */
export interface TextStream {
  write(text: string): void;
  drain?(): Promise<boolean>;
}

/** Standard output as an {@link OutputFile}: each write waits for the reader (`| head -1` ends it). */
export function streamOutput(stream: TextStream): OutputFile {
  return {
    async write(text) {
      stream.write(text);
      return (await stream.drain?.()) ?? true;
    },
    commit: async () => undefined,
    abandon: async () => undefined,
  };
}

/**
 * Opens `path` for an export: the text goes to a hidden file beside it, renamed into place by
 * `commit`, so that an export cut short (a failed call, Ctrl-C) never leaves a file that looks
 * whole. `shown` is the path as the user wrote it, for messages.
 */
export async function openOutputFile(path: string, shown: string): Promise<OutputFile> {
  const partial = join(dirname(path), `.${basename(path)}.partial`);
  let handle: FileHandle;
  try {
    handle = await open(partial, 'w');
  } catch (error) {
    throw new UsageError(
      `cannot write ${shown}: ${errorCode(error) ?? String(error)} (does its folder exist, and may it be written?)`,
    );
  }
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  return {
    async write(text) {
      await handle.write(text);
      return true;
    },
    async commit() {
      await close();
      await rename(partial, path);
    },
    async abandon() {
      await close().catch(() => undefined);
      await rm(partial, { force: true });
    },
  };
}
