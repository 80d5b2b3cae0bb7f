import { randomBytes } from 'node:crypto';
import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { errorCode, UsageError } from './errors.js';

/**
 * A file written whole or not at all: its text goes to a hidden file beside it (same folder, so
 * same file system), renamed over it by `commit`. A write cut short (a failed call, Ctrl-C, a full
 * disk) leaves the file as it was, never half of the new text; a reader sees the old file or the
 * new one. Every file guidectl writes for the user (saved plans, exports) is written this way.
 * It lives in core, though core is otherwise free of effects, because every room that writes a
 * file may import core and no other room.
 */
export interface WholeFile {
  /** Appends text to the hidden file. */
  write(text: string): Promise<void>;
  /** The text is complete: renamed into place. */
  commit(): Promise<void>;
  /** The text is not complete: the hidden file is removed, the file left as it was. */
  abandon(): Promise<void>;
}

/** `cannot write SHOWN: CODE (does its folder exist, and may it be written?)` */
function cannotWrite(shown: string, error: unknown): UsageError {
  return new UsageError(
    `cannot write ${shown}: ${errorCode(error) ?? String(error)} (does its folder exist, and may it be written?)`,
  );
}

/** Opens `path` to be written whole; `shown` names it in messages (as the user wrote it). */
export async function openWholeFile(path: string, shown: string): Promise<WholeFile> {
  // A name of its own per write, so that two writers of one file never share a hidden file.
  const hidden = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.partial`);
  let handle: FileHandle;
  try {
    handle = await open(hidden, 'wx', 0o644);
  } catch (error) {
    throw cannotWrite(shown, error);
  }
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  const abandon = async (): Promise<void> => {
    await close().catch(() => undefined);
    await rm(hidden, { force: true });
  };
  const failed = async (error: unknown): Promise<never> => {
    await abandon();
    throw cannotWrite(shown, error);
  };
  return {
    async write(text) {
      await handle.write(text).catch(failed);
    },
    async commit() {
      await close()
        .then(() => rename(hidden, path))
        .catch(failed);
    },
    abandon,
  };
}

/** Writes `text` to `path` whole or not at all (see {@link WholeFile}). */
export async function writeWholeFile(path: string, text: string, shown: string): Promise<void> {
  const file = await openWholeFile(path, shown);
  await file.write(text);
  await file.commit();
}
