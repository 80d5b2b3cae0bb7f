import { randomBytes } from 'node:crypto';
import { ERRCODE } from '../wire/errcodes.js';
import { ApiError, invalidArgs, missingParameter } from './api-error.js';
import type { OpContext } from './context.js';
import { type Body, field, requireString } from './fields.js';

/** The service's app credentials: the appid and secret that token requests must present. */
export interface AppCredentials {
  readonly appid: string;
  readonly secret: string;
}

/** How long a replaced token keeps working, as the real API allows (5 minutes). */
const OVERLAP_SECONDS = 300;

export function generateCredentials(): AppCredentials {
  return { appid: `wx${randomBytes(8).toString('hex')}`, secret: randomBytes(16).toString('hex') };
}

function checkCredentials(app: AppCredentials, grantType: string, appid: string, secret: string): void {
  if (grantType !== 'client_credential') throw new ApiError(ERRCODE.invalidGrantType, 'invalid grant_type');
  if (appid !== app.appid) throw new ApiError(ERRCODE.invalidAppid, 'invalid appid');
  if (secret !== app.secret) throw new ApiError(ERRCODE.invalidSecret, 'invalid appsecret');
}

function issue(ctx: OpContext, kind: 'token' | 'stable'): { access_token: string; expires_in: number } {
  ctx.store.run(
    'UPDATE tokens SET superseded = 1, expires_at = MIN(expires_at, ?) WHERE kind = ? AND superseded = 0',
    ctx.now + OVERLAP_SECONDS,
    kind,
  );
  ctx.store.run('DELETE FROM tokens WHERE expires_at < ?', ctx.now - 86_400);
  const token = randomBytes(48).toString('base64url');
  ctx.store.run(
    'INSERT INTO tokens (token, kind, issued_at, expires_at) VALUES (?, ?, ?, ?)',
    token,
    kind,
    ctx.now,
    ctx.now + ctx.settings.tokenTtl,
  );
  return { access_token: token, expires_in: ctx.settings.tokenTtl };
}

/** `GET /cgi-bin/token`: a new token each time; the previous one works 5 more minutes. */
export function getToken(ctx: OpContext, app: AppCredentials, query: URLSearchParams): object {
  const grantType = query.get('grant_type');
  const appid = query.get('appid');
  const secret = query.get('secret');
  if (grantType === null) throw missingParameter('grant_type');
  if (appid === null) throw missingParameter('appid');
  if (secret === null) throw missingParameter('secret');
  checkCredentials(app, grantType, appid, secret);
  return issue(ctx, 'token');
}

/**
 * `POST /cgi-bin/stable_token`: the same token until it nears expiry (or `force_refresh`), kept
 * apart from `/cgi-bin/token`.
 */
export function getStableToken(ctx: OpContext, app: AppCredentials, body: Body): object {
  checkCredentials(
    app,
    requireString(body, 'grant_type'),
    requireString(body, 'appid'),
    requireString(body, 'secret'),
  );
  const force = field(body, 'force_refresh');
  if (force !== undefined && force !== null && typeof force !== 'boolean') {
    throw invalidArgs('force_refresh must be true or false');
  }
  if (force !== true) {
    const current = ctx.store.get<{ token: string; expires_at: number }>(
      "SELECT token, expires_at FROM tokens WHERE kind = 'stable' AND superseded = 0 ORDER BY issued_at DESC LIMIT 1",
    );
    if (current !== undefined && current.expires_at - ctx.now > OVERLAP_SECONDS) {
      return { access_token: current.token, expires_in: current.expires_at - ctx.now };
    }
  }
  return issue(ctx, 'stable');
}

/** Checks the `access_token` of a call: missing 41001, unknown 40001, replaced 40014, expired 42001. */
export function checkAccessToken(ctx: OpContext, token: string | null): void {
  if (token === null || token === '') throw new ApiError(ERRCODE.accessTokenMissing, 'access_token missing');
  const row = ctx.store.get<{ expires_at: number; superseded: number }>(
    'SELECT expires_at, superseded FROM tokens WHERE token = ?',
    token,
  );
  if (row === undefined)
    throw new ApiError(
      ERRCODE.invalidCredential,
      'invalid credential, access_token is invalid or not latest',
    );
  if (ctx.now >= row.expires_at) {
    if (row.superseded === 1)
      throw new ApiError(ERRCODE.invalidAccessToken, 'access_token is not the latest');
    throw new ApiError(ERRCODE.accessTokenExpired, 'access_token expired');
  }
}
