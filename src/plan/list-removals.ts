import type { LiveState } from '../core/live.js';
import type { Plan } from '../core/plan-data.js';
import { AccountModel } from '../kinds/account-model.js';
import { WRITE_EFFECTS } from '../kinds/registry.js';

/**
 * The entries of the content lists a plan removes, as the deletion guards count them: sensitive
 * words, quick replies, welcome messages and the offline reply. Emptying a list is as much a
 * deletion as deleting a guide, but it goes through the account and guide configuration calls,
 * which also add and change: the count is what the calls leave out of what was read, walked in
 * plan order as the API documents each call (their effects, in `kinds/`). Sensitive words are a set of terms: each word no
 * longer in it is removed. Quick replies and welcome messages are texts edited in place: a list
 * that ends shorter has lost the difference (a list cleared and appended again with its texts
 * edited, or only reordered, has lost none). A changed offline reply is changed, not removed. Pure.
 */
export interface ListCounts {
  readonly words: number;
  readonly quick_replies: number;
  readonly welcome_messages: number;
  readonly offline_replies: number;
}

/** The content list entries that were read: what each list guard's share is of. */
export function countLiveEntries(live: LiveState): ListCounts {
  const { account } = live;
  return {
    words: new Set(account.sensitiveWords ?? []).size,
    quick_replies: live.guides.reduce((n, g) => n + (g.config?.quickReplies.length ?? 0), 0),
    welcome_messages:
      live.guides.reduce((n, g) => n + (g.config?.welcome.length ?? 0), 0) +
      (account.defaultWelcome?.length ?? 0),
    offline_replies: hasText(account.offlineAutoReply) ? 1 : 0,
  };
}

/** The list entries read in `live` that the calls of `plan` remove (see {@link ListCounts}). */
export function countListRemovals(
  plan: Pick<Plan, 'calls' | 'sensitiveWordSemantics'>,
  live: LiveState,
): ListCounts {
  // No call removes nothing: skip copying the whole live state into a model (every no-change plan).
  if (plan.calls.length === 0) return { words: 0, quick_replies: 0, welcome_messages: 0, offline_replies: 0 };
  // Only the guides read have lists to lose: the guides the calls add are not followed.
  const model = new AccountModel(live, {
    sensitiveWordSemantics: plan.sensitiveWordSemantics,
    keepsAddedGuides: false,
  });
  for (const call of plan.calls) WRITE_EFFECTS[call.operation].apply(model, call);
  const { account } = live;
  const wordsAfter = new Set(model.sensitiveWords ?? account.sensitiveWords ?? []);
  const defaultAfter = model.defaultWelcome?.length ?? account.defaultWelcome?.length ?? 0;
  let quickReplies = 0;
  let welcome = Math.max(0, (account.defaultWelcome?.length ?? 0) - defaultAfter);
  for (const guide of live.guides) {
    // A guide the plan deletes takes its lists with it: the guide guard counts that.
    const after = model.guides.of(guide.id)?.config;
    if (guide.config === undefined || after === undefined) continue;
    quickReplies += Math.max(0, guide.config.quickReplies.length - after.quickReplies.length);
    welcome += Math.max(0, guide.config.welcome.length - after.welcome.length);
  }
  return {
    words: [...new Set(account.sensitiveWords ?? [])].filter((w) => !wordsAfter.has(w)).length,
    quick_replies: quickReplies,
    welcome_messages: welcome,
    offline_replies: hasText(account.offlineAutoReply) && model.offlineAutoReply === null ? 1 : 0,
  };
}

function hasText(value: string | null | undefined): boolean {
  return typeof value === 'string' && value !== '';
}
