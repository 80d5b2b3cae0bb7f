import { resolve } from 'node:path';
import type { ClientAuth } from '../client/index.js';
import { credentialsSource, credentialVariables } from '../core/credential-variables.js';
import type { DeclaredEnvironment } from '../core/environments.js';
import { UsageError } from '../core/errors.js';
import { displayPath } from '../core/paths.js';
import { describeEnvironmentTargets } from './environment-target.js';
import { checkBaseUrl, type Target, type TargetFlags } from './resolve.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The target of an environment the files declare (`--env NAME`), as `describeEnvironmentTargets`
 * (what `guidectl envs` lists) says it is from here: its credentials from `PREFIX_ACCESS_TOKEN`,
 * or `PREFIX_APPID` + `PREFIX_SECRET`, of its `credentials` prefix; its `base_url`, else the WeChat
 * API; with neither `credentials` nor `base_url`, the embedded service over `.guidectl/<name>.db`, one
 * database per environment. An environment that cannot be planned from here (its `problem`) is a
 * UsageError. The files say where each environment is, so the flags and variables that choose a
 * target otherwise (`--base-url`, `--local-db`, `GUIDECTL_*`, `WECHAT_*`) are not used, and the
 * flags are refused.
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
  const [described] = describeEnvironmentTargets([environment], env);
  if (described === undefined) throw new Error('describeEnvironmentTargets gives one target per environment');
  if (described.problem !== undefined) {
    throw new UsageError(`environment ${environment.name} cannot be used from here: ${described.problem}`);
  }
  const { target, credentials } = described;
  if (target.kind === 'embedded') {
    // Not "defaulted": the files chose it (no "no target given" notice), in the default folder.
    return { kind: 'embedded', dbFile: resolve(cwd, target.dbFile), defaulted: false };
  }
  const variables = credentialVariables(credentials?.prefix ?? '');
  const byToken = credentials?.state === 'token';
  const auth: ClientAuth = byToken
    ? { accessToken: env[variables.accessToken] ?? '' }
    : { appid: env[variables.appid] ?? '', secret: env[variables.secret] ?? '' };
  return {
    kind: 'remote',
    // The --base-url rules (no query or fragment: guidectl adds the access token there).
    baseUrl: checkBaseUrl(target.baseUrl, `environment ${environment.name}'s base_url`),
    auth,
    authSource: credentialsSource(variables, byToken),
    variables,
  };
}

/** The target in words, never a secret: `https://… (STAGING_APPID/STAGING_SECRET)` or `local database .guidectl/staging.db`. */
export function describeTarget(target: Target, cwd: string): string {
  return target.kind === 'remote'
    ? `${target.baseUrl} (${target.authSource})`
    : `local database ${displayPath(target.dbFile, cwd)}`;
}
