import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, type FileHandle, open, rename, rm, stat } from 'node:fs/promises';
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

/** An output flag as the user gave it: `--out`, and the name to suggest when it names a folder. */
export interface OutputFlag {
  /** The flag, as the user typed it (`--out`, `-o`). */
  readonly flag: string;
  /** A file name for the example of a message (`plan.json`). */
  readonly example: string;
}

/**
 * Checks, before any work, that `path` (resolved; `shown` as the user wrote it) can be written as
 * a whole file: the name is not empty, is not a folder, and its folder exists and may be written.
 * A mistake is a usage error naming the flag and the fix, told before a long read rather than
 * after it. (The file is written later; the file system may still refuse it then.)
 */
export async function checkOutputPath(path: string, shown: string, output: OutputFlag): Promise<void> {
  const { flag, example } = output;
  if (shown.trim() === '')
    throw new UsageError(`${flag} is empty; name the file to write, e.g. ${flag} ${example}`);
  const folder = dirname(path);
  const folderShown = dirname(shown) === '.' ? folder : dirname(shown);
  const kind = async (p: string): Promise<'file' | 'folder' | 'none'> => {
    try {
      return (await stat(p)).isDirectory() ? 'folder' : 'file';
    } catch (error) {
      if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return 'none';
      throw new UsageError(`${flag} ${shown}: cannot look at ${p}: ${errorCode(error) ?? String(error)}`);
    }
  };
  if ((await kind(path)) === 'folder') {
    throw new UsageError(
      `${flag} ${shown} is a folder; name a file in it, e.g. ${flag} ${join(shown, example)}`,
    );
  }
  const parent = await kind(folder);
  if (parent === 'none') {
    throw new UsageError(
      `${flag} ${shown}: the folder ${folderShown} does not exist; create it first, or name a file in a folder that exists`,
    );
  }
  if (parent === 'file') throw new UsageError(`${flag} ${shown}: ${folderShown} is a file, not a folder`);
  try {
    await access(folder, constants.W_OK);
  } catch (error) {
    throw new UsageError(
      `${flag} ${shown}: the folder ${folderShown} may not be written (${errorCode(error) ?? String(error)}); name a file in a folder you may write to`,
    );
  }
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
