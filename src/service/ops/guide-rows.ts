import { ERRCODE } from '../../wire/errcodes.js';
import { ApiError } from '../api-error.js';
import { INVITATION_TTL_SECONDS, type OpContext } from '../context.js';
import type { GuideKey } from '../fields.js';

/** A guide as stored. Exactly one of `account`/`openid` is set: the key it was added with. */
export interface GuideRow {
  id: number;
  account: string | null;
  openid: string | null;
  nickname: string;
  headimgurl: string;
  status: number;
  create_time: number;
  update_time: number;
}

export function findGuide(ctx: OpContext, key: GuideKey): GuideRow | undefined {
  return 'account' in key
    ? ctx.store.get<GuideRow>('SELECT * FROM guides WHERE account = ?', key.account)
    : ctx.store.get<GuideRow>('SELECT * FROM guides WHERE openid = ?', key.openid);
}

/** The guide named by the request, or 9300804. */
export function requireGuide(ctx: OpContext, key: GuideKey): GuideRow {
  const row = findGuide(ctx, key);
  if (row === undefined) {
    const name = 'account' in key ? `guide_account ${key.account}` : `guide_openid ${key.openid}`;
    throw new ApiError(ERRCODE.guideNotFound, `guide does not exist: ${name}`);
  }
  return row;
}

/** The identity keys an answer names: the one the guide was added with, and only that one. */
export function guideIdentity(row: GuideRow): { guide_account: string } | { guide_openid: string } {
  return row.account !== null ? { guide_account: row.account } : { guide_openid: row.openid ?? '' };
}

/** Status as of now: a pending invitation past its lifetime has expired (4). */
export function guideStatus(ctx: OpContext, row: GuideRow): number {
  if (row.status === 1 && ctx.now >= row.create_time + INVITATION_TTL_SECONDS) return 4;
  return row.status;
}
