// A second implementation of what apply knows before each append (src/apply/execute-plan.ts),
// written apart from the write effects in src/kinds: test/kinds/effects.test.ts checks the two
// agree on every plan of the property generator. Not used by anything else.

import { guideKey } from '../../../src/core/desired.js';
import type { LiveState } from '../../../src/core/live.js';
import type { Plan, PlannedCall } from '../../../src/core/plan-data.js';
import { appendedReplies } from '../../../src/kinds/guide-config/writes.js';

/**
 * What the plan knew, when it was made, of the state each of its appends changes: the client
 * settles a lost answer of an append by one read after it, against this (see the client's
 * `outcomes.ts`), instead of reading before every append.
 * - `newguidegroup`: the plan creates a group only when no live group has its name: none.
 * - a quick-reply append: the guide's quick replies as planned (the change's `after`) less the
 *   appended tail — the live list, or nothing after the plan's delete-all.
 * - `addguidemassendjob`, given the live state the plan was made from with its tasks read: the
 *   ids of the guide's tasks as read (none for a guide the plan creates). The plan adds a task
 *   only when none of the guide's tasks is it, so a lost add is settled by one read of them.
 */
export function appendsKnownBefore(plan: Plan, live?: LiveState): Map<number, readonly string[]> {
  const tasksByGuide = new Map<string, string[]>();
  for (const task of live?.tasks ?? []) {
    const key = guideKey(task.guide);
    tasksByGuide.set(key, [...(tasksByGuide.get(key) ?? []), task.id]);
  }
  const afterByGuide = new Map<string, readonly string[]>();
  for (const change of plan.changes) {
    if (change.resource !== 'guide') continue;
    const after = change.fields.find((f) => f.field === 'quick_replies')?.after;
    if (Array.isArray(after) && after.every((r) => typeof r === 'string'))
      afterByGuide.set(change.address, after);
  }
  const known = new Map<number, readonly string[]>();
  plan.calls.forEach((call, index) => {
    if (call.operation === 'newguidegroup') known.set(index, []);
    if (call.operation === 'addguidemassendjob' && live?.tasks !== undefined)
      known.set(index, tasksByGuide.get(callGuideKey(call)) ?? []);
    const added = call.operation === 'setguideconfig' ? appendedReplies(call.body) : undefined;
    const after = added === undefined ? undefined : afterByGuide.get(guideAddress(call));
    if (added === undefined || after === undefined || added.length > after.length) return;
    const head = after.slice(0, after.length - added.length);
    if (after.slice(head.length).every((r, i) => r === added[i])) known.set(index, head);
  });
  return known;
}

/** The key ({@link guideKey}) of the guide a call names. */
function callGuideKey(call: PlannedCall): string {
  const account = call.body['guide_account'];
  if (typeof account === 'string' && account !== '') return guideKey({ kind: 'account', account });
  return guideKey({ kind: 'openid', openid: String(call.body['guide_openid']) });
}

/** The guide a call names, as the plan's changes address it (`alice_wx`, `openid oXYZ`). */
function guideAddress(call: PlannedCall): string {
  const account = call.body['guide_account'];
  if (typeof account === 'string' && account !== '') return account;
  return `openid ${String(call.body['guide_openid'])}`;
}
