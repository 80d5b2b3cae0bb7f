import type { SourceRef } from './desired.js';

/** The longest environment name, in characters. */
export const ENVIRONMENT_NAME_MAX_CHARS = 64;
/** An environment's name: safe as a file name, since the embedded service's database is `.guidectl/<name>.db`. */
export const ENVIRONMENT_NAME = new RegExp(`^[A-Za-z][A-Za-z0-9_-]{0,${ENVIRONMENT_NAME_MAX_CHARS - 1}}$`);
/** The rule of {@link ENVIRONMENT_NAME} in words, for messages. */
export const ENVIRONMENT_NAME_RULE = `a name is a letter, then letters, digits, "_" or "-", at most ${ENVIRONMENT_NAME_MAX_CHARS} characters`;

/**
 * One environment declared under `environments:` in the desired-state files: a named account with
 * its target. It holds no secret: `credentialsPrefix` names the process environment variables
 * (`PREFIX_APPID` + `PREFIX_SECRET`, or `PREFIX_ACCESS_TOKEN`) that hold the credentials, which are
 * never written in the files.
 *
 * Invariants (guaranteed by `config/`): `name` matches {@link ENVIRONMENT_NAME}; `credentialsPrefix`, when
 * present, matches `^[A-Z](?:[A-Z0-9_]*[A-Z0-9])?$`; `baseUrl`, when present, is an http(s) URL
 * without user or password.
 */
export interface DeclaredEnvironment {
  readonly name: string;
  readonly baseUrl?: string;
  readonly credentialsPrefix?: string;
  /** Where the environment's name is written. */
  readonly source: SourceRef;
}
