// A second implementation of the list removals the deletion guards count (src/plan/list-removals.ts), written
// apart from the write effects in src/kinds: test/kinds/effects.test.ts checks the two agree on
// every plan of the property generator. Not used by anything else.
import { guideKey } from '../../../src/core/desired.js';
import type { LiveState } from '../../../src/core/live.js';
import type { Plan, PlannedCall } from '../../../src/core/plan-data.js';
import { isRecord } from '../../../src/core/records.js';
import { guideIdOf } from '../../../src/wire/guide-identity.js';

/**
 * The entries of the content lists a plan removes, as the deletion guards count them: sensitive
 * words, quick replies, welcome messages and the offline reply. Emptying a list is as much a
 * deletion as deleting a guide, but it goes through `setguideacctconfig` and `setguideconfig`,
 * which also add and change: the count is what the calls leave out of what was read, walked in
 * plan order as the API documents each call. Sensitive words are a set of terms: each word no
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
  const state = initialState(live);
  for (const call of plan.calls) applyCall(state, call, plan.sensitiveWordSemantics ?? 'append');
  const { account } = live;
  const liveWords = new Set(account.sensitiveWords ?? []);
  let quickReplies = 0;
  let welcome = Math.max(0, (account.defaultWelcome?.length ?? 0) - state.defaultWelcome);
  for (const guide of live.guides) {
    if (guide.config === undefined) continue;
    const after = state.guides.get(guideKey(guide.id));
    // A guide the plan deletes takes its lists with it: the guide guard counts that.
    if (after === undefined) continue;
    quickReplies += Math.max(0, guide.config.quickReplies.length - after.quickReplies);
    welcome += Math.max(0, guide.config.welcome.length - after.welcome);
  }
  return {
    words: [...liveWords].filter((w) => !state.words.has(w)).length,
    quick_replies: quickReplies,
    welcome_messages: welcome,
    offline_replies: hasText(account.offlineAutoReply) && !state.offlineReply ? 1 : 0,
  };
}

/** What the lists hold as the calls are walked. */
interface ListState {
  words: Set<string>;
  offlineReply: boolean;
  defaultWelcome: number;
  /** By guide key, the guides whose configuration was read and that the plan has not deleted. */
  guides: Map<string, { quickReplies: number; welcome: number }>;
}

function initialState(live: LiveState): ListState {
  const guides = new Map<string, { quickReplies: number; welcome: number }>();
  for (const guide of live.guides) {
    if (guide.config === undefined) continue;
    guides.set(guideKey(guide.id), {
      quickReplies: guide.config.quickReplies.length,
      welcome: guide.config.welcome.length,
    });
  }
  return {
    words: new Set(live.account.sensitiveWords ?? []),
    offlineReply: hasText(live.account.offlineAutoReply),
    defaultWelcome: live.account.defaultWelcome?.length ?? 0,
    guides,
  };
}

/** What one call does to the lists, as the wire API documents it. */
function applyCall(state: ListState, call: PlannedCall, semantics: 'append' | 'replace'): void {
  const { body } = call;
  const isDelete = body['is_delete'] === true;
  switch (call.operation) {
    case 'setguideacctconfig': {
      const words = body['black_keyword'];
      if (words === null) state.words.clear();
      else if (words !== undefined) {
        const values = valuesOf(words);
        if (isDelete) for (const w of values) state.words.delete(w);
        else if (semantics === 'replace') state.words = new Set(values);
        else for (const w of values) state.words.add(w);
      }
      const reply = body['guide_auto_reply'];
      if (reply === null || (reply !== undefined && isDelete)) state.offlineReply = false;
      else if (reply !== undefined) state.offlineReply = true;
      return;
    }
    case 'setguideconfig': {
      const id = guideIdOf(body);
      const welcome = welcomeAfter(body, isDelete);
      if (id === undefined) {
        if (welcome !== undefined) state.defaultWelcome = welcome;
        return;
      }
      const guide = state.guides.get(guideKey(id));
      if (guide === undefined) return;
      const replies = body['guide_fast_reply_list'];
      if (Array.isArray(replies)) guide.quickReplies = isDelete ? 0 : guide.quickReplies + replies.length;
      if (welcome !== undefined) guide.welcome = welcome;
      return;
    }
    case 'delguideacct': {
      const id = guideIdOf(body);
      if (id !== undefined) state.guides.delete(guideKey(id));
      return;
    }
    case 'addguideacct':
    case 'updateguideacct':
    case 'newguidegroup':
    case 'delguidegroup':
    case 'addguide2guidegroup':
    case 'delguide2guidegroup':
    case 'addguidemassendjob':
    case 'updateguidemassendjob':
    case 'cancelguidemassendjob':
      return;
    default: {
      const unreachable: never = call.operation;
      throw new Error(`unknown operation ${String(unreachable)}`);
    }
  }
}

/** How many welcome messages a `setguideconfig` leaves, or undefined when it leaves them alone. */
function welcomeAfter(body: PlannedCall['body'], isDelete: boolean): number | undefined {
  const first = body['guide_auto_reply'];
  if (first === undefined || first === null) return undefined;
  if (isDelete) return 0;
  const second = body['guide_auto_reply_plus'];
  return second === undefined || second === null ? 1 : 2;
}

function valuesOf(value: unknown): string[] {
  if (!isRecord(value) || !Array.isArray(value['values'])) return [];
  return value['values'].filter((v): v is string => typeof v === 'string');
}

function hasText(value: string | null | undefined): boolean {
  return typeof value === 'string' && value !== '';
}
