import { MAX_QUICK_REPLIES, OFFLINE_REPLY_MAX_CHARS } from '../../core/guide-rules.js';
import { isRecord } from '../../core/records.js';
import { ERRCODE } from '../../wire/errcodes.js';
import { ApiError, invalidArgs, missingParameter } from '../api-error.js';
import type { OpContext } from '../context.js';
import {
  type Body,
  checkStringArray,
  field,
  isAbsent,
  optionalGuideKey,
  requireArray,
  requireBoolean,
  requireString,
} from '../fields.js';
import { deleteWelcome, readAutoReply, readWelcome, setWelcome } from './auto-replies.js';
import { requireGuide } from './guide-rows.js';

/** Owner of welcome messages: the guide named, or 0 (the account default) when none is. */
function welcomeOwner(ctx: OpContext, body: Body): number {
  const key = optionalGuideKey(body);
  return key === undefined ? 0 : requireGuide(ctx, key).id;
}

export function setguideconfig(ctx: OpContext, body: Body): object {
  const isDelete = requireBoolean(body, 'is_delete');
  const hasReplies = !isAbsent(field(body, 'guide_fast_reply_list'));
  const hasWelcome = !isAbsent(field(body, 'guide_auto_reply'));
  const hasPlus = !isAbsent(field(body, 'guide_auto_reply_plus'));
  if (!hasReplies && !hasWelcome) {
    throw missingParameter(hasPlus ? 'guide_auto_reply' : 'guide_fast_reply_list or guide_auto_reply');
  }
  if (hasReplies && optionalGuideKey(body) === undefined) {
    throw missingParameter('guide_account or guide_openid (quick replies belong to a guide)');
  }
  const owner = welcomeOwner(ctx, body);

  if (hasReplies) {
    const list = requireArray(body, 'guide_fast_reply_list');
    if (isDelete) {
      // Quick replies can only be deleted all together, whatever the list holds.
      ctx.store.run('DELETE FROM fast_replies WHERE guide_id = ?', owner);
    } else {
      if (list.length === 0) throw invalidArgs('guide_fast_reply_list must not be empty');
      const contents = list.map((item, i) => {
        if (!isRecord(item)) throw invalidArgs(`guide_fast_reply_list[${i}] must be an object {content}`);
        return requireString(item, 'content');
      });
      const last = ctx.store.get<{ n: number; top: number | null }>(
        'SELECT COUNT(*) AS n, MAX(seq) AS top FROM fast_replies WHERE guide_id = ?',
        owner,
      );
      if ((last?.n ?? 0) + contents.length > MAX_QUICK_REPLIES) {
        throw invalidArgs(`a guide holds at most ${MAX_QUICK_REPLIES} quick replies`);
      }
      let seq = last?.top ?? 0;
      for (const content of contents) {
        seq += 1;
        ctx.store.run(
          'INSERT INTO fast_replies (guide_id, seq, content, updatetime) VALUES (?, ?, ?, ?)',
          owner,
          seq,
          content,
          ctx.now,
        );
      }
    }
  }

  if (hasWelcome) {
    if (isDelete) {
      // `{"msgtype": 1}` with no content removes both; one alone cannot be deleted.
      if (!isRecord(field(body, 'guide_auto_reply'))) throw invalidArgs('guide_auto_reply must be an object');
      deleteWelcome(ctx, owner);
    } else {
      const first = readAutoReply(ctx, 'guide_auto_reply', field(body, 'guide_auto_reply'));
      const second = hasPlus
        ? readAutoReply(ctx, 'guide_auto_reply_plus', field(body, 'guide_auto_reply_plus'))
        : undefined;
      setWelcome(ctx, owner, first, second);
    }
  }
  return {};
}

export function getguideconfig(ctx: OpContext, body: Body): object {
  const owner = welcomeOwner(ctx, body);
  const replies = ctx.store.all<{ content: string; updatetime: number }>(
    'SELECT content, updatetime FROM fast_replies WHERE guide_id = ? ORDER BY seq',
    owner,
  );
  return { guide_fast_reply_list: replies, ...readWelcome(ctx, owner) };
}

