import {
  HEAD_IMAGE_URL_MAX_CHARS,
  isHttpUrl,
  NICKNAME_MAX_CHARS,
  OPENID,
  WECHAT_ID,
} from '../../core/guide-rules.js';
import { ERRCODE } from '../../wire/errcodes.js';
import { ApiError, invalidArgs, missingParameter } from '../api-error.js';
import { MAX_PAGE_SIZE, type OpContext } from '../context.js';
import {
  type Body,
  charLength,
  field,
  isAbsent,
  optionalString,
  requireGuideKey,
  requireInt,
  requireString,
} from '../fields.js';
import { findGuide, guideIdentity, guideStatus, requireGuide } from './guide-rows.js';

function checkNickname(nickname: string): string {
  if (charLength(nickname) > NICKNAME_MAX_CHARS) {
    throw new ApiError(
      ERRCODE.nicknameTooLong,
      `guide_nickname is ${charLength(nickname)} characters; the limit is ${NICKNAME_MAX_CHARS}`,
    );
  }
  return nickname;
}

function checkHeadImageUrl(url: string): string {
  if (charLength(url) > HEAD_IMAGE_URL_MAX_CHARS) {
    throw invalidArgs(`guide_headimgurl is longer than ${HEAD_IMAGE_URL_MAX_CHARS} characters`);
  }
  if (!isHttpUrl(url)) throw invalidArgs('guide_headimgurl must be an http(s) URL');
  return url;
}

/** A required text where "" counts as missing, as the console does for nickname and image. */
function requireNonEmpty(body: Body, name: string): string {
  const value = field(body, name);
  if (isAbsent(value) || value === '') throw missingParameter(name);
  return requireString(body, name);
}

export function addguideacct(ctx: OpContext, body: Body): object {
  const key = requireGuideKey(body);
  const headimgurl = checkHeadImageUrl(requireNonEmpty(body, 'guide_headimgurl'));
  const nickname = checkNickname(requireNonEmpty(body, 'guide_nickname'));
  if ('account' in key && !WECHAT_ID.test(key.account)) {
    throw new ApiError(
      ERRCODE.invalidWechatId,
      `invalid WeChat ID: guide_account ${JSON.stringify(key.account)}`,
    );
  }
  if ('openid' in key && !OPENID.test(key.openid)) {
    throw new ApiError(ERRCODE.invalidOpenid, 'invalid openid: guide_openid');
  }
  const status = ctx.settings.invites === 'auto' ? 2 : 1;
  const existing = findGuide(ctx, key);
  if (existing !== undefined) {
    const current = guideStatus(ctx, existing);
    // A guide who rejected or let the invitation expire can be invited again.
    if (current !== 3 && current !== 4) throw new ApiError(ERRCODE.alreadyGuide, 'already a guide');
    ctx.store.run(
      'UPDATE guides SET nickname = ?, headimgurl = ?, status = ?, create_time = ?, update_time = ? WHERE id = ?',
      nickname,
      headimgurl,
      status,
      ctx.now,
      ctx.now,
      existing.id,
    );
    return {};
  }
  const count = ctx.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM guides')?.n ?? 0;
  if (count >= ctx.settings.maxGuides) {
    throw new ApiError(ERRCODE.guideLimit, `guide count limit reached (${ctx.settings.maxGuides})`);
  }
  ctx.store.run(
    'INSERT INTO guides (account, openid, nickname, headimgurl, status, create_time, update_time) VALUES (?, ?, ?, ?, ?, ?, ?)',
    'account' in key ? key.account : null,
    'openid' in key ? key.openid : null,
    nickname,
    headimgurl,
    status,
    ctx.now,
    ctx.now,
  );
  return {};
}

export function updateguideacct(ctx: OpContext, body: Body): object {
  const guide = requireGuide(ctx, requireGuideKey(body));
  const headimgurl = optionalString(body, 'guide_headimgurl');
  const nickname = optionalString(body, 'guide_nickname');
  if (headimgurl === undefined && nickname === undefined) {
    throw missingParameter('guide_headimgurl or guide_nickname');
  }
  ctx.store.run(
    'UPDATE guides SET nickname = ?, headimgurl = ?, update_time = ? WHERE id = ?',
    nickname === undefined ? guide.nickname : checkNickname(nickname),
    headimgurl === undefined ? guide.headimgurl : checkHeadImageUrl(headimgurl),
    ctx.now,
    guide.id,
  );
  return {};
}

export function getguideacct(ctx: OpContext, body: Body): object {
  const guide = requireGuide(ctx, requireGuideKey(body));
  return {
    ...guideIdentity(guide),
    guide_nickname: guide.nickname,
    guide_headimgurl: guide.headimgurl,
    status: guideStatus(ctx, guide),
  };
}

/** Deleting a guide removes its configuration, memberships, bindings, QR codes and tasks. */
export function delguideacct(ctx: OpContext, body: Body): object {
  const guide = requireGuide(ctx, requireGuideKey(body));
  ctx.store.run('DELETE FROM auto_replies WHERE owner = ?', guide.id);
  ctx.store.run('DELETE FROM guides WHERE id = ?', guide.id);
  return {};
}

/** Reads `page`/`num` (both required); `num` above the largest page is clamped to it. */
export function readPage(body: Body): { offset: number; limit: number } {
  const page = requireInt(body, 'page', { min: 0 });
  const num = requireInt(body, 'num', { min: 1 });
  const limit = Math.min(num, MAX_PAGE_SIZE);
  return { offset: page * limit, limit };
}

export function getguideacctlist(ctx: OpContext, body: Body): object {
  const { offset, limit } = readPage(body);
  const total = ctx.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM guides')?.n ?? 0;
  // The hot read of a reconciler: rows as arrays and answers built without spreads.
  const rows = ctx.store.rawRows<[string | null, string | null, string, string]>(
    'SELECT account, openid, headimgurl, nickname FROM guides ORDER BY id LIMIT ? OFFSET ?',
    limit,
    offset,
  );
  const list = rows.map(([account, openid, headimgurl, nickname]) =>
    account !== null
      ? { guide_account: account, guide_headimgurl: headimgurl, guide_nickname: nickname }
      : { guide_openid: openid ?? '', guide_headimgurl: headimgurl, guide_nickname: nickname },
  );
  return { total_num: total, list };
}
