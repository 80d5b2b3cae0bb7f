import { randomBytes } from 'node:crypto';
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { errorCode, errorMessage, InterruptedError, UsageError } from '../core/errors.js';
import { realPathOf } from '../core/real-path.js';
import { shortLocalTime } from '../core/wall-time.js';
import { diskFull } from '../core/whole-file.js';

/**
 * The lock of a local database file: one writer at a time.
 *
 * The guide API has no lock, and two applies of one file at once both plan "create group X" and
 * both create it. Over a local SQLite file guidectl can do better: every process that writes the
 * file holds `DB.lock` next to it — `apply` (and `api`, which may write) from before they read the
 * live state until after they checked convergence, and `guidectl serve --db DB` for as long as it
 * runs, since any client may write through it at any time. Readers (`plan`, `export`) take none.
 *
 * The lock file holds who has it — pid, host, command, since when, and for a serve its address —
 * and is created whole (written aside, then hard-linked into place, which fails when it exists).
 * A lock whose process is gone (same host, no such pid) is taken over; a lock of another host
 * never is, since its process cannot be checked from here.
 *
 * What concerns the running process (its pid, host, clock, whether a pid runs) is given by the
 * caller, so that this room does not reach into `process` itself.
 */

export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** What the holder runs, e.g. `guidectl apply guides/` (flags only, no secret). */
  readonly command: string;
  /** ISO 8601 time it was taken. */
  readonly since: string;
  /** Random, to tell this lock from a later one of the same pid. */
  readonly token: string;
  /** For a `guidectl serve`: the URL it listens on, once it does. */
  readonly url?: string;
}

/** The process that asks for the lock, as the CLI sees it. */
export interface LockProcess {
  readonly pid: number;
  readonly host: string;
  /** False only when no process of this host has that pid. */
  isRunning(pid: number): boolean;
  now(): Date;
}

export interface LockOptions {
  readonly self: LockProcess;
  /** What the holder runs, for the message another process shows (no secret: flags only). */
  readonly command: string;
  /** How long to wait for a lock held by a live process; 0 refuses at once. */
  readonly timeoutMs: number;
  /** Told once when this process starts waiting. */
  readonly onWait?: (holder: LockHolder) => void;
  readonly signal?: AbortSignal;
  /** Shown in messages in place of the database's absolute path. */
  readonly shownPath: string;
  /** What the asker can do about a holder, in the refusal (e.g. which flag waits for it). */
  readonly fix: (holder: LockHolder) => string;
  /** The database's real path (`realPathOf`) when the caller has it already; else found here. */
  readonly realPath?: string;
  /** The user's time zone (`TZ`), for when the holder took the lock; the system's when undefined. */
  readonly timeZone?: string;
}

export interface HeldLock {
  /**
   * Adds the URL a serve listens on to the lock, for the messages of those it keeps out. Only
   * informative: a failure to rewrite the file is ignored.
   */
  noteUrl(url: string): Promise<void>;
  /** Removes the lock file if it is still this process's lock. Safe to call twice. */
  release(): Promise<void>;
}

const POLL_MS = 250;

/** The lock file of a database file. */
export function lockFileOf(dbFile: string): string {
  return `${dbFile}.lock`;
}

/**
 * Takes the lock of `dbFile` (on its real path, `realPathOf`: a symlink to the file or to a folder on its path shares the file's lock instead of getting around it; SQLite too opens the file a link points to), waiting up to `timeoutMs` for
 * a live holder; throws `UsageError`.
 */
