import { dirname, resolve } from 'node:path';
import type { GuideClient, GuideClientOptions } from '../client/index.js';
import { errorMessage, UsageError } from '../core/errors.js';
import { displayPath } from '../core/paths.js';
import { ifDefined } from '../core/records.js';
import { shellWord } from '../core/shell-word.js';
import { DEFAULT_LOCAL_DB_PATH, dbFileExists, prepareDbFolder } from '../service/db-folder.js';
import {
  acquireDbLock,
  describeHolder,
  type HeldLock,
  isServeHolder,
  type LockHolder,
  type LockProcess,
} from '../service/db-lock.js';
import type { GuideService } from '../service/index.js';
import { given, proxyFromEnv, type Target } from './resolve.js';

/** What opening a target needs from the process around it (the CLI's, or a library user's). */
export interface TargetHost {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Relative database paths in messages are shown against this folder. */
  readonly cwd: string;
  /** Aborts the client's calls, and a wait for the lock. */
  readonly stopSignal: AbortSignal;
  /** One line for the user (stderr in the CLI), without its `guidectl: ` prefix and newline. */
  notice(line: string): void;
}

/** A client connected to its target, and what to close when done. */
export interface OpenTarget {
  readonly client: GuideClient;
  /** Closes the client, then the embedded service if one was started. Safe to call twice. */
  close(): Promise<void>;
}

export type TargetClientOptions = Omit<GuideClientOptions, 'auth' | 'baseUrl' | 'proxy' | 'inProcess'>;

/**
 * Asks for the lock of the embedded local database (see `service/db-lock.ts`), for commands that
 * write; ignored for a remote target (the API has no lock) and for `:memory:`.
 */
export interface TargetLock {
  /** The command, for the message another guidectl shows while this one holds the lock. */
  readonly command: string;
  /** Seconds to wait for a lock another guidectl holds; 0 refuses at once. */
  readonly timeoutSeconds: number;
  /** This process, as the lock records and checks it. */
  readonly self: LockProcess;
  /** The database's real path when already found (`withTarget` gives its identity's); else the lock finds it. */
  readonly realPath?: string;
}

/** What a writer refused by the lock can do: wait for an apply; use or stop a serve. */
function writerFix(holder: LockHolder): string {
  if (!isServeHolder(holder)) return 'Wait for it to finish, or pass --lock-timeout SECONDS to wait for it.';
  const url = holder.url ?? 'URL';
  return `A guidectl serve holds it until it is stopped: send the calls to that serve instead (--base-url ${shellWord(url)}, with WECHAT_APPID and WECHAT_SECRET set to its credentials), or stop it first.`;
}

/** What named an embedded target's database, for messages. */
function sourceOf(target: Extract<Target, { kind: 'embedded' }>): string {
  if (target.namedBy !== undefined) return target.namedBy;
  return target.environment === undefined
    ? DEFAULT_LOCAL_DB_PATH
    : `environment ${target.environment}'s database`;
}

/**
 * Connects a client to the target: for `embedded`, opens the guide service in this process over
 * its database (creating the database's folder) and gives `host.notice` one line naming the
 * database. The client hands the service its requests directly — the same bytes as over HTTP,
 * answered by the same rules, without a port, node:http or undici — and fetches tokens from it
 * with the service's own credentials; its messages and `--verbose` lines name the service
 * `embedded(DATABASE)` where a remote target's show its base URL.
 */
export async function openTarget(
  target: Target,
  host: TargetHost,
  options: TargetClientOptions,
  lock?: TargetLock,
): Promise<OpenTarget> {
  const { createGuideClient } = await import('../client/index.js');
  if (target.kind === 'remote') {
    const proxy = proxyFromEnv(host.env);
    const client = createGuideClient({
      signal: host.stopSignal,
      ...options,
      baseUrl: target.baseUrl,
      auth: target.auth,
      credentialVariables: target.variables,
      appCredentialsSet:
        given(host.env, target.variables.appid) !== undefined &&
        given(host.env, target.variables.secret) !== undefined,
      ...ifDefined('proxy', proxy),
    });
    return { client, close: () => client.close() };
  }
  const shown = displayPath(target.dbFile, host.cwd);
  let db = target.dbFile;
  if (db !== ':memory:') {
    const source = sourceOf(target);
    // A database named in the default folder (`--local-db .guidectl/local.db`, as CI must name
    // it) has its folder made as the default one does: it is no typo of another folder.
    const inDefaultFolder = dirname(db) === dirname(resolve(host.cwd, DEFAULT_LOCAL_DB_PATH));
    await prepareDbFolder(db, { isDefault: target.namedBy === undefined || inDefaultFolder, source });
    // Only commands that write take the lock. A command that only reads does not create a
    // database the user or an environment named (a typo must leave no file behind): it reads an
    // empty account in memory and says so. The default database is created on first use.
    const named = target.namedBy !== undefined || target.environment !== undefined;
    if (lock === undefined && named && !(await dbFileExists(db, source, shown))) {
      host.notice(
        `note: ${source} ${shown} does not exist yet; reading it as an empty account, and creating nothing (apply creates it)`,
      );
      db = ':memory:';
    }
  }
  // Said before the lock is asked for: a refusal (or a wait) then reads as being about the database
  // just named, which matters most when no target was given and the user expected another.
  if (db === target.dbFile)
    host.notice(
      `${target.defaulted ? 'no target given; ' : ''}using the embedded local service (database ${shown})`,
    );
  let held: HeldLock | undefined;
  if (lock !== undefined && db !== ':memory:') {
    held = await acquireDbLock(target.dbFile, {
      self: lock.self,
      command: lock.command,
      fix: writerFix,
      timeoutMs: lock.timeoutSeconds * 1000,
      shownPath: shown,
      signal: host.stopSignal,
      ...ifDefined('realPath', lock.realPath),
      ...ifDefined('timeZone', host.env['TZ']),
      onWait: (holder) =>
        host.notice(
          `waiting up to ${lock.timeoutSeconds} s for the local database ${shown}, in use by another guidectl: ${describeHolder(holder, host.env['TZ'])}`,
        ),
    });
  }
  let service: GuideService;
  try {
    const { GuideService } = await import('../service/index.js');
    service = GuideService.open({ db, dbName: shown, log: (line) => host.notice(`local service: ${line}`) });
  } catch (error) {
    await held?.release();
    const why = errorMessage(error);
    throw new UsageError(`cannot start the embedded local service over ${shown}: ${why}`);
  }
  let client: GuideClient;
  try {
    client = createGuideClient({
      signal: host.stopSignal,
      ...options,
      inProcess: { handle: service.handle, name: `embedded(${shown})` },
      auth: service.clientCredentials(),
    });
  } catch (error) {
    await service.close();
    await held?.release();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    client,
    close: () => {
      closing ??= client
        .close()
        .finally(() => service.close())
        .finally(() => held?.release());
      return closing;
    },
  };
}
