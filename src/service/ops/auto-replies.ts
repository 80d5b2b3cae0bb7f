import { APPID, CARD_TITLE_MAX_CHARS, MEDIA_ID } from '../../core/guide-rules.js';
import { isRecord } from '../../core/records.js';
import { ERRCODE } from '../../wire/errcodes.js';
import type { Msgtype } from '../../wire/messages.js';
import { ApiError, invalidArgs, missingParameter } from '../api-error.js';
import type { OpContext } from '../context.js';
import { type Body, charLength, field, isAbsent, requireInt } from '../fields.js';

/** msgtype of an auto reply: 1 text, 2 image (content = media id), 3 mini-program card. */

export function checkMediaId(name: string, value: unknown): string {
  if (typeof value !== 'string' || !MEDIA_ID.test(value)) {
    throw new ApiError(ERRCODE.invalidMediaId, `invalid media id: ${name}`);
  }
  return value;
}

/** Where a picture uploaded as `mediaId` is served from once read back. */
export function pictureUrl(mediaId: string): string {
  return `https://mmbiz.qpic.cn/mmbiz_jpg/${mediaId}/0`;
}

/**
 * A mini-program appid the account may use in a card or a path menu. Mini programs registered
 * through /__sim/miniprogram decide; any other well-formed appid counts as a linked mini program.
 */
export function checkMiniProgram(ctx: OpContext, name: string, value: unknown, use: 'card' | 'menu'): string {
  if (typeof value !== 'string' || value === '') throw missingParameter(name);
  if (!APPID.test(value)) throw new ApiError(ERRCODE.notMiniProgram, `${name} is not a mini program appid`);
  const known = ctx.store.get<{ kind: string; linked: number }>(
    'SELECT kind, linked FROM mini_programs WHERE appid = ?',
    value,
  );
  if (known?.kind === 'minigame')
    throw new ApiError(ERRCODE.notMiniProgram, `${name} is a mini game, not a mini program`);
  if (use === 'card' && known !== undefined && known.linked === 0) {
    throw new ApiError(ERRCODE.cardAppidNotLinked, `${name} is not linked to the account`);
  }
  return value;
}

function cardString(card: Body, name: string, maxChars?: number): string {
  const value = field(card, name);
  if (typeof value !== 'string' || value === '') throw invalidArgs(`card ${name} must be a non-empty string`);
  if (maxChars !== undefined && charLength(value) > maxChars) {
    throw invalidArgs(`card ${name} is ${charLength(value)} characters; the limit is ${maxChars}`);
  }
  return value;
}

/**
 * Checks one auto reply (`{msgtype, content}`) and returns what is stored and read back: the text,
 * the media id, or the card as read back (title, appid, path, pic_url; no media_id).
 */
export function readAutoReply(
  ctx: OpContext,
  name: string,
  value: unknown,
): { msgtype: Msgtype; content: string } {
  if (!isRecord(value)) throw invalidArgs(`${name} must be an object`);
  const msgtype = requireInt(value, 'msgtype');
  const content = field(value, 'content');
  if (isAbsent(content) || content === '') throw missingParameter(`${name}.content`);
  if (typeof content !== 'string') throw invalidArgs(`${name}.content must be a string`);
  switch (msgtype) {
    case 1:
      return { msgtype, content };
    case 2:
      return { msgtype, content: checkMediaId(`${name}.content`, content) };
    case 3: {
      let card: unknown;
      try {
        card = JSON.parse(content);
      } catch {
        throw invalidArgs(`${name}.content must be a JSON string of the card {media_id, title, path, appid}`);
      }
      if (!isRecord(card)) throw invalidArgs(`${name}.content must be a JSON object of the card`);
      const appid = checkMiniProgram(ctx, `${name}.content.appid`, field(card, 'appid'), 'card');
      const title = cardString(card, 'title', CARD_TITLE_MAX_CHARS);
      const path = cardString(card, 'path');
      const mediaId = checkMediaId(`${name}.content.media_id`, field(card, 'media_id'));
      return { msgtype, content: JSON.stringify({ title, appid, path, pic_url: pictureUrl(mediaId) }) };
    }
    default:
      throw invalidArgs(`${name}.msgtype must be 1 (text), 2 (image) or 3 (mini-program card)`);
  }
}

interface AutoReplyRow {
  slot: number;
  msgtype: number;
  content: string;
  updatetime: number;
}

/** Replaces both welcome messages of `owner` (a guide id, or 0 for the account default). */
export function setWelcome(
  ctx: OpContext,
  owner: number,
  first: { msgtype: Msgtype; content: string },
  second: { msgtype: Msgtype; content: string } | undefined,
): void {
  ctx.store.run('DELETE FROM auto_replies WHERE owner = ?', owner);
  const insert =
    'INSERT INTO auto_replies (owner, slot, msgtype, content, updatetime) VALUES (?, ?, ?, ?, ?)';
  ctx.store.run(insert, owner, 1, first.msgtype, first.content, ctx.now);
  if (second !== undefined) ctx.store.run(insert, owner, 2, second.msgtype, second.content, ctx.now);
}

export function deleteWelcome(ctx: OpContext, owner: number): void {
  ctx.store.run('DELETE FROM auto_replies WHERE owner = ?', owner);
}

/** The welcome messages of `owner` as answered: `guide_auto_reply` and `guide_auto_reply_plus`. */
export function readWelcome(ctx: OpContext, owner: number): Record<string, object> {
  const rows = ctx.store.all<AutoReplyRow>(
    'SELECT slot, msgtype, content, updatetime FROM auto_replies WHERE owner = ? ORDER BY slot',
    owner,
  );
  const answer: Record<string, object> = {};
  for (const row of rows) {
    const key = row.slot === 1 ? 'guide_auto_reply' : 'guide_auto_reply_plus';
    answer[key] = { msgtype: row.msgtype, content: row.content, updatetime: row.updatetime };
  }
  return answer;
}
