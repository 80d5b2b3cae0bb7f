import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { access, type FileHandle, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { errorCode, errorMessage, UsageError } from './errors.js';
import { realPathOf } from './real-path.js';

/**
 * A file written whole or not at all: its text goes to a hidden file beside it (same folder, so
 * same file system), renamed over it by `commit`. A write cut short (a failed call, Ctrl-C, a full
 * disk) leaves the file as it was, never half of the new text; a reader sees the old file or the
 * new one. Every byte is written or the write fails: a short write is carried on, and the error
 * that ends it (ENOSPC) is reported. `commit` flushes the hidden file to disk before the rename and
 * the folder after it, so that after a power loss the file is the old one or the whole new one.
 * Every file guidectl writes for the user (saved plans, exports) is written this way.
 * A symbolic link is followed: the file it points to is replaced and the link stays. What is not a
 * file (a device such as /dev/stdout or /dev/null, a named pipe) is written to as a stream, never
 * renamed over: replacing it would put a plain file in its place. It lives in core, though core is otherwise free of effects, because every room that writes a
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
 * Where a whole file goes: a device or named pipe written as a stream, or a file (there or not
 * yet) at its real path, links followed.
 */
type OutputPlace = { readonly kind: 'stream' } | { readonly kind: 'file'; readonly real: string };

type PathKind = 'file' | 'folder' | 'stream' | 'none';

/** What is at `path`, links followed: 'stream' is neither a file nor a folder (a device, a named pipe, a socket). */
async function kindOf(path: string): Promise<PathKind> {
  try {
    const s = await stat(path);
    return s.isDirectory() ? 'folder' : s.isFile() ? 'file' : 'stream';
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return 'none';
    throw error;
  }
}

/** Where {@link openWholeFile} writes `path`. */
async function placeOf(path: string): Promise<OutputPlace> {
  // A path that cannot be looked at is not a stream: opening the hidden file beside it says why.
  const kind = await kindOf(path).catch((): PathKind => 'none');
  return kind === 'stream' ? { kind } : { kind: 'file', real: await realPathOf(path) };
}

/**
 * Checks, before any work, that `path` (resolved; `shown` as the user wrote it) can be written as
 * a whole file: the name is not empty, is not a folder, and its folder exists and may be written.
 * A mistake is a usage error naming the flag and the fix, told before a long read rather than
 * after it. (The file is written later; the file system may still refuse it then.)
 */
export async function checkOutputPath(path: string, shown: string, output: OutputFlag): Promise<void> {
  await checkedPlace(path, shown, output);
}

/** {@link checkOutputPath}, then {@link openWholeFile}, looking at the path once. */
export async function openCheckedFile(path: string, shown: string, output: OutputFlag): Promise<WholeFile> {
  return openAt(path, shown, await checkedPlace(path, shown, output));
}

/** What {@link checkOutputPath} checks; gives where the file goes. */
async function checkedPlace(path: string, shown: string, output: OutputFlag): Promise<OutputPlace> {
  const { flag, example } = output;
  if (shown.trim() === '')
    throw new UsageError(`${flag} is empty; name the file to write, e.g. ${flag} ${example}`);
  if (shown === '-')
    throw new UsageError(
      `${flag} -: to print to standard output, leave ${flag} out; else name a file, e.g. ${flag} ${example}`,
    );
  const kind = (p: string): Promise<PathKind> =>
    kindOf(p).catch((error: unknown) => {
      throw new UsageError(`${flag} ${shown}: cannot look at ${p}: ${errorCode(error) ?? String(error)}`);
    });
  const here = await kind(path);
  if (here === 'folder') {
    throw new UsageError(
      `${flag} ${shown} is a folder; name a file in it, e.g. ${flag} ${join(shown, example)}`,
    );
  }
  if (here === 'stream') {
    try {
      await access(path, constants.W_OK);
      return { kind: 'stream' };
    } catch (error) {
      throw new UsageError(`${flag} ${shown} may not be written (${errorCode(error) ?? String(error)})`);
    }
  }
  // The hidden file goes beside the file a link points to: that folder must exist and be writable.
  const real = await realPathOf(path);
  const folder = dirname(real);
  const folderShown = real !== path || dirname(shown) === '.' ? folder : dirname(shown);
  const parent = await kind(folder);
  if (parent === 'none') {
    throw new UsageError(
      `${flag} ${shown}: the folder ${folderShown} does not exist; create it first, or name a file in a folder that exists`,
    );
  }
  if (parent !== 'folder') throw new UsageError(`${flag} ${shown}: ${folderShown} is a file, not a folder`);
  try {
    await access(folder, constants.W_OK);
  } catch (error) {
    throw new UsageError(
      `${flag} ${shown}: the folder ${folderShown} may not be written (${errorCode(error) ?? String(error)}); name a file in a folder you may write to`,
    );
  }
  return { kind: 'file', real };
}

/**
 * `cannot write SHOWN: CODE (does its folder exist, and may it be written?)`, or, when the disk is
 * full (the folder is there and writable: asking about it would send the user the wrong way),
 * `cannot write SHOWN: the disk is full (ENOSPC); free some space, or write it elsewhere`. `kept`
 * says what became of the file being replaced: `old` (a file was there and is kept as it was),
 * `none` (no file was there, none is made), or `stream` (a device or pipe: nothing to keep).
 */
function cannotWrite(shown: string, error: unknown, kept: Kept = 'stream'): UsageError {
  const full = diskFull(error);
  if (full !== undefined)
    return new UsageError(
      `cannot write ${shown}: ${full}${keptNote(kept)}; free some space, or write it elsewhere`,
    );
  const old = kept === 'old' ? keptNote(kept) : '';
  return new UsageError(
    `cannot write ${shown}: ${errorCode(error) ?? errorMessage(error)} (does its folder exist, and may it be written?)${old}`,
  );
}

/** What a failed write leaves where the file was going: see {@link cannotWrite}. */
type Kept = 'old' | 'none' | 'stream';

function keptNote(kept: Kept): string {
  switch (kept) {
    case 'old':
      return '; the old file is kept as it was';
    case 'none':
      return '; no file was made';
    case 'stream':
      return '';
    default: {
      const unreachable: never = kept;
      return unreachable;
    }
  }
}

/** `the disk is full (ENOSPC)` (or the quota, EDQUOT) when `error` says so; undefined otherwise. */
export function diskFull(error: unknown): string | undefined {
  const code = errorCode(error);
  if (code === 'ENOSPC') return 'the disk is full (ENOSPC)';
  if (code === 'EDQUOT') return 'the disk quota is used up (EDQUOT)';
  return undefined;
}

/** Opens `path` to be written whole; `shown` names it in messages (as the user wrote it). */
export async function openWholeFile(path: string, shown: string): Promise<WholeFile> {
  return openAt(path, shown, await placeOf(path));
}

async function openAt(path: string, shown: string, at: OutputPlace): Promise<WholeFile> {
  if (at.kind === 'stream') return openStream(path, shown);
  const place = at.real;
  // A name of its own per write, so that two writers of one file never share a hidden file.
  const hidden = join(dirname(place), `.${basename(place)}.${randomBytes(4).toString('hex')}.partial`);
  let handle: FileHandle;
  try {
    handle = await open(hidden, 'wx', 0o644);
  } catch (error) {
    throw cannotWrite(shown, error);
  }
  const close = closeOnce(handle);
  let kept: Kept = 'none';
  try {
    kept = (await keepModeAndOwner(handle, place)) ? 'old' : 'none';
  } catch (error) {
    await close().catch(() => undefined);
    await rm(hidden, { force: true });
    throw cannotWrite(shown, error, kept);
  }
  const abandon = async (): Promise<void> => {
    await close().catch(() => undefined);
    await rm(hidden, { force: true });
  };
  const failed = async (error: unknown): Promise<never> => {
    await abandon();
    throw cannotWrite(shown, error, kept);
  };
  return {
    async write(text) {
      await writeAll(handle, text).catch(failed);
    },
    async commit() {
      // Flushed before the rename: else a power loss could leave the new name on a file not yet written.
      await handle
        .sync()
        .then(close)
        .then(() => rename(hidden, place))
        .catch(failed);
      await syncFolder(dirname(place)).catch((error: unknown) => {
        throw new UsageError(
          `wrote ${shown}, but its folder could not be flushed to disk (${errorCode(error) ?? errorMessage(error)}): after a power loss it may be the old file; check the disk, and write it again`,
        );
      });
    },
    abandon,
  };
}

/**
 * Writes all of `text`: a write may take fewer bytes than asked (a disk that fills up takes what
 * fits), so the rest is written again until done or until the file system says why it cannot.
 */
async function writeAll(handle: FileHandle, text: string): Promise<void> {
  const bytes = Buffer.from(text, 'utf8');
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done);
    // No byte taken and no error: no progress is possible, and looping would never end.
    if (bytesWritten === 0)
      throw new Error(`the file system took no byte (${done} of ${bytes.length} written)`);
    done += bytesWritten;
  }
}

