import { resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { parseBaseUrl } from '../client/base-url.js';
// Types only: the client (undici) and the service (better-sqlite3) are loaded by `openTarget`,
// so that commands without a target (validate, --help) start without them.
import type {
  ClientAuth,
  ClientEvent,
  GuideClient,
  GuideClientOptions,
  ProxySettings,
} from '../client/index.js';
import { errorMessage, UsageError } from '../core/errors.js';
import { displayPath } from '../core/paths.js';
import { escapeControlsKeepingLines } from '../report/escape.js';
import {
  acquireDbLock,
  describeHolder,
  type HeldLock,
  isServeHolder,
  type LockHolder,
} from '../service/db-lock.js';
import type { GuideService } from '../service/index.js';
import { DEFAULT_BASE_URL } from '../wire/operations.js';
import { dbFileExists, prepareDbFolder } from './ensure-dir.js';
import type { CliIo } from './io.js';
import { thisProcess } from './lock-process.js';

/** The embedded local service's database when nothing else is said. */
export const DEFAULT_LOCAL_DB_PATH = '.guidectl/local.db';

/** The target settings given as flags (credentials never are: they come from the environment). */
export interface TargetFlags {
  readonly baseUrl?: string;
  readonly localDb?: string;
}

/**
 * Where the commands send their calls, as the README's "Target" paragraph promises users:
 * - `remote`: a base URL (`--base-url`, `GUIDECTL_BASE_URL`, or `https://api.weixin.qq.com` when
 *   only credentials are given) with credentials from the environment (`WECHAT_ACCESS_TOKEN`, or
 *   `WECHAT_APPID` + `WECHAT_SECRET`);
 * - `embedded`: nothing given: the guide service started in-process on a loopback port over the
 *   local database (`--local-db`, `GUIDECTL_LOCAL_DB`, `.guidectl/local.db`), resolved against the
 *   working directory.
 */
export type Target =
  | {
      readonly kind: 'remote';
      readonly baseUrl: string;
      readonly auth: ClientAuth;
      /** Which settings chose it, for messages. */
      readonly authSource: 'WECHAT_ACCESS_TOKEN' | 'WECHAT_APPID/WECHAT_SECRET';
    }
  | {
      readonly kind: 'embedded';
      /** Absolute path, or `:memory:`. */
      readonly dbFile: string;
      /** True when neither a flag nor the environment named the database. */
      readonly defaulted: boolean;
      /** What named the database, when something did (for messages). */
      readonly namedBy?: '--local-db' | 'GUIDECTL_LOCAL_DB';
    };

type Env = Readonly<Record<string, string | undefined>>;

/** A variable's value, with unset and empty alike treated as not given. */
function given(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function checkBaseUrl(value: string, source: string): string {
  const parsed = parseBaseUrl(value);
  if ('url' in parsed) return value.replace(/\/+$/, '');
  switch (parsed.problem.kind) {
    case 'not-a-url':
      throw new UsageError(
        `${source} ${JSON.stringify(value)} is not a URL; give e.g. https://api.weixin.qq.com`,
      );
    case 'not-http':
      throw new UsageError(`${source} must be an http:// or https:// URL, not ${parsed.problem.protocol}`);
    case 'query-or-fragment':
      throw new UsageError(
        `${source} must not hold a query or fragment (the access token is added by guidectl)`,
      );
    default: {
      const unreachable: never = parsed.problem;
      return unreachable;
    }
  }
}

/** Chooses the target from the flags and the environment; throws `UsageError` on a contradiction. */
export function resolveTarget(env: Env, flags: TargetFlags, cwd: string): Target {
  const token = given(env, 'WECHAT_ACCESS_TOKEN');
  const appid = given(env, 'WECHAT_APPID');
  const secret = given(env, 'WECHAT_SECRET');
  if (token === undefined && (appid === undefined) !== (secret === undefined)) {
    const [set, missing] =
      appid === undefined ? ['WECHAT_SECRET', 'WECHAT_APPID'] : ['WECHAT_APPID', 'WECHAT_SECRET'];
    throw new UsageError(`${set} is set but ${missing} is not; app credentials need both`);
  }
  const auth: ClientAuth | undefined =
    token !== undefined
      ? { accessToken: token }
      : appid !== undefined && secret !== undefined
        ? { appid, secret }
        : undefined;
  const flagUrl = flags.baseUrl === undefined || flags.baseUrl === '' ? undefined : flags.baseUrl;
  const envUrl = given(env, 'GUIDECTL_BASE_URL');
  const baseUrl =
    flagUrl !== undefined
      ? checkBaseUrl(flagUrl, '--base-url')
      : envUrl !== undefined
        ? checkBaseUrl(envUrl, 'GUIDECTL_BASE_URL')
        : undefined;

  if (auth !== undefined) {
    if (flags.localDb !== undefined) {
      throw new UsageError(
        '--local-db selects the embedded local service, but credentials are set in the environment ' +
          '(WECHAT_ACCESS_TOKEN or WECHAT_APPID/WECHAT_SECRET); unset them to use the local service',
      );
    }
    return {
      kind: 'remote',
      baseUrl: baseUrl ?? DEFAULT_BASE_URL,
      auth,
      authSource: token !== undefined ? 'WECHAT_ACCESS_TOKEN' : 'WECHAT_APPID/WECHAT_SECRET',
    };
  }
  if (baseUrl !== undefined) {
    throw new UsageError(
      `${flagUrl !== undefined ? '--base-url' : 'GUIDECTL_BASE_URL'} is given but no credentials are: set ` +
        'WECHAT_ACCESS_TOKEN, or WECHAT_APPID and WECHAT_SECRET, in the environment',
    );
  }
  const named = flags.localDb ?? given(env, 'GUIDECTL_LOCAL_DB');
  const file = named ?? DEFAULT_LOCAL_DB_PATH;
  return {
    kind: 'embedded',
    dbFile: file === ':memory:' ? file : resolve(cwd, file),
    defaulted: named === undefined,
    ...(named === undefined
      ? {}
      : { namedBy: flags.localDb !== undefined ? '--local-db' : 'GUIDECTL_LOCAL_DB' }),
  };
}

/** Proxy settings as curl and other tools read them (upper case first, then lower case). */
export function proxyFromEnv(env: Env): ProxySettings | undefined {
  const httpsProxy = given(env, 'HTTPS_PROXY') ?? given(env, 'https_proxy');
  const httpProxy = given(env, 'HTTP_PROXY') ?? given(env, 'http_proxy');
  const noProxy = given(env, 'NO_PROXY') ?? given(env, 'no_proxy');
  if (httpsProxy === undefined && httpProxy === undefined) return undefined;
  return {
    ...(httpsProxy === undefined ? {} : { httpsProxy }),
    ...(httpProxy === undefined ? {} : { httpProxy }),
    ...(noProxy === undefined ? {} : { noProxy }),
  };
}

/** A client connected to its target, and what to close when done. */
export interface OpenTarget {
  readonly client: GuideClient;
  /** Closes the client, then the embedded service if one was started. Safe to call twice. */
  close(): Promise<void>;
}

export type TargetClientOptions = Omit<GuideClientOptions, 'auth' | 'baseUrl' | 'proxy'>;

/**
 * Asks for the lock of the embedded local database (see `service/db-lock.ts`), for commands that
 * write; ignored for a remote target (the API has no lock) and for `:memory:`.
 */
export interface TargetLock {
  /** The command, for the message another guidectl shows while this one holds the lock. */
  readonly command: string;
  /** Seconds to wait for a lock another guidectl holds; 0 refuses at once. */
  readonly timeoutSeconds: number;
}

/** What a writer refused by the lock can do: wait for an apply; use or stop a serve. */
function writerFix(holder: LockHolder): string {
  if (!isServeHolder(holder)) return 'Wait for it to finish, or pass --lock-timeout SECONDS to wait for it.';
  const url = holder.url ?? 'URL';
  return `A guidectl serve holds it until it is stopped: send the calls to that serve instead (--base-url ${url}, with WECHAT_APPID and WECHAT_SECRET set to its credentials), or stop it first.`;
}

/**
 * Connects a client to the target: for `embedded`, starts the guide service in-process on
 * 127.0.0.1 (creating the database's folder) and prints one notice line on stderr naming the
 * database; the client then fetches tokens from it with the service's own credentials.
 */
export async function openTarget(
  target: Target,
  io: CliIo,
  options: TargetClientOptions,
  lock?: TargetLock,
): Promise<OpenTarget> {
  const { createGuideClient } = await import('../client/index.js');
  if (target.kind === 'remote') {
    const proxy = proxyFromEnv(io.env);
    const client = createGuideClient({
      signal: io.stopSignal,
      ...options,
      baseUrl: target.baseUrl,
      auth: target.auth,
      ...(proxy === undefined ? {} : { proxy }),
    });
    return { client, close: () => client.close() };
  }
  const shown = displayPath(target.dbFile, io.cwd);
  let db = target.dbFile;
  if (db !== ':memory:') {
    const source = target.namedBy ?? DEFAULT_LOCAL_DB_PATH;
    await prepareDbFolder(db, { isDefault: target.namedBy === undefined, source });
    // Only commands that write take the lock. A command that only reads does not create a
    // database the user named (a typo must leave no file behind): it reads an empty account in
    // memory and says so. The default database is created on first use.
    if (lock === undefined && target.namedBy !== undefined && !(await dbFileExists(db, source, shown))) {
      io.stderr.write(
        `guidectl: note: ${source} ${shown} does not exist yet; reading it as an empty account, and creating nothing (apply creates it)\n`,
      );
      db = ':memory:';
    }
  }
  // Said before the lock is asked for: a refusal (or a wait) then reads as being about the database
  // just named, which matters most when no target was given and the user expected another.
  if (db === target.dbFile)
    io.stderr.write(
      `guidectl: ${target.defaulted ? 'no target given; ' : ''}using the embedded local service (database ${shown})\n`,
    );
  let held: HeldLock | undefined;
  if (lock !== undefined && db !== ':memory:') {
    held = await acquireDbLock(target.dbFile, {
      self: thisProcess(),
      command: lock.command,
      fix: writerFix,
      timeoutMs: lock.timeoutSeconds * 1000,
      shownPath: shown,
      signal: io.stopSignal,
      onWait: (holder) =>
        io.stderr.write(
          `guidectl: waiting up to ${lock.timeoutSeconds} s for the local database ${shown}, in use by another guidectl: ${describeHolder(holder)}\n`,
        ),
    });
  }
  let service: GuideService;
  try {
    const { GuideService } = await import('../service/index.js');
    service = await GuideService.start({
      db,
      host: '127.0.0.1',
      port: 0,
      log: (line) => io.stderr.write(`guidectl: local service: ${line}\n`),
    });
  } catch (error) {
    await held?.release();
    const why = errorMessage(error);
    throw new UsageError(`cannot start the embedded local service over ${shown}: ${why}`);
  }
  let client: GuideClient;
  try {
    client = createGuideClient({
      signal: io.stopSignal,
      ...options,
      baseUrl: service.url,
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

/** One line of a `--verbose` log for an event (control characters escaped), or undefined. */
export function describeEvent(event: ClientEvent): string | undefined {
  const line = eventLine(event);
  return line === undefined ? undefined : escapeControlsKeepingLines(line);
}

function eventLine(event: ClientEvent): string | undefined {
  switch (event.type) {
    case 'http': {
      const outcome =
        event.status === undefined ? `failed: ${event.error ?? 'no answer'}` : `${event.status}`;
      const lines = [`guidectl: ${event.method} ${event.url} → ${outcome} (${event.durationMs} ms)`];
      lines.push(`guidectl:   > ${event.requestBody ?? '(credentials, not shown)'}`);
      if (event.status !== undefined)
        lines.push(`guidectl:   < ${event.responseBody ?? '(access token, not shown)'}`);
      return lines.join('\n');
    }
    case 'retry':
      return `guidectl: ${event.operation}: attempt ${event.attempt} failed (${event.reason}); retrying in ${event.delayMs} ms`;
    case 'token-refresh':
      return `guidectl: access token ${event.ok ? 'fetched' : 'fetch failed'} (${event.reason}${event.errcode === undefined ? '' : ` after ${event.errcode}`}${event.forced ? ', forced' : ''}) in ${event.durationMs} ms`;
    case 'confirm':
      return `guidectl: ${event.operation}: the answer was lost; confirmed by reading: ${event.outcome} (${event.detail})`;
    case 'held':
      return `guidectl: ${event.operation}: no answer within ${(event.timeoutMs / 1000).toFixed(1)} s; the server may still be working on it, so it is waited for (up to ${Math.round(event.settleMs / 1000)} s more) before anything that depends on it`;
    case 'call-start':
    case 'call-end':
      return undefined;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

function parseParallelism(value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || n < 1 || n > 256) {
    throw new InvalidArgumentError('--parallelism must be a whole number from 1 to 256.');
  }
  return n;
}

/** Adds the target options every command that talks to a target takes (plan, apply, export, api). */
export function targetOptions(command: Command): Command {
  return command
    .option('--base-url <url>', 'API base URL (or GUIDECTL_BASE_URL); credentials come from the environment')
    .option('--local-db <file>', 'database of the embedded local service (or GUIDECTL_LOCAL_DB)')
    .option('--parallelism <n>', 'most calls in flight at once', parseParallelism, 8)
    .option('--timeout <seconds>', 'time one attempt of a call may take (default: 15)', seconds('--timeout'))
    .option(
      '--settle-timeout <seconds>',
      'how much longer a write that timed out is waited for, since the server may still apply it (default: 120)',
      seconds('--settle-timeout'),
    )
    .option(
      '--read-retry <seconds>',
      'how long a read is retried after -1, 45011 or a network failure (default: 120)',
      seconds('--read-retry'),
    )
    .option('--verbose', 'log each HTTP exchange on stderr (access tokens redacted)', false);
}

/** The timing flags of `targetOptions`, as parsed. */
export interface TimingFlags {
  timeout?: number;
  settleTimeout?: number;
  readRetry?: number;
}

/** The client options the timing flags set (the client's defaults for those not given). */
export function timingOptions(
  flags: TimingFlags,
): Pick<TargetClientOptions, 'timeoutMs' | 'settleMs' | 'retry'> {
  const ms = (s: number): number => Math.round(s * 1000);
  return {
    ...(flags.timeout === undefined ? {} : { timeoutMs: ms(flags.timeout) }),
    ...(flags.settleTimeout === undefined ? {} : { settleMs: ms(flags.settleTimeout) }),
    ...(flags.readRetry === undefined ? {} : { retry: { readBudgetMs: ms(flags.readRetry) } }),
  };
}

function seconds(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^[0-9]+(\.[0-9]+)?$/.test(value.trim()) || !(n > 0) || n > 86_400) {
      throw new InvalidArgumentError(
        `${flag} takes a number of seconds from 0.001 to 86400, e.g. ${flag} 30.`,
      );
    }
    return n;
  };
}
