import { credentialVariables } from '../core/credential-variables.js';
import type {
  CredentialsState,
  EnvironmentTarget,
  EnvironmentTargetKind,
} from '../core/environment-target.js';
import type { DeclaredEnvironment } from '../core/environments.js';
import { ifDefined } from '../core/records.js';
import { DEFAULT_BASE_URL } from '../wire/operations.js';
import { blankCredentialsProblem } from './resolve.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The database file of an environment's embedded service, relative to the working directory. */
function environmentDbFile(name: string): string {
  return `.guidectl/${name}.db`;
}

/** Whether a variable is set to something (unset, empty and white space alike are not). */
function given(env: Env, name: string): boolean {
  return (env[name] ?? '').trim() !== '';
}

function credentialsState(env: Env, prefix: string): CredentialsState {
  const variables = credentialVariables(prefix);
  if (given(env, variables.accessToken)) return 'token';
  const appid = given(env, variables.appid);
  const secret = given(env, variables.secret);
  if (appid && secret) return 'app';
  return appid || secret ? 'incomplete' : 'none';
}

/** The variables that hold an environment's credentials, as docs/environments.md lists them. */
function credentialsVariables(prefix: string): readonly string[] {
  const { appid, secret, accessToken } = credentialVariables(prefix);
  return [appid, secret, accessToken];
}

function problemOf(
  environment: DeclaredEnvironment,
  env: Env,
  state: CredentialsState | undefined,
): string | undefined {
  const prefix = environment.credentialsPrefix;
  if (prefix === undefined) {
    return environment.baseUrl === undefined
      ? undefined
      : 'it has a base_url but no credentials: give it "credentials: PREFIX" and set PREFIX_APPID and PREFIX_SECRET, or PREFIX_ACCESS_TOKEN';
  }
  const blank = blankCredentialsProblem(env, credentialVariables(prefix));
  if (blank !== undefined) return blank;
  if (state === 'incomplete') {
    return `only one of ${prefix}_APPID and ${prefix}_SECRET is set; app credentials need both (or set ${prefix}_ACCESS_TOKEN)`;
  }
  if (state === 'token' || state === 'app') return undefined;
  const set = `set ${prefix}_APPID and ${prefix}_SECRET, or ${prefix}_ACCESS_TOKEN`;
  // "credentials:" names a real account: with none of its variables set, never the local database.
  return environment.baseUrl === undefined
    ? `it names credentials (${prefix}) but none is set: ${set} (an environment without "credentials:" and base_url is the local database .guidectl/${environment.name}.db)`
    : `it has a base_url but no credentials are set: ${set}`;
}

/**
 * The target of each environment, in the order given, from the files and which of the process
 * environment's variables are set: credentials set (`PREFIX_ACCESS_TOKEN`, or `PREFIX_APPID` and
 * `PREFIX_SECRET`) → the environment's `base_url`, else the WeChat API (and a `problem` when
 * they are not set, or one is empty); no `credentials` and no `base_url` → the embedded service
 * over `.guidectl/<name>.db`. Pure: reads only `env`.
 */
export function describeEnvironmentTargets(
  environments: readonly DeclaredEnvironment[],
  env: Env,
): EnvironmentTarget[] {
  return environments.map((environment) => {
    const prefix = environment.credentialsPrefix;
    const state = prefix === undefined ? undefined : credentialsState(env, prefix);
    const remote = environment.baseUrl !== undefined || prefix !== undefined;
    const target: EnvironmentTargetKind = remote
      ? {
          kind: 'remote',
          baseUrl: environment.baseUrl ?? DEFAULT_BASE_URL,
          wechat: environment.baseUrl === undefined,
        }
      : { kind: 'embedded', dbFile: environmentDbFile(environment.name) };
    const problem = problemOf(environment, env, state);
    return {
      environment,
      target,
      ...(prefix === undefined || state === undefined
        ? {}
        : { credentials: { prefix, variables: credentialsVariables(prefix), state } }),
      ...ifDefined('problem', problem),
    };
  });
}