/**
 * Flushes the folder to disk, so that the rename into it survives a power loss. A system that
 * cannot open or flush a folder (EISDIR, EINVAL, ENOTSUP, EPERM: not Linux or macOS) is not an error.
 */
async function syncFolder(folder: string): Promise<void> {
  let dir: FileHandle;
  try {
    dir = await open(folder, 'r');
  } catch (error) {
    // A folder that may be written but not read (mode -wx) cannot be opened to be flushed: the
    // file is in place all the same, and the system writes the folder out in its own time.
    if (folderSyncUnsupported(error) || errorCode(error) === 'EACCES') return;
    throw error;
  }
  try {
    await dir.sync().catch((error: unknown) => {
      if (!folderSyncUnsupported(error)) throw error;
    });
  } finally {
    await dir.close();
  }
}

function folderSyncUnsupported(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'EISDIR' || code === 'EINVAL' || code === 'ENOTSUP' || code === 'EPERM';
}

/**
 * Gives the hidden file the mode, owner and group of the file it will replace, before any text
 * goes in, so that replacing a `chmod 600` file (chat records hold customer data) never leaves it,
 * nor the hidden file meanwhile, readable by others. A new file keeps the default (umask) mode.
 * The owner and group are kept where the process may set them (root may; a user may set a group
 * they are in); where it may not (EPERM), the file becomes the writer's, as with any new file.
 * True when a file is there to be replaced.
 */
