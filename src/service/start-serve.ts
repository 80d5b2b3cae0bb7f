import { resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import { ifDefined } from '../core/records.js';
import { type ConnectionLimits, connectionLimitsFor } from './connections.js';
import { DEFAULT_LOCAL_DB_PATH, prepareDbFolder } from './db-folder.js';
import { acquireDbLock, type HeldLock, isServeHolder, type LockProcess } from './db-lock.js';
import { openFileLimit as processOpenFileLimit } from './open-file-limit.js';
import { GuideService, type GuideServiceOptions } from './server.js';

/** `guidectl serve`'s settings, as its flags give them. */
export interface ServeOptions extends Omit<GuideServiceOptions, 'db' | 'connections' | 'log'> {
  /** The database as the user named it (`:memory:`, or a path relative to `cwd`). */
  readonly db: string;
  readonly cwd: string;
  /**
   * This process's soft limit on open files, from which the connection caps are derived; read
   * from the system (`openFileLimit`) when not given.
   */
  readonly openFileLimit?: number;
  readonly maxConnections?: number;
  readonly maxConnectionsPerAddress?: number;
  /** This process, as the database's lock records it. */
  readonly self: LockProcess;
  /** The user's time zone (`TZ`), for the lock's messages; the system's when undefined. */
  readonly timeZone?: string;
  /** What the service reports that it does not answer to a caller. */
  readonly log: (line: string) => void;
}

/** A service started by {@link startServe}, holding its database's lock until closed. */
export interface RunningServe {
  readonly service: GuideService;
  /** The database's absolute path, or `:memory:`. */
  readonly db: string;
  readonly connections: ConnectionLimits;
  /** The open-file limit the connection caps were derived from. */
  readonly openFileLimit: number;
  /** Finishes the calls in flight, closes the database, then releases its lock. */
  close(): Promise<void>;
  /**
   * `close`, unless `now` aborts first (a second Ctrl-C): then stops at once, the calls in flight
   * unanswered (`GuideService.abandon`), and releases the lock. Says which it was: `finished`
   * too when the second signal found no call under way.
   */
  stop(now?: AbortSignal): Promise<'finished' | 'abandoned'>;
}

/**
 * Starts the guide service as `guidectl serve` runs it: the database's folder made ready (only the
 * default one is created), the database's lock held for as long as the service runs (any client
 * may write through a serve at any time, so an apply over the same file, or a second serve, is
 * refused instead of racing it), and connection caps below the open-file limit.
 */
export async function startServe(options: ServeOptions): Promise<RunningServe> {
  const { cwd, openFileLimit: givenLimit, maxConnections, maxConnectionsPerAddress, self, ...rest } = options;
  // Empty would resolve to the working folder: a slip (a variable that expanded to nothing).
  if (options.db === '')
    throw new UsageError('--db takes a database file, e.g. --db guides.db, or :memory:; it is empty');
  const db = options.db === ':memory:' ? options.db : resolve(cwd, options.db);
  if (db !== ':memory:')
    await prepareDbFolder(db, { isDefault: db === resolve(cwd, DEFAULT_LOCAL_DB_PATH), source: '--db' });
  const held = db === ':memory:' ? undefined : await lockForServe(db, options.db, self, options.timeZone);
  try {
    const openFileLimit = givenLimit ?? processOpenFileLimit();
    const total = maxConnections ?? connectionLimitsFor(openFileLimit).total;
    const connections = { total, perAddress: maxConnectionsPerAddress ?? Math.max(1, Math.floor(total / 2)) };
    const service = await GuideService.start({ ...rest, db, dbName: options.db, connections });
    // Before it is said to listen, so that whoever is kept out from then on is told where it is.
    await held?.noteUrl(service.url);
    const close = (): Promise<void> => service.close().finally(() => held?.release());
    return {
      service,
      db,
      connections,
      openFileLimit,
      close,
      async stop(now) {
        const abandoned = new Promise<'abandoned'>((resolve) => {
          if (now?.aborted === true) resolve('abandoned');
          now?.addEventListener('abort', () => resolve('abandoned'), { once: true });
        });
        const how = await Promise.race([close().then(() => 'finished' as const), abandoned]);
        if (how === 'finished') return how;
        // A second signal while nothing was under way cut nothing short: the stop finished all the same.
        const cut = await service.abandon().finally(() => held?.release());
        return cut === 0 ? 'finished' : 'abandoned';
      },
    };
  } catch (error) {
    await held?.release();
    throw error;
  }
}

function lockForServe(db: string, shown: string, self: LockProcess, timeZone?: string): Promise<HeldLock> {
  return acquireDbLock(db, {
    self,
    ...ifDefined('timeZone', timeZone),
    command: `guidectl serve --db ${shown}`,
    timeoutMs: 0,
    shownPath: shown,
    fix: (holder) =>
      isServeHolder(holder)
        ? `Stop that serve first, or give this one another --db${holder.url === undefined ? '' : `; clients can use the running one at ${holder.url}`}.`
        : 'Start serve once it has finished, or give this one another --db.',
  });
}
