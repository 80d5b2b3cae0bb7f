import { randomBytes } from 'node:crypto';
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { errorCode, UsageError } from '../core/errors.js';

/**
 * The lock of the embedded local database: one writer at a time.
 *
 * The guide API has no lock, and two applies of one file at once both plan "create group X" and
 * both create it. Against the embedded service guidectl can do better: `apply` (and `api`, which
 * may write) hold `DB.lock` next to the database from before they read the live state until after
 * they checked convergence. `plan` and `export` only read and take no lock (a plan made while an
 * apply runs may show calls that apply is making; a saved plan made then is refused as stale when
 * applied).
 *
 * The lock file holds who has it — pid, host, command, since when — and is created whole
 * (written aside, then hard-linked into place, which fails when it exists). A lock whose process
 * is gone (same host, no such pid) is taken over; a lock of another host never is, since its
 * process cannot be checked from here.
 */

export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly command: string;
  /** ISO 8601 time it was taken. */
  readonly since: string;
  /** Random, to tell this lock from a later one of the same pid. */
  readonly token: string;
}

export interface LockOptions {
  /** What the holder runs, for the message another process shows (no secret: flags only). */
  readonly command: string;
  /** How long to wait for a lock held by a live process; 0 refuses at once. */
  readonly timeoutMs: number;
  /** Told once when this process starts waiting. */
  readonly onWait?: (holder: LockHolder) => void;
  readonly signal?: AbortSignal;
  /** Shown in messages in place of the lock file's absolute path. */
  readonly shownPath: string;
}

export interface HeldLock {
  /** Removes the lock file if it is still this process's lock. Safe to call twice. */
  release(): Promise<void>;
}

const POLL_MS = 250;

export async function acquireLock(file: string, options: LockOptions): Promise<HeldLock> {
  const host = hostname();
  const mine: LockHolder = {
    pid: process.pid,
    host,
    command: options.command,
    since: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  const started = Date.now();
  let told = false;
  for (;;) {
    if (await tryCreate(file, mine)) return heldLock(file, mine.token);
    const holder = await readHolder(file);
    if (holder === 'gone') continue;
    if (holder === 'unreadable') {
      throw new UsageError(
        `the lock of the local database, ${options.shownPath}.lock, exists but does not say who holds it (it was not written by guidectl); if no guidectl uses ${options.shownPath}, delete it`,
      );
    }
    if (isDead(holder, host)) {
      await takeOver(file, holder);
      continue;
    }
    if (Date.now() - started >= options.timeoutMs) throw new UsageError(refusal(holder, host, options));
    if (!told) {
      told = true;
      options.onWait?.(holder);
    }
    if (options.signal?.aborted)
      throw new UsageError(`stopped while waiting for the lock on ${options.shownPath}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Creates the lock file whole, or returns false when one exists. The file written aside lives only
 * for this try (written again at the next), so that a process killed while it waits leaves none.
 */
async function tryCreate(file: string, holder: LockHolder): Promise<boolean> {
  const aside = `${file}.${holder.pid}.${holder.token}.tmp`;
  await writeFile(aside, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  try {
    await link(aside, file);
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw new UsageError(
      `cannot create the lock ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    await unlink(aside).catch(() => undefined);
  }
}

async function readHolder(file: string): Promise<LockHolder | 'gone' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 'gone';
    throw new UsageError(
      `cannot read the lock ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
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
  return { pid, host, command: field('command'), since: field('since'), token: field('token') };
}

/** True when the holder is a process of this host that no longer runs. */
function isDead(holder: LockHolder, host: string): boolean {
  if (holder.host !== host) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return errorCode(error) === 'ESRCH';
  }
}

/**
 * Removes a dead holder's lock, unless another process took it over meanwhile: the file is moved
 * aside first, and moved back when it turns out to be another lock than the dead one.
 */
async function takeOver(file: string, dead: LockHolder): Promise<void> {
  const aside = `${file}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    await rename(file, aside);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return;
    throw error;
  }
  const moved = await readHolder(aside);
  if (moved !== 'gone' && moved !== 'unreadable' && moved.token !== dead.token) {
    await link(aside, file).catch(() => undefined);
  }
  await unlink(aside).catch(() => undefined);
}

function heldLock(file: string, token: string): HeldLock {
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      const holder = await readHolder(file);
      if (holder !== 'gone' && holder !== 'unreadable' && holder.token === token) {
        await unlink(file).catch(() => undefined);
      }
    },
  };
}

export function describeHolder(holder: LockHolder): string {
  return `pid ${holder.pid} on ${holder.host} (${holder.command}), since ${holder.since}`;
}

function refusal(holder: LockHolder, host: string, options: LockOptions): string {
  const other =
    holder.host === host
      ? 'The lock is taken over by itself once that process is gone.'
      : `That process runs on another host and cannot be checked from here: if it is gone, delete ${options.shownPath}.lock.`;
  const waited = options.timeoutMs > 0 ? ` (waited ${Math.round(options.timeoutMs / 1000)} s)` : '';
  return `the local database ${options.shownPath} is in use by another guidectl${waited}: ${describeHolder(holder)}. Wait for it to finish, or pass --lock-timeout SECONDS to wait for it. ${other}`;
}
