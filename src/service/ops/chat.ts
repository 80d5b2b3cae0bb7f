import { randomBytes } from 'node:crypto';
import { WECHAT_ID } from '../../core/guide-rules.js';
import { ERRCODE } from '../../wire/errcodes.js';
import { CHAT_WINDOW_SECONDS } from '../../wire/messages.js';
import { ApiError } from '../api-error.js';
import type { OpContext } from '../context.js';
import {
  type Body,
  charLength,
  optionalInt,
  optionalString,
  requireGuideKey,
  requireString,
} from '../fields.js';
import { checkMiniProgram } from './auto-replies.js';
import { type GuideRow, guideIdentity, guideStatus, requireGuide } from './guide-rows.js';
import { readPage } from './guides.js';

/** A non-follower who scanned a guide's QR code is bound if they follow within this time. */
export const SCAN_FOLLOW_WINDOW_SECONDS = 180;
/** After pushshowwxapathmenu the user may copy page paths of the mini program for this long. */
export const WXA_MENU_SECONDS = 60 * 86_400;
export const QRCODE_INFO_MAX_CHARS = 128;
export const QRCODE_URL_PREFIX = 'https://mp.weixin.qq.com/guide/qrcode?ticket=';

export function getguidebuyerchatrecord(ctx: OpContext, body: Body): object {
  const guide = requireGuide(ctx, requireGuideKey(body));
  const customer = optionalString(body, 'openid');
  const begin = optionalInt(body, 'begin_time', { min: 0 }) ?? 0;
  const end = optionalInt(body, 'end_time', { min: 0 }) ?? 0;
  const { offset, limit } = readPage(body);
  // The window applies only when both ends are given (non-zero); it never reaches past 30 days.
  const oldest = ctx.now - CHAT_WINDOW_SECONDS;
  const from = begin !== 0 && end !== 0 ? Math.max(begin, oldest) : oldest;
  const to = begin !== 0 && end !== 0 ? Math.min(end, ctx.now) : ctx.now;
  const where = `guide_id = ? AND create_time BETWEEN ? AND ?${customer === undefined ? '' : ' AND openid = ?'}`;
  const params = customer === undefined ? [guide.id, from, to] : [guide.id, from, to, customer];
  const total = ctx.store.get<{ n: number }>(
    `SELECT COUNT(*) AS n FROM chat_messages WHERE ${where}`,
    ...params,
  );
  const rows = ctx.store.all<{
    openid: string;
    create_time: number;
    content: string;
    content_type: number;
    direction: number;
  }>(
    `SELECT openid, create_time, content, content_type, direction FROM chat_messages WHERE ${where}
     ORDER BY create_time, seq LIMIT ? OFFSET ?`,
    ...params,
    limit,
    offset,
  );
  return {
    total_num: total?.n ?? 0,
    msg_list: rows.map((m) => ({
      ...guideIdentity(guide),
      openid: m.openid,
      create_time: m.create_time,
      content: m.content,
      content_type: m.content_type,
      direction: m.direction,
    })),
  };
}

export function guidecreateqrcode(ctx: OpContext, body: Body): object {
  const guide = requireGuide(ctx, requireGuideKey(body));
  const info = optionalString(body, 'qrcode_info', { allowEmpty: true });
  if (info !== undefined && charLength(info) > QRCODE_INFO_MAX_CHARS) {
    throw new ApiError(
      ERRCODE.invalidArgs,
      `invalid args: qrcode_info is ${charLength(info)} characters; the limit is ${QRCODE_INFO_MAX_CHARS}`,
    );
  }
  const ticket = randomBytes(18).toString('base64url');
  ctx.store.run(
    'INSERT INTO qrcodes (ticket, guide_id, qrcode_info, create_time) VALUES (?, ?, ?, ?)',
    ticket,
    guide.id,
    info ?? null,
    ctx.now,
  );
  return { qrcode_url: `${QRCODE_URL_PREFIX}${ticket}` };
}

export function pushshowwxapathmenu(ctx: OpContext, body: Body): object {
  const appid = checkMiniProgram(ctx, 'wxa_appid', body['wxa_appid'], 'menu');
  const user = requireString(body, 'wx_username');
  if (!WECHAT_ID.test(user)) throw new ApiError(ERRCODE.invalidWechatId, 'invalid WeChat ID: wx_username');
  ctx.store.run(
    `INSERT INTO wxa_menus (wxa_appid, wx_username, expires_at) VALUES (?, ?, ?)
     ON CONFLICT (wxa_appid, wx_username) DO UPDATE SET expires_at = excluded.expires_at`,
    appid,
    user,
    ctx.now + WXA_MENU_SECONDS,
  );
  return {};
}

/** Records an event as WeChat would push it to the account's server. */
export function recordEvent(ctx: OpContext, event: Record<string, unknown>): void {
  ctx.store.run(
    'INSERT INTO events (create_time, payload) VALUES (?, ?)',
    ctx.now,
    JSON.stringify({ ...event, create_time: ctx.now }),
  );
}

