import { resolve } from 'node:path';
import { parseBaseUrl } from '../client/base-url.js';
// Types only: the client (undici) is loaded by `openTarget`, so that resolving a target stays cheap.
import type { ClientAuth, ProxySettings } from '../client/index.js';
import {
  type CredentialVariables,
  credentialsSource,
  WECHAT_VARIABLES,
} from '../core/credential-variables.js';
import { UsageError } from '../core/errors.js';
import { ifDefined } from '../core/records.js';
import { DEFAULT_LOCAL_DB_PATH } from '../service/db-folder.js';
import { DEFAULT_BASE_URL } from '../wire/operations.js';

/** The target settings given as flags (credentials never are: they come from the environment). */
export interface TargetFlags {
  readonly baseUrl?: string;
  readonly localDb?: string;
}

/**
 * Where the commands send their calls, as docs/targets.md promises users:
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
      /**
       * Which variables hold the credentials, for messages: `WECHAT_ACCESS_TOKEN`,
       * `WECHAT_APPID/WECHAT_SECRET`, or an environment's `PREFIX_…` (never their values).
       */
      readonly authSource: string;
      /** The variables of the credentials, one by one, for the client's hints. */
      readonly variables: CredentialVariables;
    }
  | {
      readonly kind: 'embedded';
      /** Absolute path, or `:memory:`. */
      readonly dbFile: string;
      /** True when neither a flag nor the environment named the database. */
      readonly defaulted: boolean;
      /** What named the database, when something did (for messages). */
      readonly namedBy?: '--local-db' | 'GUIDECTL_LOCAL_DB';
      /** The environment whose database this is (`--env NAME`, `--all-envs`), when one is. */
      readonly environment?: string;
    };

type Env = Readonly<Record<string, string | undefined>>;

/** A variable's value, with unset and empty alike treated as not given. */
export function given(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Why credentials variables cannot be read, when one of them is set but empty or only white space
 * (undefined otherwise): an unset CI secret expands to "", and read as not given it would switch
 * the target silently (to the local database, or from a token to the app credentials).
 */
export function blankCredentialsProblem(env: Env, variables: CredentialVariables): string | undefined {
  for (const name of [variables.accessToken, variables.appid, variables.secret]) {
    const value = env[name];
    if (value !== undefined && value.trim() === '') {
      const what = value === '' ? 'empty' : 'only white space';
      return `${name} is set but ${what} (an unset CI secret expands to ""): give it its value, or unset it`;
    }
  }
  return undefined;
}

/** What is wrong with a text that is not a URL, in words that do not quote it. */
function whyNotAUrl(value: string): string {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(value)) return 'it does not start with http:// or https://';
  if (/\s/.test(value)) return 'it holds white space';
  return 'its host is missing or malformed';
}

/**
 * A base URL as the client takes it (no trailing `/`); a UsageError naming `source` when it is not
 * one. `quoted`: whether the message may show the value; not for a variable, which may hold a
 * secret put there by mistake (CI variables swapped), only for what the user typed.
 */
export function checkBaseUrl(value: string, source: string, quoted = true): string {
  const parsed = parseBaseUrl(value);
  if ('url' in parsed) return value.replace(/\/+$/, '');
  switch (parsed.problem.kind) {
    case 'not-a-url':
      throw new UsageError(
        quoted
          ? `${source} ${JSON.stringify(value)} is not a URL; give e.g. https://api.weixin.qq.com`
          : `${source} is not a URL: ${whyNotAUrl(value)} (the value is not shown, in case it is a secret); give e.g. https://api.weixin.qq.com`,
      );
    case 'not-http':
      throw new UsageError(`${source} must be an http:// or https:// URL, not ${parsed.problem.protocol}`);
    case 'query-or-fragment':
      throw new UsageError(
        `${source} must not hold a query or fragment (the access token is added by guidectl)`,
      );
    case 'user-info':
      throw new UsageError(
        `${source} must not hold a user or password (the value is not shown, in case it is a secret); credentials go in the process environment`,
      );
    default: {
      const unreachable: never = parsed.problem;
      return unreachable;
    }
  }
}

