import { resolve } from 'node:path';
import type { ClientAuth } from '../client/index.js';
import { credentialsSource, credentialVariables } from '../core/credential-variables.js';
import type { DeclaredEnvironment } from '../core/environments.js';
import { UsageError } from '../core/errors.js';
import { displayPath } from '../core/paths.js';
import { shellWord } from '../core/shell-word.js';
import { describeEnvironmentTargets } from './describe-targets.js';
import { checkBaseUrl, inCi, type Target, type TargetFlags } from './resolve.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The target of an environment the files declare (`--env NAME`), as `describeEnvironmentTargets`
 * (what `guidectl envs` lists) says it is from here: its credentials from `PREFIX_ACCESS_TOKEN`,
 * or `PREFIX_APPID` + `PREFIX_SECRET`, of its `credentials` prefix; its `base_url`, else the WeChat
 * API; with neither `credentials` nor `base_url`, the embedded service over `.guidectl/<name>.db`, one
 * database per environment. An environment that cannot be planned from here (its `problem`) is a
 * UsageError. The files say where each environment is, so the flags and variables that choose a
 * target otherwise (`--base-url`, `--local-db`, `GUIDECTL_*`, `WECHAT_*`) are not used, and the
 * flags are refused: but for `--local-db` naming an embedded environment's own database, which
 * CI (`inCi`) asks for, as it does without environments.
 */
export function resolveEnvironmentTarget(
  env: Env,
  environment: DeclaredEnvironment,
  flags: TargetFlags,
  cwd: string,
): Target {
  const { name } = environment;
  const fromFiles = `cannot be given with --env: environment ${name} has its target in the files`;
  if (flags.baseUrl !== undefined) throw new UsageError(`--base-url ${fromFiles}`);
  const [described] = describeEnvironmentTargets([environment], env);
  if (described === undefined) throw new Error('describeEnvironmentTargets gives one target per environment');
  if (flags.localDb !== undefined && described.target.kind !== 'embedded')
    throw new UsageError(`--local-db ${fromFiles}`);
  if (described.problem !== undefined) {
    throw new UsageError(`environment ${name} cannot be used from here: ${described.problem}`);
  }
  const { target, credentials } = described;
  if (target.kind === 'embedded') {
    const dbFile = resolve(cwd, target.dbFile);
    // `--local-db` may only name the environment's own database: it says the local service is
    // meant, which CI asks for.
    const named = flags.localDb !== undefined && resolve(cwd, flags.localDb) === dbFile;
    if (flags.localDb !== undefined && !named)
      throw new UsageError(
        `--local-db ${fromFiles}, the local database ${target.dbFile}; --local-db may only name that one`,
      );
    if (!named && inCi(env))
      throw new UsageError(
        `environment ${name} has neither credentials nor base_url, so it is the embedded local service over ` +
          `${target.dbFile}, and CI is set: an account no one else sees, so a green job would not mean a real one. ` +
          'Give it "credentials: PREFIX" (and set PREFIX_APPID and PREFIX_SECRET, or PREFIX_ACCESS_TOKEN) or a base_url; ' +
          `or, for the local service on purpose, name its database: --env ${name} --local-db ${shellWord(target.dbFile)}`,
      );
    // Not "defaulted": the files chose it (no "no target given" notice), in the default folder.
    return {
      kind: 'embedded',
      dbFile,
      defaulted: false,
      environment: name,
      ...(named ? { namedBy: '--local-db' } : {}),
    };
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
