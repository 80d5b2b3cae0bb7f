import { closeSync, openSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import Database from 'better-sqlite3';
import { errorCode, errorMessage, GuidectlError } from '../core/errors.js';
import { hashSecret, hashToken } from './credentials.js';

/** The database file cannot be opened or is not a guidectl database. */
export class StoreError extends GuidectlError {
  override readonly code = 'SERVICE_STORE';
}

/**
 * The database failed under a call in a way no retry mends: its file is damaged, the disk is full,
 * an I/O error, or it turned read-only. Not a bug of guidectl (no stack trace is worth showing),
 * and not "busy": the message says what is wrong with the file and what to do.
 */
export class StoreFailedError extends GuidectlError {
  override readonly code = 'SERVICE_STORE_FAILED';

  constructor(
    message: string,
    /** What is wrong, in words a remote caller may see (no path). */
    readonly summary: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * The failure of the database `name` (as messages show it) that `error` is, when it is one that
 * retrying does not mend (SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_FULL, SQLITE_IOERR, SQLITE_READONLY,
 * SQLITE_CANTOPEN and their extended codes); undefined for anything else (SQLITE_BUSY is busy,
 * a constraint is a bug).
 */
/** What a damaged database, and a full disk, are told with (at open, and when a call fails). */
const DAMAGED_FIX = 'restore it from a copy, or start over with a new file';
const DISK_FULL = 'the disk is full (SQLITE_FULL); free some space';

export function storeFailure(error: unknown, name: string): StoreFailedError | undefined {
  if (error instanceof StoreFailedError) return error;
  const code = errorCode(error);
  if (code === undefined || !code.startsWith('SQLITE_')) return undefined;
  const said = errorMessage(error);
  const fail = (message: string, summary: string): StoreFailedError =>
    new StoreFailedError(`the local database ${name} ${message}`, summary, { cause: error });
  switch (code.split('_', 2).join('_')) {
    case 'SQLITE_NOTADB':
      return fail(`is not a database, or is damaged: ${said} (${code})`, 'is damaged');
    case 'SQLITE_CORRUPT':
      return fail(`is damaged: ${said} (${code}); ${DAMAGED_FIX}`, 'is damaged');
    case 'SQLITE_FULL':
      return fail(`cannot be written: ${DISK_FULL}`, 'cannot be written: the disk is full');
    case 'SQLITE_IOERR':
      return fail(
        `cannot be read or written: an I/O error (${code}): ${said}`,
        'cannot be read or written: an I/O error',
      );
    case 'SQLITE_READONLY':
    case 'SQLITE_CANTOPEN':
      return fail(
        `cannot be written: ${said} (${code}); make it and its folder writable for this user`,
        'cannot be written',
      );
    default:
      return undefined;
  }
}

/**
 * The service's durable state: one SQLite database (WAL journal). Every API call runs as one
 * transaction (`Store.transaction`), so a call either happens whole or not at all, and what was
 * acknowledged survives a restart or a kill -9 of the process (WAL with synchronous=NORMAL is
 * durable against process crashes; `durability: 'full'` also survives a power cut, at a cost).
 */
const SCHEMA_VERSION = 3;

// Version 2 keeps hashes of the secrets (see credentials.ts): meta holds `secret_hash` instead of
// the clear `secret`, and tokens are kept by their SHA-256, each with the appid that got it.
const TOKENS_TABLE = `
CREATE TABLE tokens (
  token_hash TEXT PRIMARY KEY,     -- SHA-256 of the token, hex
  appid TEXT NOT NULL,             -- the appid that got it; valid for that appid only
  kind TEXT NOT NULL,              -- 'token' (/cgi-bin/token) or 'stable' (/cgi-bin/stable_token)
  issued_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  superseded INTEGER NOT NULL DEFAULT 0  -- 1 once a newer token of its kind was issued
) STRICT;
`;

// Version 3 keeps the counts under the daily quotas (see limits.ts).
const QUOTA_TABLES = `
CREATE TABLE quota_used (
  appid TEXT NOT NULL,
  operation TEXT NOT NULL,         -- a guide operation, e.g. addguideacct
  day INTEGER NOT NULL,            -- the day counted, in UTC+8, as days since 1970-01-01
  used INTEGER NOT NULL,
  PRIMARY KEY (appid, operation)
) STRICT;
CREATE TABLE quota_clears (
  appid TEXT PRIMARY KEY,
  month TEXT NOT NULL,             -- YYYY-MM in UTC+8
  uses INTEGER NOT NULL            -- clear_quota calls answered in that month
) STRICT;
`;

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
${TOKENS_TABLE}
${QUOTA_TABLES}
CREATE TABLE guides (
  id INTEGER PRIMARY KEY,
  account TEXT UNIQUE,             -- set when added by guide_account
  openid TEXT UNIQUE,              -- set when added by guide_openid
  nickname TEXT NOT NULL,
  headimgurl TEXT NOT NULL,
  status INTEGER NOT NULL,         -- 1 pending, 2 confirmed, 3 rejected, 4 expired
  create_time INTEGER NOT NULL,
  update_time INTEGER NOT NULL
) STRICT;
CREATE TABLE fast_replies (
  guide_id INTEGER NOT NULL REFERENCES guides(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  content TEXT NOT NULL,
  updatetime INTEGER NOT NULL,
  PRIMARY KEY (guide_id, seq)
) STRICT;
CREATE TABLE auto_replies (
  owner INTEGER NOT NULL,          -- a guide id, or 0 for the account-wide default
  slot INTEGER NOT NULL,           -- 1 guide_auto_reply, 2 guide_auto_reply_plus
  msgtype INTEGER NOT NULL,
  content TEXT NOT NULL,
  updatetime INTEGER NOT NULL,
  PRIMARY KEY (owner, slot)
) STRICT;
CREATE TABLE black_keywords (seq INTEGER PRIMARY KEY, word TEXT NOT NULL UNIQUE) STRICT;
CREATE TABLE groups (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,         -- unsigned 64-bit, decimal
  name TEXT NOT NULL,
  create_time INTEGER NOT NULL,
  update_time INTEGER NOT NULL
) STRICT;
CREATE TABLE group_members (
  group_seq INTEGER NOT NULL REFERENCES groups(seq) ON DELETE CASCADE,
  guide_id INTEGER NOT NULL REFERENCES guides(id) ON DELETE CASCADE,
  create_time INTEGER NOT NULL,
  PRIMARY KEY (group_seq, guide_id)
) STRICT;
CREATE INDEX group_members_by_guide ON group_members(guide_id);
CREATE TABLE followers (openid TEXT PRIMARY KEY, followed_at INTEGER NOT NULL) STRICT;
CREATE TABLE bindings (
  openid TEXT PRIMARY KEY,
  guide_id INTEGER NOT NULL REFERENCES guides(id) ON DELETE CASCADE,
  bound_at INTEGER NOT NULL
) STRICT;
CREATE INDEX bindings_by_guide ON bindings(guide_id);
CREATE TABLE qrcodes (
  ticket TEXT PRIMARY KEY,
  guide_id INTEGER NOT NULL REFERENCES guides(id) ON DELETE CASCADE,
  qrcode_info TEXT,
  create_time INTEGER NOT NULL
) STRICT;
CREATE TABLE pending_scans (
  openid TEXT PRIMARY KEY,
  ticket TEXT NOT NULL,
  guide_id INTEGER NOT NULL REFERENCES guides(id) ON DELETE CASCADE,
  scanned_at INTEGER NOT NULL
) STRICT;
CREATE TABLE events (
  seq INTEGER PRIMARY KEY,
  create_time INTEGER NOT NULL,
  payload TEXT NOT NULL            -- JSON of the event as WeChat would push it
) STRICT;
CREATE TABLE chat_messages (
  seq INTEGER PRIMARY KEY,
  guide_id INTEGER NOT NULL REFERENCES guides(id) ON DELETE CASCADE,
  openid TEXT NOT NULL,
  create_time INTEGER NOT NULL,
  content TEXT NOT NULL,
  content_type INTEGER NOT NULL,
  direction INTEGER NOT NULL
) STRICT;
CREATE INDEX chat_by_guide_time ON chat_messages(guide_id, create_time);
CREATE TABLE mini_programs (appid TEXT PRIMARY KEY, kind TEXT NOT NULL, linked INTEGER NOT NULL) STRICT;
CREATE TABLE wxa_menus (
  wxa_appid TEXT NOT NULL,
  wx_username TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (wxa_appid, wx_username)
) STRICT;
CREATE TABLE tasks (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,         -- unsigned 64-bit, decimal
  guide_id INTEGER NOT NULL REFERENCES guides(id) ON DELETE CASCADE,
  task_name TEXT NOT NULL,
  task_remark TEXT NOT NULL,
  push_time INTEGER NOT NULL,
  create_time INTEGER NOT NULL,
  update_time INTEGER NOT NULL,
  finish_time INTEGER NOT NULL,
  task_status INTEGER NOT NULL,    -- 1 not executed, 2 executed, 3 completed, 4 cancelled
  material TEXT NOT NULL           -- JSON array of materials as read back
) STRICT;
CREATE INDEX tasks_by_guide ON tasks(guide_id);
CREATE INDEX tasks_due ON tasks(task_status, push_time);
CREATE TABLE task_buyers (
  task_seq INTEGER NOT NULL REFERENCES tasks(seq) ON DELETE CASCADE,
  openid TEXT NOT NULL,
  send_status INTEGER NOT NULL,    -- 1 not sent, 2 sent, 3 not a follower, 4 no quota, 5 system error
  PRIMARY KEY (task_seq, openid)
) STRICT;
`;

export type Durability = 'normal' | 'full';

/** How long a statement waits for another process's lock on the database before it fails. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Puts the database in WAL mode. The first switch of a new file takes an exclusive lock without
 * SQLite's busy handler: when another process holds a lock on the file at that moment (several
 * commands started together on a fresh folder), the pragma fails at once with SQLITE_BUSY,
 * whatever busy_timeout says. It is asked again until the lock is free, for as long as a
 * statement would wait ({@link BUSY_TIMEOUT_MS}); the constructor is synchronous, so the waits are
 * too (Atomics.wait, a few ms each).
 */
function useWal(db: Database.Database): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  const nap = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if (errorCode(error) !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      Atomics.wait(nap, 0, 0, 5);
    }
  }
}

export type SqlValue = string | number | bigint | null;

export class Store {
  readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly rawStatements = new Map<string, Database.Statement>();
  private runInTransaction: Database.Transaction<(body: () => void) => void> | undefined;

  constructor(file: string, durability: Durability = 'normal') {
    try {
      createPrivately(file);
      this.db = new Database(file);
    } catch (error) {
      throw new StoreError(`cannot open the database ${file}: ${reason(error, file)}`, { cause: error });
    }
    try {
      this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      useWal(this.db);
      this.db.pragma(`synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'}`);
      this.db.pragma('foreign_keys = ON');
      // A migration that wrote has shown the file writable.
      if (!this.migrate() && this.db.name !== ':memory:') this.checkWritable();
    } catch (error) {
      this.db.close();
      if (error instanceof StoreError) throw error;
      throw new StoreError(`cannot use the database ${file}: ${reason(error, file)}`, { cause: error });
    }
  }

  /**
   * SQLite opens a file it may not write (mode 0444, another owner's, immutable) read-only, and
   * says so only at the first write — for the service, the first token it issues, which would
   * fail as an internal error, again at every retry of the client. A write rolled back at once
   * finds it now (SQLITE_READONLY, which `reason` puts in words).
   */
  private checkWritable(): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
    } finally {
      this.db.exec('ROLLBACK');
    }
  }

  private userVersion(): number {
    return Number(this.db.pragma('user_version', { simple: true }));
  }

  /**
   * Brings a new or older database to this schema. Other processes may be opening the same file
   * at the same moment (two commands started together on a fresh folder): the version is read
   * again under the write lock (BEGIN IMMEDIATE), so that only the first creates the tables and
   * the others find them made. True when it wrote (the tables, or an older database brought up).
   */
  private migrate(): boolean {
    const seen = this.userVersion();
    if (seen === SCHEMA_VERSION) return false;
    checkKnown(seen);
    // Only a version-1 database gets old pages zeroed (see hashSecrets); set outside a transaction.
    if (seen === 1) this.db.pragma('secure_delete = ON');
    let from = SCHEMA_VERSION;
    let wrote = false;
    this.db
      .transaction(() => {
        from = this.userVersion();
        if (from === SCHEMA_VERSION) return;
        checkKnown(from);
        if (from === 0) this.db.exec(SCHEMA);
        if (from === 1) this.hashSecrets();
        if (from === 1 || from === 2) this.db.exec(QUOTA_TABLES);
        this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
        wrote = true;
      })
      .immediate();
    if (from === 1) this.compact();
    if (seen === 1) this.db.pragma('secure_delete = OFF');
    return wrote;
  }

  /**
   * Version 1 (guidectl before 2026-11-23) kept the app secret and the tokens in clear. They are
   * replaced by their hashes, with secure_delete on so that the freed pages are zeroed, and then
   * (`compact`) the WAL is checkpointed and truncated so that no old page stays in it. The tokens
   * keep working.
   */
  private hashSecrets(): void {
    const appid = this.getMeta('appid') ?? '';
    const secret = this.getMeta('secret');
    const tokens = this.all<{
      token: string;
      kind: string;
      issued_at: number;
      expires_at: number;
      superseded: number;
    }>('SELECT token, kind, issued_at, expires_at, superseded FROM tokens');
    this.db.exec('DROP TABLE tokens');
    this.db.exec(TOKENS_TABLE);
    const insert = this.db.prepare(
      'INSERT INTO tokens (token_hash, appid, kind, issued_at, expires_at, superseded) VALUES (?, ?, ?, ?, ?, ?)',
    );
    for (const t of tokens)
      insert.run(hashToken(t.token), appid, t.kind, t.issued_at, t.expires_at, t.superseded);
    if (secret !== undefined) this.setMeta('secret_hash', hashSecret(secret));
    this.setMeta('secret', undefined);
  }

  private compact(): void {
    this.statements.clear();
    this.db.exec('VACUUM');
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /** A prepared statement, cached by its text. */
  stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (s === undefined) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  get<T>(sql: string, ...params: SqlValue[]): T | undefined {
    return this.stmt(sql).get(...params) as T | undefined;
  }

  all<T>(sql: string, ...params: SqlValue[]): T[] {
    return this.stmt(sql).all(...params) as T[];
  }

  /** Rows as arrays of column values, in the order the query names them (faster for big reads). */
  rawRows<T extends unknown[]>(sql: string, ...params: SqlValue[]): T[] {
    let s = this.rawStatements.get(sql);
    if (s === undefined) {
      s = this.db.prepare(sql).raw(true);
      this.rawStatements.set(sql, s);
    }
    return s.all(...params) as T[];
  }

  run(sql: string, ...params: SqlValue[]): Database.RunResult {
    return this.stmt(sql).run(...params);
  }

  /**
   * Runs `fn` as one transaction; a throw rolls everything back. Writers take the write lock at
   * once (BEGIN IMMEDIATE), so that two processes sharing the file never deadlock; readers take a
   * snapshot (BEGIN DEFERRED).
   */
  transaction<T>(fn: () => T, mode: 'read' | 'write' = 'write'): T {
    // One wrapper for all calls, made on first use: better-sqlite3 builds four functions and a
    // controller for every `db.transaction(fn)`, 6% of the service's time in a large read.
    this.runInTransaction ??= this.db.transaction((body: () => void) => body());
    let result: { readonly value: T } | undefined;
    const body = (): void => {
      result = { value: fn() };
    };
    if (mode === 'write') this.runInTransaction.immediate(body);
    else this.runInTransaction.deferred(body);
    if (result === undefined) throw new Error('the transaction ended without running its body');
    return result.value;
  }

  /**
   * Runs `fn` inside the transaction under way, as a savepoint: a throw undoes what `fn` did and
   * only that, and is thrown on.
   */
  savepoint<T>(fn: () => T): T {
    if (!this.db.inTransaction) throw new Error('a savepoint needs a transaction under way');
    return this.transaction(fn);
  }

  getMeta(key: string): string | undefined {
    return this.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', key)?.value;
  }

  setMeta(key: string, value: string | undefined): void {
    if (value === undefined) this.run('DELETE FROM meta WHERE key = ?', key);
    else
      this.run(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
        key,
        value,
      );
  }

  /** Empties every table (the simulation's reset); the credentials in `meta` are kept. */
  reset(keepMeta: readonly string[]): void {
    this.transaction(() => {
      const tables = this.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'");
      for (const { name } of tables) {
        if (name === 'meta') {
          const keep = keepMeta.map(() => '?').join(', ');
          this.db.prepare(`DELETE FROM meta WHERE key NOT IN (${keep || "''"})`).run(...keepMeta);
        } else if (name !== 'tokens') {
          this.db.prepare(`DELETE FROM ${name}`).run();
        }
      }
    });
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/**
 * Creates the database file readable by its owner only (0600) before SQLite opens it; SQLite
 * gives its -wal and -shm files the mode of the database file. An existing file is left as it is.
 */
function createPrivately(file: string): void {
  if (file === ':memory:' || file === '' || file.startsWith('file:')) return;
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (error) {
    // Already there (EEXIST), or not creatable: SQLite then says why in its own words.
    if (errorCode(error) === 'EEXIST') return;
  }
}

/** Refuses a schema this guidectl does not know (0 is a new file, 1 an older one). */
function checkKnown(version: number): void {
  if (version > SCHEMA_VERSION || version < 0) {
    throw new Error(
      `database schema version ${version} is newer than this guidectl understands (${SCHEMA_VERSION})`,
    );
  }
}

function reason(error: unknown, file: string): string {
  const code = errorCode(error) ?? '';
  if (code.startsWith('SQLITE_CORRUPT'))
    return `it is damaged: ${errorMessage(error)} (${code}); ${DAMAGED_FIX}`;
  if (code === 'SQLITE_FULL') return DISK_FULL;
  // SQLite grows the -shm file beside the database as it opens it in WAL mode.
  if (code === 'SQLITE_IOERR_SHMSIZE')
    return `${errorMessage(error)} (${code}): ${basename(file)}-shm could not be made beside it; is the disk full?`;
  if (code.startsWith('SQLITE_IOERR')) return `${errorMessage(error)} (${code})`;
  if (code === 'SQLITE_READONLY')
    return 'it is read-only, and guidectl writes it even to read it (tokens, the clock); make it writable for this user';
  const message = errorMessage(error);
  return message === 'unable to open database file'
    ? `it is a folder, its folder does not exist, or this user may not write it or its folder ${dirname(file)} (SQLite keeps ${basename(file)}-wal and ${basename(file)}-shm beside it)`
    : message;
}