function scanEvent(
  ctx: OpContext,
  openid: string,
  guide: GuideRow | undefined,
  info: string | null,
  action: number,
): object {
  const event = {
    event: 'guide_qrcode_scan_event',
    openid,
    ...(guide === undefined ? {} : guideIdentity(guide)),
    qrcode_info: info ?? '',
    action,
  };
  recordEvent(ctx, event);
  return event;
}

/** Binds the customer to the guide unless bound already; returns the scan event's action. */
function bind(ctx: OpContext, openid: string, guide: GuideRow): 2 | 3 | 4 {
  const bound = ctx.store.get<{ guide_id: number }>('SELECT guide_id FROM bindings WHERE openid = ?', openid);
  if (bound !== undefined) return bound.guide_id === guide.id ? 3 : 4;
  ctx.store.run(
    'INSERT INTO bindings (openid, guide_id, bound_at) VALUES (?, ?, ?)',
    openid,
    guide.id,
    ctx.now,
  );
  return 2;
}

/**
 * A customer scans a guide's QR code. A follower is bound at once; a non-follower is bound if
 * they follow within 3 minutes (see `follow`). The answer is the scan event, or a pending note.
 */
export function scanQrcode(ctx: OpContext, openid: string, qrcodeUrl: string): object {
  const ticket = qrcodeUrl.startsWith(QRCODE_URL_PREFIX)
    ? qrcodeUrl.slice(QRCODE_URL_PREFIX.length)
    : qrcodeUrl;
  const code = ctx.store.get<{ guide_id: number; qrcode_info: string | null }>(
    'SELECT guide_id, qrcode_info FROM qrcodes WHERE ticket = ?',
    ticket,
  );
  const guide =
    code === undefined
      ? undefined
      : ctx.store.get<GuideRow>('SELECT * FROM guides WHERE id = ?', code.guide_id);
  if (code === undefined || guide === undefined || guideStatus(ctx, guide) !== 2) {
    return scanEvent(ctx, openid, guide, code?.qrcode_info ?? null, 1);
  }
  const follower = ctx.store.get('SELECT 1 FROM followers WHERE openid = ?', openid) !== undefined;
  if (!follower) {
    ctx.store.run(
      `INSERT INTO pending_scans (openid, ticket, guide_id, scanned_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (openid) DO UPDATE SET ticket = excluded.ticket, guide_id = excluded.guide_id, scanned_at = excluded.scanned_at`,
      openid,
      ticket,
      guide.id,
      ctx.now,
    );
    return { pending: true, follow_within_seconds: SCAN_FOLLOW_WINDOW_SECONDS };
  }
  return scanEvent(ctx, openid, guide, code.qrcode_info, bind(ctx, openid, guide));
}

/** A customer follows the account; a scan of the last 3 minutes then binds them. */
export function follow(ctx: OpContext, openid: string): object {
  ctx.store.run('INSERT OR IGNORE INTO followers (openid, followed_at) VALUES (?, ?)', openid, ctx.now);
  recordEvent(ctx, { event: 'subscribe', openid });
  const pending = ctx.store.get<{ ticket: string; guide_id: number; scanned_at: number }>(
    'SELECT ticket, guide_id, scanned_at FROM pending_scans WHERE openid = ?',
    openid,
  );
  ctx.store.run('DELETE FROM pending_scans WHERE openid = ?', openid);
  if (pending === undefined || ctx.now - pending.scanned_at > SCAN_FOLLOW_WINDOW_SECONDS)
    return { bound: false };
  const guide = ctx.store.get<GuideRow>('SELECT * FROM guides WHERE id = ?', pending.guide_id);
  if (guide === undefined) return { bound: false };
  const info = ctx.store.get<{ qrcode_info: string | null }>(
    'SELECT qrcode_info FROM qrcodes WHERE ticket = ?',
    pending.ticket,
  );
  const action = bind(ctx, openid, guide);
  return { bound: action === 2, event: scanEvent(ctx, openid, guide, info?.qrcode_info ?? null, action) };
}

/**
 * Customers follow the account and are bound to `guide` at once, as if each had scanned its QR
 * code (no events are recorded): bulk set-up for tests and benches. A customer bound to another
 * guide stays there.
 */
export function bindCustomers(ctx: OpContext, guide: GuideRow, openids: readonly string[]): object {
  let bound = 0;
  let elsewhere = 0;
  for (const openid of openids) {
    ctx.store.run('INSERT OR IGNORE INTO followers (openid, followed_at) VALUES (?, ?)', openid, ctx.now);
    const action = bind(ctx, openid, guide);
    if (action === 2) bound++;
    if (action === 4) elsewhere++;
  }
  return { bound, bound_elsewhere: elsewhere };
}

export function unfollow(ctx: OpContext, openid: string): object {
  ctx.store.run('DELETE FROM followers WHERE openid = ?', openid);
  recordEvent(ctx, { event: 'unsubscribe', openid });
  return {};
}

/** The mini programs whose page paths the user may still copy (pushshowwxapathmenu, 60 days). */
export function wxaMenus(ctx: OpContext, user: string): object {
  const rows = ctx.store.all<{ wxa_appid: string; expires_at: number }>(
    'SELECT wxa_appid, expires_at FROM wxa_menus WHERE wx_username = ? AND expires_at > ? ORDER BY wxa_appid',
    user,
    ctx.now,
  );
  return { menus: rows };
}
