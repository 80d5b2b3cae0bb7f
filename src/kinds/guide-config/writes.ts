import { guideIdFrom } from '../../core/desired.js';
import type { LiveWelcome } from '../../core/live.js';
import type { CallBody } from '../../core/plan-data.js';
import { isRecord } from '../../core/records.js';
import { decodeAnswer } from '../../wire/messages.js';
import { ACCOUNT_SUBJECT, setDefaultWelcome } from '../account/writes.js';
import type { AccountModel, ModelConfig } from '../account-model.js';
import { guideSubject } from '../guide/writes.js';
import {
  type ConfirmRead,
  guideOf,
  guideResource,
  type LostAnswerPolicy,
  OK,
  RESEND,
  sameList,
  toWelcome,
  type WireBody,
  type WriteEffects,
} from '../kind.js';

/**
 * The effect of a guide configuration write: a guide's quick replies and welcome messages, or,
 * when the body names no guide, the account's default welcome messages.
 */

async function quickReplies(read: ConfirmRead, body: WireBody): Promise<string[]> {
  const config = decodeAnswer('getguideconfig', await read('getguideconfig', guideOf(body)));
  return config.guide_fast_reply_list.map((r) => r.content);
}

/** The contents of the quick replies a body appends; undefined if it appends none. */
export function appendedReplies(body: WireBody): string[] | undefined {
  const list = body['guide_fast_reply_list'];
  if (body['is_delete'] !== false || !Array.isArray(list) || list.length === 0) return undefined;
  return contentsOf(list);
}

/** The `content` of each entry of a quick-reply list, or undefined when one has none. */
function contentsOf(list: readonly unknown[]): string[] | undefined {
  const contents: string[] = [];
  for (const item of list) {
    const content = isRecord(item) ? item['content'] : undefined;
    if (typeof content !== 'string') return undefined;
    contents.push(content);
  }
  return contents;
}

/** An append is not idempotent: it is done when the list is what it was plus the entries sent. */
const appendLost: LostAnswerPolicy = {
  kind: 'confirm',
  snapshot: quickReplies,
  async confirm(read, body, snapshot) {
    const before = Array.isArray(snapshot) ? snapshot.filter((s): s is string => typeof s === 'string') : [];
    const added = appendedReplies(body) ?? [];
    const now = await quickReplies(read, body);
    if (sameList(now, [...before, ...added]))
      return { outcome: 'applied', answer: OK, detail: `the ${added.length} quick replies are there` };
    if (sameList(now, before)) return { outcome: 'not-applied', detail: 'the quick replies are unchanged' };
    return { outcome: 'unknown', detail: 'the quick replies changed in another way meanwhile' };
  },
};

/** A welcome message as sent, as the API reads it back (a card without its media id). */
function welcomeOf(value: unknown): LiveWelcome | undefined {
  if (!isRecord(value)) return undefined;
  const { msgtype, content } = value;
  if ((msgtype !== 1 && msgtype !== 2 && msgtype !== 3) || typeof content !== 'string') return undefined;
  return toWelcome({ msgtype, content });
}

/**
 * The welcome messages a body leaves: undefined when it leaves them alone; `unknown` for a
 * message the model cannot read. Every set replaces both; a delete removes both.
 */
function welcomeAfter(model: AccountModel, body: CallBody): readonly LiveWelcome[] | 'unknown' | undefined {
  const first = body['guide_auto_reply'];
  if (first === undefined || first === null) return undefined;
  if (body['is_delete'] === true) return [];
  const second = body['guide_auto_reply_plus'];
  const welcome = welcomeOf(first);
  if (second === undefined || second === null) {
    if (welcome !== undefined) return [welcome];
  } else {
    const plus = welcomeOf(second);
    if (welcome !== undefined && plus !== undefined) return [welcome, plus];
  }
  const sent = second === undefined || second === null ? [first] : [first, second];
  model.refuse(`a welcome message the account cannot take: ${JSON.stringify(sent)}`);
  return 'unknown';
}

/** A guide's configuration after the call; undefined when the model cannot tell. */
function configAfter(
  model: AccountModel,
  config: ModelConfig,
  body: CallBody,
  welcome: readonly LiveWelcome[] | 'unknown' | undefined,
): ModelConfig | undefined {
  let { quickReplies, appendable } = config;
  const replies = body['guide_fast_reply_list'];
  if (Array.isArray(replies)) {
    if (body['is_delete'] === true) {
      quickReplies = [];
      appendable = true;
    } else {
      if (replies.length === 0) model.refuse('an empty quick-reply append');
      const added = contentsOf(replies);
      if (added === undefined) model.refuse('a quick reply without content');
      // Onto a list others may have changed since it was read, an append gives an unknown list.
      if (added === undefined || !appendable) return undefined;
      quickReplies = quickReplies.length === 0 ? added : [...quickReplies, ...added];
    }
  }
  if (welcome === 'unknown') return undefined;
  if (quickReplies === config.quickReplies && welcome === undefined) return config;
  // One object for the result: calls are many in a large plan.
  return { quickReplies, welcome: welcome ?? config.welcome, appendable };
}

/** Whether a body names a guide at all (rather than the account), as its subject says. */
function namesGuide(body: CallBody): boolean {
  return typeof body['guide_account'] === 'string' || typeof body['guide_openid'] === 'string';
}

export const GUIDE_CONFIG_WRITES: WriteEffects<'setguideconfig'> = {
  setguideconfig: {
    operation: 'setguideconfig',
    subject: (body) =>
      'guide_account' in body || 'guide_openid' in body ? guideSubject(body) : ACCOUNT_SUBJECT,
    // A guide's configuration, or the account's default welcome when the body names no guide.
    touches: guideResource,
    apply(model, { body }) {
      const welcome = welcomeAfter(model, body);
      if (!namesGuide(body)) {
        if (Array.isArray(body['guide_fast_reply_list'])) model.refuse('quick replies without a guide');
        else if (welcome !== undefined) setDefaultWelcome(model, welcome);
        return;
      }
      const guide = model.guideNamed(body);
      if (guide !== undefined) model.editConfig(guide, (config) => configAfter(model, config, body, welcome));
    },
    lostAnswer: (body) => (appendedReplies(body) === undefined ? RESEND : appendLost),
    knownBefore(model, { body }) {
      const id = guideIdFrom(body['guide_account'], body['guide_openid']);
      if (appendedReplies(body) === undefined || id === undefined) return undefined;
      const config = model.guides.of(id)?.config;
      return config?.appendable === true ? [...config.quickReplies] : undefined;
    },
  },
};

/** The guide configuration write: the planner makes its calls through this. */
export const { setguideconfig: SET_GUIDE_CONFIG } = GUIDE_CONFIG_WRITES;
