/**
 * The names of the variables the credentials were read from, for the hints of errors that ask to
 * change them (never their values): `WECHAT_*` unless an environment's prefix (`STAGING_*`).
 */
export interface CredentialVariables {
  readonly accessToken: string;
  readonly appid: string;
  readonly secret: string;
}

/** The variables of `PREFIX_ACCESS_TOKEN`, `PREFIX_APPID` and `PREFIX_SECRET`. */
export function credentialVariables(prefix: string): CredentialVariables {
  return { accessToken: `${prefix}_ACCESS_TOKEN`, appid: `${prefix}_APPID`, secret: `${prefix}_SECRET` };
}

/** The variables guidectl reads without an environment. */
export const WECHAT_VARIABLES: CredentialVariables = credentialVariables('WECHAT');

/** Which of `variables` the credentials came from, for messages: `PREFIX_ACCESS_TOKEN` or `PREFIX_APPID/PREFIX_SECRET`. */
export function credentialsSource(variables: CredentialVariables, byToken: boolean): string {
  return byToken ? variables.accessToken : `${variables.appid}/${variables.secret}`;
}