async function keepModeAndOwner(handle: FileHandle, place: string): Promise<boolean> {
  let old: Stats;
  try {
    old = await stat(place);
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return false;
    throw error;
  }
  const now = await handle.stat();
  // chown before chmod: changing the owner clears set-user-id and set-group-id bits.
  if (old.uid !== now.uid || old.gid !== now.gid) {
    await handle.chown(old.uid, old.gid).catch(async (error: unknown) => {
      if (errorCode(error) !== 'EPERM') throw error;
      if (old.gid !== now.gid) await handle.chown(-1, old.gid).catch(ignoreDenied);
    });
  }
  await handle.chmod(old.mode & 0o7777);
  return old.isFile();
}

function ignoreDenied(error: unknown): void {
  if (errorCode(error) !== 'EPERM') throw error;
}

/** A device or named pipe, written as it comes (there is no old text to keep, nothing to rename). */
async function openStream(path: string, shown: string): Promise<WholeFile> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'w');
  } catch (error) {
    throw cannotWrite(shown, error);
  }
  const close = closeOnce(handle);
  return {
    async write(text) {
      await writeAll(handle, text).catch(async (error: unknown) => {
        await close().catch(() => undefined);
        throw cannotWrite(shown, error);
      });
    },
    commit: () => close().catch((error: unknown) => Promise.reject(cannotWrite(shown, error))),
    abandon: () => close().catch(() => undefined),
  };
}

/** Closes `handle` the first time it is called; later calls do nothing. */
function closeOnce(handle: FileHandle): () => Promise<void> {
  let closed = false;
  return async () => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
}

/** Writes `text` to `path` whole or not at all (see {@link WholeFile}). */
export async function writeWholeFile(path: string, text: string, shown: string): Promise<void> {
  const file = await openWholeFile(path, shown);
  await file.write(text);
  await file.commit();
}
