import { sortedText } from '../../core/compare-text.js';
import type { DesiredAccount, DesiredState } from '../../core/desired.js';
import type { Diagnostic } from '../../core/diagnostics.js';
import { MAX_SENSITIVE_WORDS } from '../../core/guide-rules.js';
import type { LiveState } from '../../core/live.js';
import type { CallBody, FieldChange, JsonValue } from '../../core/plan-data.js';
import { checkBodySize, splitByBytes } from '../call-size.js';
import { welcomeBody } from '../guide-config/plan.js';
import { SET_GUIDE_CONFIG } from '../guide-config/writes.js';
import type { PlanBuilder } from '../plan-builder.js';
import type { KindPlan } from '../plan-context.js';
import { messageToJson, sameWelcomeList } from '../welcome.js';
import { SET_ACCOUNT_CONFIG } from './writes.js';

/** The account kind's step: its settings, after the guides' configuration. */
export const ACCOUNT_PLAN: KindPlan = {
  configure: (ctx) => planAccount(ctx.builder, ctx.desired, ctx.live, ctx.diagnostics),
};

/**
 * The account: offline reply and sensitive words through the account's settings call, the
 * default welcome through a guide configuration call that names no guide. Sensitive words follow
 * the semantics the file states: under `append`, add what is missing (`is_delete: false`) and
 * delete what is extra (`is_delete: true`), each in runs well under the request limit; under
 * `replace`, one call sets the whole list (an error in `errors` when that passes the limit).
 *
 * The add goes first, so that if a later call fails the account still holds every word of both
 * lists (a blocklist errs on the side of blocking); unless the two lists together pass the limit
 * of the account's words: the add would then be refused (9300814) on every apply, so the delete
 * goes first. Either way, no word that both lists hold is ever missing in between.
 */
export function planAccount(
  b: PlanBuilder,
  desired: DesiredState,
  live: LiveState,
  errors: Diagnostic[],
): void {
  const account = desired.account;
  if (account === undefined) return;
  const fields: FieldChange[] = [];
  const keep: Record<string, JsonValue> = {};
  const remove: Record<string, JsonValue> = {};
  let adds: string[][] = [];
  let drops: string[][] = [];

  if (account.offlineAutoReply !== undefined) {
    const before = live.account.offlineAutoReply ?? null;
    if (before !== account.offlineAutoReply) {
      // Deleted with is_delete: true, which every source agrees on (a null guide_auto_reply deletes
      // it too, by the API's contract, but SDKs send unset keys as null, so null is not relied on).
      if (account.offlineAutoReply === null) remove['guide_auto_reply'] = { content: before ?? '' };
      else keep['guide_auto_reply'] = { content: account.offlineAutoReply };
      fields.push({ field: 'offline_auto_reply', before, after: account.offlineAutoReply });
    }
  }

  let deleteFirst = false;
  const words = account.sensitiveWords;
  if (words !== undefined) {
    const before = live.account.sensitiveWords ?? [];
    const beforeSet = new Set(before);
    const afterSet = new Set(words.words);
    const missing = words.words.filter((w) => !beforeSet.has(w));
    const extra = sortedText(before.filter((w) => !afterSet.has(w)));
    if (missing.length > 0 || extra.length > 0) {
      fields.push({ field: 'sensitive_words', before: sortedText(before), after: [...words.words] });
      if (words.semantics === 'replace') {
        keep['black_keyword'] = { values: [...words.words] };
      } else {
        adds = splitByBytes(missing);
        drops = splitByBytes(extra);
        deleteFirst = before.length + missing.length > MAX_SENSITIVE_WORDS;
      }
    }
  }

  const addBodies = wordBodies(false, keep, adds);
  const dropBodies = wordBodies(true, remove, drops);
  const replace = words?.semantics === 'replace';
  for (const body of [...addBodies, ...dropBodies]) {
    const tooLarge = checkBodySize(
      body,
      account.source,
      replace
        ? `under semantics: replace, all the sensitive words go in one ${SET_ACCOUNT_CONFIG.operation} request, which`
        : `a ${SET_ACCOUNT_CONFIG.operation} request of the sensitive words`,
      replace
        ? 'shorten or remove sensitive words; a target that appends (semantics: append) takes them in several requests'
        : 'one sensitive word this long cannot be sent in a request: shorten it',
    );
    if (tooLarge !== undefined) errors.push(tooLarge);
  }
  for (const body of deleteFirst ? [...dropBodies, ...addBodies] : [...addBodies, ...dropBodies])
    b.call(SET_ACCOUNT_CONFIG, body);

  planDefaultWelcome(b, account, live, fields, errors);
  if (fields.length > 0) b.change({ resource: 'account', action: 'update', address: 'account', fields });
}

/** The account's default welcome messages: one configuration call naming no guide sets or deletes both. */
function planDefaultWelcome(
  b: PlanBuilder,
  account: DesiredAccount,
  live: LiveState,
  fields: FieldChange[],
  errors: Diagnostic[],
): void {
  if (account.defaultWelcome === undefined) return;
  const before = live.account.defaultWelcome ?? [];
  if (sameWelcomeList(account.defaultWelcome, before)) return;
  fields.push({
    field: 'default_welcome',
    before: before.map(messageToJson),
    after: account.defaultWelcome.map(messageToJson),
  });
  const body: CallBody =
    account.defaultWelcome.length === 0
      ? { is_delete: true, guide_auto_reply: { msgtype: 1 } }
      : { is_delete: false, ...welcomeBody(account.defaultWelcome) };
  const tooLarge = checkBodySize(
    body,
    account.source,
    `the ${SET_GUIDE_CONFIG.operation} request of the default welcome messages`,
    'a welcome message this long cannot be sent in a request: shorten it',
  );
  if (tooLarge !== undefined) errors.push(tooLarge);
  b.call(SET_GUIDE_CONFIG, body);
}

/**
 * The account settings bodies of one `is_delete`: `settings` (the offline reply, or the whole
 * list under `replace`) with the first run of words, or alone; then one body per further run.
 */
function wordBodies(isDelete: boolean, settings: Record<string, JsonValue>, runs: string[][]): CallBody[] {
  if (runs.length === 0)
    return Object.keys(settings).length > 0 ? [{ is_delete: isDelete, ...settings }] : [];
  return runs.map((run, i) => ({
    is_delete: isDelete,
    ...(i === 0 ? settings : {}),
    black_keyword: { values: run },
  }));
}
