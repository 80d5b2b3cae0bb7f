import { dirname, join, resolve } from 'node:path';
import type { ClientAuth } from '../client/index.js';
import type { DeclaredEnvironment } from '../core/environments.js';
import { UsageError } from '../core/errors.js';
import { displayPath } from '../core/paths.js';
import { DEFAULT_LOCAL_DB_PATH } from '../service/db-folder.js';
import { DEFAULT_BASE_URL } from '../wire/operations.js';
import type { Target, TargetFlags } from './resolve.js';

type Env = Readonly<Record<string, string | undefined>>;

function given(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The target of an environment the files declare (`--env NAME`): its credentials from
 * `PREFIX_ACCESS_TOKEN`, or `PREFIX_APPID` + `PREFIX_SECRET`, of its `credentials` prefix; its
 * `base_url`, else the WeChat API when it has credentials. With neither, the embedded service over
 * `.guidectl/<name>.db`, one database per environment. The files say where each environment is,
 * so the flags and variables that choose a target otherwise (`--base-url`, `--local-db`,
 * `GUIDECTL_BASE_URL`, `WECHAT_*`) are not used, and the flags are refused.
 */
export function resolveEnvironmentTarget(
  env: Env,
  environment: DeclaredEnvironment,
  flags: TargetFlags,
  cwd: string,
): Target {
  if (flags.baseUrl !== undefined || flags.localDb !== undefined) {
    throw new UsageError(
      `${flags.baseUrl !== undefined ? '--base-url' : '--local-db'} cannot be given with --env: environment ${environment.name} has its target in the files`,
    );
  }
  const prefix = environment.credentialsPrefix;
  const auth = prefix === undefined ? undefined : credentialsOf(env, prefix);
  if (auth !== undefined && prefix !== undefined) {
    return {
      kind: 'remote',
      baseUrl: environment.baseUrl?.replace(/\/+$/, '') ?? DEFAULT_BASE_URL,
      auth: auth.auth,
      authSource: auth.source,
    };
  }
  if (environment.baseUrl !== undefined) {
    const wanted =
      prefix === undefined
        ? `environment ${environment.name} has no "credentials:" prefix in the files`
        : `set ${prefix}_ACCESS_TOKEN, or ${prefix}_APPID and ${prefix}_SECRET, in the environment`;
    throw new UsageError(
      `environment ${environment.name} has base_url ${environment.baseUrl} but no credentials: ${wanted}`,
    );
  }
  const dbFile = resolve(cwd, join(dirname(DEFAULT_LOCAL_DB_PATH), `${environment.name}.db`));
  // Not "defaulted": the files chose it (no "no target given" notice), in the default folder.
  return { kind: 'embedded', dbFile, defaulted: false };
}

function credentialsOf(env: Env, prefix: string): { auth: ClientAuth; source: string } | undefined {
  const token = given(env, `${prefix}_ACCESS_TOKEN`);
  if (token !== undefined) return { auth: { accessToken: token }, source: `${prefix}_ACCESS_TOKEN` };
  const appid = given(env, `${prefix}_APPID`);
  const secret = given(env, `${prefix}_SECRET`);
  if ((appid === undefined) !== (secret === undefined)) {
    const [set, missing] =
      appid === undefined ? [`${prefix}_SECRET`, `${prefix}_APPID`] : [`${prefix}_APPID`, `${prefix}_SECRET`];
    throw new UsageError(`${set} is set but ${missing} is not; app credentials need both`);
  }
  if (appid === undefined || secret === undefined) return undefined;
  return { auth: { appid, secret }, source: `${prefix}_APPID/${prefix}_SECRET` };
}

/** The target in words, never a secret: `https://… (STAGING_APPID/STAGING_SECRET)` or `local database .guidectl/staging.db`. */
export function describeTarget(target: Target, cwd: string): string {
  return target.kind === 'remote'
    ? `${target.baseUrl} (${target.authSource})`
    : `local database ${displayPath(target.dbFile, cwd)}`;
}
