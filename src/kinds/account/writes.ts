import type { LiveWelcome } from '../../core/live.js';
import type { CallSubject } from '../../core/plan-data.js';
import { isRecord } from '../../core/records.js';
import type { AccountModel } from '../account-model.js';
import { ACCOUNT_RESOURCE, RESEND, stringsOf, type WriteEffects } from '../kind.js';

/**
 * The effects of the account's settings writes: the offline reply and the sensitive words, and
 * the default welcome messages (a guide configuration call that names no guide: see `guide-config`).
 */

export const ACCOUNT_SUBJECT: CallSubject = { kind: 'account', address: 'account' };

/** Sets the default welcome messages, as a guide configuration call naming no guide does. */
export function setDefaultWelcome(model: AccountModel, welcome: readonly LiveWelcome[] | 'unknown'): void {
  model.setDefaultWelcome(welcome === 'unknown' ? undefined : [...welcome]);
}

/** The offline reply: `{content}` sets it; with `is_delete`, or `null`, deletes it. */
function setOfflineReply(model: AccountModel, reply: unknown, isDelete: boolean): void {
  if (reply === null || (isRecord(reply) && isDelete)) model.setOfflineAutoReply(null);
  else if (isRecord(reply)) {
    const content = reply['content'];
    if (typeof content === 'string') model.setOfflineAutoReply(content);
    else model.refuse('an offline reply without content');
  }
}

/**
 * The sensitive words: `values` are deleted with `is_delete`; otherwise added when missing
 * (`append`), or made the whole list (`replace`); `null` deletes them all.
 */
function setWords(model: AccountModel, words: unknown, isDelete: boolean): void {
  if (words === undefined) return;
  if (words === null) {
    model.editWords(() => []);
    return;
  }
  const values = stringsOf(isRecord(words) ? words['values'] : undefined);
  const added = (before: readonly string[]): string[] => {
    const after = [...before];
    for (const w of values) if (!after.includes(w)) after.push(w);
    return after;
  };
  if (isDelete) model.editWords((before) => before?.filter((w) => !values.includes(w)));
  else if (model.sensitiveWordSemantics === 'replace') model.editWords(() => added([]));
  else model.editWords((before) => (before === undefined ? undefined : added(before)));
}

export const ACCOUNT_WRITES: WriteEffects<'setguideacctconfig'> = {
  setguideacctconfig: {
    operation: 'setguideacctconfig',
    subject: () => ACCOUNT_SUBJECT,
    touches: () => ACCOUNT_RESOURCE,
    apply(model, { body }) {
      const isDelete = body['is_delete'] === true;
      setOfflineReply(model, body['guide_auto_reply'], isDelete);
      setWords(model, body['black_keyword'], isDelete);
    },
    lostAnswer: RESEND,
  },
};

/** The account settings write: the planner makes its calls through this. */
export const { setguideacctconfig: SET_ACCOUNT_CONFIG } = ACCOUNT_WRITES;
