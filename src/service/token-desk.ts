import { randomBytes } from 'node:crypto';
import { ERRCODE } from '../wire/errcodes.js';
import { ApiError, invalidArgs } from './api-error.js';
import type { OpContext } from './context.js';
import { hashToken } from './credentials.js';
import { type Body, field, requireString } from './fields.js';

/** How long a replaced token keeps working, as the real API allows (5 minutes). */
const OVERLAP_SECONDS = 300;

/** A token request as read from the wire; the secret is checked by the caller (scrypt, off the loop). */
export interface TokenRequest {
  readonly appid: string;
  readonly secret: string;
  readonly forceRefresh: boolean;
}

function checkGrant(grantType: string): void {
  if (grantType !== 'client_credential') throw new ApiError(ERRCODE.invalidGrantType, 'invalid grant_type');
}

/**
 * `GET /cgi-bin/token?grant_type&appid&secret`, read as `stable_token` reads its body: a missing
 * parameter is 40101, an empty one 40097 (`secret=` must never reach the secret check).
 */
export function readTokenQuery(query: URLSearchParams): TokenRequest {
  const params: Body = Object.fromEntries(
    ['grant_type', 'appid', 'secret'].map((name) => [name, query.get(name)]),
  );
  const grantType = requireString(params, 'grant_type');
  const appid = requireString(params, 'appid');
  const secret = requireString(params, 'secret');
  checkGrant(grantType);
  return { appid, secret, forceRefresh: false };
}

/** `POST /cgi-bin/stable_token` `{grant_type, appid, secret, force_refresh?}`. */
export function readStableTokenBody(body: Body): TokenRequest {
  const grantType = requireString(body, 'grant_type');
  const appid = requireString(body, 'appid');
  const secret = requireString(body, 'secret');
  checkGrant(grantType);
  const force = field(body, 'force_refresh');
  if (force !== undefined && force !== null && typeof force !== 'boolean') {
    throw invalidArgs('force_refresh must be true or false');
  }
  return { appid, secret, forceRefresh: force === true };
}

export const INVALID_APPID = (): ApiError => new ApiError(ERRCODE.invalidAppid, 'invalid appid');
export const INVALID_SECRET = (): ApiError => new ApiError(ERRCODE.invalidSecret, 'invalid appsecret');

interface TokenAnswer {
  readonly access_token: string;
  readonly expires_in: number;
}

/**
 * Issues and checks the access tokens of one app (one appid). The tokens table holds only hashes,
 * each with the appid that got it; a token is valid only for that appid. As the stored hash cannot
 * be answered again, the current stable token is remembered in memory: after a restart,
 * `stable_token` answers a new token, and those issued before stay valid until they expire.
 */
export class TokenDesk {
  private stable: string | undefined;
  /** The last token checked and its hash: a client sends the same one call after call. */
  private lastChecked: { readonly token: string; readonly hash: string } | undefined;

  constructor(readonly appid: string) {}

  /** `GET /cgi-bin/token`: a new token each time; the previous one works 5 more minutes. */
  issueToken(ctx: OpContext): TokenAnswer {
    return this.issue(ctx, 'token', true);
  }

  /** `POST /cgi-bin/stable_token`: the same token until it nears expiry, or `force_refresh`. */
  issueStable(ctx: OpContext, forceRefresh: boolean): TokenAnswer {
    const remembered = this.stable;
    if (remembered !== undefined && !forceRefresh) {
      const row = ctx.store.get<{ expires_at: number; superseded: number }>(
        'SELECT expires_at, superseded FROM tokens WHERE token_hash = ? AND appid = ?',
        hashToken(remembered),
        this.appid,
      );
      if (row !== undefined && row.superseded === 0 && row.expires_at - ctx.now > OVERLAP_SECONDS) {
        return { access_token: remembered, expires_in: row.expires_at - ctx.now };
      }
    }
    // A token this process did not issue is not replaced (its holder may be another process).
    const answer = this.issue(ctx, 'stable', forceRefresh || remembered !== undefined);
    this.stable = answer.access_token;
    return answer;
  }

  private issue(ctx: OpContext, kind: 'token' | 'stable', supersede: boolean): TokenAnswer {
    if (supersede) {
      ctx.store.run(
        'UPDATE tokens SET superseded = 1, expires_at = MIN(expires_at, ?) WHERE kind = ? AND appid = ? AND superseded = 0',
        ctx.now + OVERLAP_SECONDS,
        kind,
        this.appid,
      );
    }
    ctx.store.run('DELETE FROM tokens WHERE expires_at < ?', ctx.now - 86_400);
    const token = randomBytes(48).toString('base64url');
    ctx.store.run(
      'INSERT INTO tokens (token_hash, appid, kind, issued_at, expires_at) VALUES (?, ?, ?, ?, ?)',
      hashToken(token),
      this.appid,
      kind,
      ctx.now,
      ctx.now + ctx.settings.tokenTtl,
    );
    return { access_token: token, expires_in: ctx.settings.tokenTtl };
  }

  /** Checks the `access_token` of a call: missing 41001, unknown 40001, replaced 40014, expired 42001. */
  check(ctx: OpContext, token: string | null): void {
    if (token === null || token === '')
      throw new ApiError(ERRCODE.accessTokenMissing, 'access_token missing');
    if (this.lastChecked?.token !== token) this.lastChecked = { token, hash: hashToken(token) };
    const row = ctx.store.get<{ expires_at: number; superseded: number }>(
      'SELECT expires_at, superseded FROM tokens WHERE token_hash = ? AND appid = ?',
      this.lastChecked.hash,
      this.appid,
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
}