function wordCount(ctx: OpContext): number {
  return ctx.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM black_keywords')?.n ?? 0;
}

function addWords(ctx: OpContext, words: readonly string[]): void {
  for (const word of words) ctx.store.run('INSERT OR IGNORE INTO black_keywords (word) VALUES (?)', word);
}

/**
 * Sensitive words follow the `sensitiveWords` setting (see the wire page): `append` adds the
 * words not yet present and `"black_keyword": null` deletes all; `replace` sets the whole list.
 * In both, `is_delete: true` deletes the words given.
 */
function setSensitiveWords(ctx: OpContext, body: Body, isDelete: boolean): void {
  if (!Object.hasOwn(body, 'black_keyword')) return;
  const value = field(body, 'black_keyword');
  let changed = false;
  if (value === null) {
    if (!isDelete) {
      ctx.store.run('DELETE FROM black_keywords');
      changed = true;
    }
  } else {
    if (!isRecord(value)) throw invalidArgs('black_keyword must be an object {values}');
    const words = checkStringArray('black_keyword.values', requireArray(value, 'values'));
    if (isDelete) {
      for (const word of words) ctx.store.run('DELETE FROM black_keywords WHERE word = ?', word);
    } else {
      if (ctx.settings.sensitiveWords === 'replace') ctx.store.run('DELETE FROM black_keywords');
      addWords(ctx, words);
      if (wordCount(ctx) > ctx.settings.maxSensitiveWords) {
        throw new ApiError(
          ERRCODE.sensitiveWordLimit,
          `sensitive word count limit reached (${ctx.settings.maxSensitiveWords})`,
        );
      }
    }
    changed = true;
  }
  if (changed) ctx.store.setMeta('black_keyword_updatetime', String(ctx.now));
}

/**
 * The offline reply, as the API's documentation has it: `is_delete: true` with `guide_auto_reply`,
 * or `"guide_auto_reply": null` (whatever `is_delete`), deletes it; left out, it is left alone.
 */
function setOfflineReply(ctx: OpContext, body: Body, isDelete: boolean): void {
  if (!Object.hasOwn(body, 'guide_auto_reply')) return;
  const value = field(body, 'guide_auto_reply');
  if (value === null) {
    ctx.store.setMeta('offline_auto_reply', undefined);
    return;
  }
  if (isDelete) {
    if (!isRecord(value)) throw invalidArgs('guide_auto_reply must be an object {content}');
    ctx.store.setMeta('offline_auto_reply', undefined);
    return;
  }
  if (!isRecord(value)) throw invalidArgs('guide_auto_reply must be an object {content}');
  const content = requireString(value, 'content', { maxChars: OFFLINE_REPLY_MAX_CHARS });
  ctx.store.setMeta('offline_auto_reply', content);
}

export function setguideacctconfig(ctx: OpContext, body: Body): object {
  const isDelete = requireBoolean(body, 'is_delete');
  if (!Object.hasOwn(body, 'black_keyword') && !Object.hasOwn(body, 'guide_auto_reply')) {
    throw missingParameter('black_keyword or guide_auto_reply');
  }
  setSensitiveWords(ctx, body, isDelete);
  setOfflineReply(ctx, body, isDelete);
  return {};
}

export function getguideacctconfig(ctx: OpContext, _body: Body): object {
  const values = ctx.store
    .all<{ word: string }>('SELECT word FROM black_keywords ORDER BY seq')
    .map((r) => r.word);
  const offline = ctx.store.getMeta('offline_auto_reply');
  return {
    black_keyword: { values, updatetime: Number(ctx.store.getMeta('black_keyword_updatetime') ?? 0) },
    ...(offline === undefined ? {} : { guide_auto_reply: { content: offline } }),
  };
}