export async function acquireDbLock(dbFile: string, options: LockOptions): Promise<HeldLock> {
  const real = options.realPath ?? (await realPathOf(dbFile));
  const file = lockFileOf(real);
  // The lock file as messages name it: beside the path the user gave, unless that is a link.
  const shownLock = real === dbFile ? lockFileOf(options.shownPath) : file;
  const { self } = options;
  const mine: LockHolder = {
    pid: self.pid,
    host: self.host,
    command: options.command,
    since: self.now().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  const started = self.now().getTime();
  let told = false;
  for (;;) {
    if (await tryCreate(file, mine)) return heldLock(file, mine);
    const holder = await readHolder(file);
    if (holder === 'gone') continue;
    if (holder === 'unreadable') {
      throw new UsageError(
        `the lock of the local database, ${shownLock}, exists but does not say who holds it (it was not written by guidectl); if no guidectl uses ${options.shownPath}, delete it`,
      );
    }
    if (holder.host === self.host && !self.isRunning(holder.pid)) {
      await takeOver(file, holder);
      continue;
    }
    if (self.now().getTime() - started >= options.timeoutMs)
      throw new UsageError(refusal(holder, self.host, options, shownLock));
    if (!told) {
      told = true;
      options.onWait?.(holder);
    }
    if (options.signal?.aborted)
      throw new InterruptedError(`stopped while waiting for the lock on ${options.shownPath}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Creates the lock file whole, or returns false when one exists. The file written aside lives only
 * for this try (written again at the next), so that a process killed while it waits leaves none.
 */
async function tryCreate(file: string, holder: LockHolder): Promise<boolean> {
  const aside = asideName(file, holder);
  try {
    await writeFile(aside, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  } catch (error) {
    // Created but not written (a full disk): not left behind, one more at every try.
    await unlink(aside).catch(() => undefined);
    throw unwritableFolder(file, error);
  }
  try {
    await link(aside, file);
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw new UsageError(`cannot create the lock ${file}: ${errorMessage(error)}`);
  } finally {
    await unlink(aside).catch(() => undefined);
  }
}

const asideName = (file: string, holder: LockHolder): string => `${file}.${holder.pid}.${holder.token}.tmp`;

/**
 * The lock cannot be written beside the database: a full disk, a read-only folder, or one of
 * /proc or /sys.
 */
function unwritableFolder(file: string, error: unknown): UsageError {
  const folder = dirname(file);
  const full = diskFull(error);
  if (full !== undefined) {
    return new UsageError(
      `cannot write the lock ${basename(file)} in the folder ${folder}: ${full}. A guidectl that writes a local database keeps its lock beside it, and the database needs room too: free some space`,
      { cause: error },
    );
  }
  const why = errorCode(error) ?? errorMessage(error);
  return new UsageError(
    `cannot write in the folder ${folder} (${why}): a guidectl that writes a local database keeps its lock, ${basename(file)}, beside it. Use a database in a folder you can write to, or make ${folder} writable`,
    { cause: error },
  );
}

async function readHolder(file: string): Promise<LockHolder | 'gone' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 'gone';
    throw new UsageError(`cannot read the lock ${file}: ${errorMessage(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'unreadable';
  }
  if (typeof value !== 'object' || value === null) return 'unreadable';
  const v = new Map<string, unknown>(Object.entries(value));
  const pid = v.get('pid');
  const host = v.get('host');
  if (typeof pid !== 'number' || typeof host !== 'string') return 'unreadable';
  const field = (key: string): string => {
    const x = v.get(key);
    return typeof x === 'string' ? x : '?';
  };
  const url = v.get('url');
  return {
    pid,
    host,
    command: field('command'),
    since: field('since'),
    token: field('token'),
    ...(typeof url === 'string' ? { url } : {}),
  };
}

/**
 * Removes a dead holder's lock, unless another process took it over meanwhile: the file is moved
 * aside first, and moved back when it turns out to be another lock than the dead one.
 */
async function takeOver(file: string, dead: LockHolder): Promise<void> {
  const aside = `${file}.stale.${randomBytes(6).toString('hex')}`;
  try {
    await rename(file, aside);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return;
    throw unwritableFolder(file, error);
  }
  const moved = await readHolder(aside);
  if (moved !== 'gone' && moved !== 'unreadable' && moved.token !== dead.token) {
    await link(aside, file).catch(() => undefined);
  }
  await unlink(aside).catch(() => undefined);
}

const isMine = (holder: LockHolder | 'gone' | 'unreadable', token: string): boolean =>
  holder !== 'gone' && holder !== 'unreadable' && holder.token === token;

function heldLock(file: string, mine: LockHolder): HeldLock {
  let released: Promise<void> | undefined;
  return {
    async noteUrl(url) {
      if (released !== undefined || !isMine(await readHolder(file).catch(() => 'gone' as const), mine.token))
        return;
      // Rewritten aside and renamed over, so that a reader never sees half a lock.
      const aside = asideName(file, mine);
      try {
        await writeFile(aside, `${JSON.stringify({ ...mine, url })}\n`, { mode: 0o600 });
        await rename(aside, file);
      } catch {
        await unlink(aside).catch(() => undefined);
      }
    },
    release() {
      // Once, and every caller waits for that one: a second release that returned at once would let
      // the process end (serve's stop after a second signal) before the lock file is gone.
      released ??= readHolder(file).then(async (holder) => {
        if (isMine(holder, mine.token)) await unlink(file).catch(() => undefined);
      });
      return released;
    },
  };
}

/** `pid 4242 on build-7 (guidectl apply guides/), since 2026-12-01 10:00:05 +08:00`, in `timeZone`. */
export function describeHolder(holder: LockHolder, timeZone: string | undefined): string {
  const serving = holder.url === undefined ? '' : `, serving ${holder.url}`;
  const ms = Date.parse(holder.since);
  // A lock file written by hand or by another version may hold any text: it is shown as it is.
  const since = Number.isNaN(ms) ? holder.since : shortLocalTime(Math.floor(ms / 1000), timeZone);
  return `pid ${holder.pid} on ${holder.host} (${holder.command}${serving}), since ${since}`;
}

/** True when the holder is a `guidectl serve`, which holds the lock until it is stopped. */
export function isServeHolder(holder: LockHolder): boolean {
  return holder.url !== undefined || /^guidectl serve\b/.test(holder.command);
}

function refusal(holder: LockHolder, host: string, options: LockOptions, shownLock: string): string {
  const other =
    holder.host === host
      ? 'The lock is taken over by itself once that process is gone.'
      : `That process runs on another host and cannot be checked from here: if it is gone, delete ${shownLock}.`;
  const waited = options.timeoutMs > 0 ? ` (waited ${Math.round(options.timeoutMs / 1000)} s)` : '';
  return `the local database ${options.shownPath} is in use by another guidectl${waited}: ${describeHolder(holder, options.timeZone)}. ${options.fix(holder)} ${other}`;
}