/**
 * Whether guidectl runs in CI: `CI` set to a value other than empty or `false` (in any case), as
 * GitHub Actions, GitLab, CircleCI, Buildkite and Jenkins set it.
 */
export function inCi(env: Env): boolean {
  const value = (env['CI'] ?? '').trim();
  return value !== '' && value.toLowerCase() !== 'false';
}

// A CI job whose credentials were forgotten would apply to a throwaway local database and pass.
const NO_TARGET_IN_CI =
  `no target is given, and CI is set: the embedded local service over ${DEFAULT_LOCAL_DB_PATH} is an ` +
  'account no one else sees, so a green job would not mean the real one. Set WECHAT_APPID and ' +
  'WECHAT_SECRET, or WECHAT_ACCESS_TOKEN (and --base-url or GUIDECTL_BASE_URL for another API than ' +
  `WeChat's); or, for the local service on purpose, name its database: --local-db ${DEFAULT_LOCAL_DB_PATH} ` +
  '(or GUIDECTL_LOCAL_DB)';

/**
 * Chooses the target from the flags and the environment; throws `UsageError` on a contradiction,
 * and in CI (`inCi`) when nothing is given: the embedded service must then be named.
 */
export function resolveTarget(env: Env, flags: TargetFlags, cwd: string): Target {
  const blank = blankCredentialsProblem(env, WECHAT_VARIABLES);
  if (blank !== undefined) throw new UsageError(blank);
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
  // An empty URL is a variable that expanded to nothing (`--base-url "$STAGING_URL"` in CI with it
  // unset): read as not given, it would send these credentials, and any writes, to WeChat itself.
  if (flags.baseUrl === '')
    throw new UsageError(
      `--base-url is empty; give the URL (a guidectl serve for staging, say), or leave the flag out for ${DEFAULT_BASE_URL}`,
    );
  if (auth !== undefined && env['GUIDECTL_BASE_URL'] === '')
    throw new UsageError(
      `GUIDECTL_BASE_URL is set but empty; give the URL, or unset it for ${DEFAULT_BASE_URL}`,
    );
  const flagUrl = flags.baseUrl;
  const envUrl = given(env, 'GUIDECTL_BASE_URL');
  const baseUrl =
    flagUrl !== undefined
      ? checkBaseUrl(flagUrl, '--base-url')
      : envUrl !== undefined
        ? checkBaseUrl(envUrl, 'GUIDECTL_BASE_URL', false)
        : undefined;

  // An empty GUIDECTL_LOCAL_DB is unset, as every variable here; an empty flag is a slip (a
  // variable that expanded to nothing), not the working folder that it would resolve to.
  if (flags.localDb === '')
    throw new UsageError(
      '--local-db takes a database file, e.g. --local-db .guidectl/staging.db; it is empty',
    );
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
      authSource: credentialsSource(WECHAT_VARIABLES, token !== undefined),
      variables: WECHAT_VARIABLES,
    };
  }
  if (baseUrl !== undefined) {
    throw new UsageError(
      `${flagUrl !== undefined ? '--base-url' : 'GUIDECTL_BASE_URL'} is given but no credentials are: set ` +
        'WECHAT_ACCESS_TOKEN, or WECHAT_APPID and WECHAT_SECRET, in the environment',
    );
  }
  const named = flags.localDb ?? given(env, 'GUIDECTL_LOCAL_DB');
  if (named === undefined && inCi(env)) throw new UsageError(NO_TARGET_IN_CI);
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
    ...ifDefined('httpsProxy', httpsProxy),
    ...ifDefined('httpProxy', httpProxy),
    ...ifDefined('noProxy', noProxy),
  };
}
