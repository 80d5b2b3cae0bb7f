import type { LiveState } from '../../src/core/live.js';
import type { Plan } from '../../src/core/plan-data.js';
import { AccountModel } from '../../src/kinds/account-model.js';
import { WRITE_EFFECTS } from '../../src/kinds/registry.js';

/**
 * A model of the account that interprets a plan's calls as the guide service does, through the
 * write effects of src/kinds, strict enough to catch a plan that could not run. A call the account
 * could not take (a guide added twice, a member removed who is not one, a group id no one made)
 * throws; so does a call that would change nothing — a plan makes no call for what already
 * matches. The effects are checked against a second implementation (test/kinds/reference/) and,
 * through the differential and chaos tests, against the service.
 */

/** A live state read whole (every guide's configuration, every group's members, the account). */
export function fullLive(live: LiveState): LiveState {
  return {
    guides: live.guides.map((g) => ({ ...g, config: g.config ?? { quickReplies: [], welcome: [] } })),
    groups: live.groups.map((g) => ({ ...g, members: g.members ?? [] })),
    account: {
      offlineAutoReply: live.account.offlineAutoReply ?? null,
      sensitiveWords: live.account.sensitiveWords ?? [],
      defaultWelcome: live.account.defaultWelcome ?? [],
    },
  };
}

/**
 * Runs the plan's calls on a model of `live`, in an order that `next` picks among the calls whose
 * dependencies are done (plan order when `next` always picks the first): any order apply might
 * take must reach the same account. Returns the account after. Throws on a call the account could
 * not take, or that changes nothing.
 */
export function applyToModel(
  live: LiveState,
  plan: Plan,
  next: (ready: readonly number[]) => number = (ready) => ready[0] ?? -1,
): LiveState {
  const model = new AccountModel(fullLive(live), {
    strict: true,
    sensitiveWordSemantics: plan.sensitiveWordSemantics,
  });
  const done = new Set<number>();
  while (done.size < plan.calls.length) {
    const ready = plan.calls.flatMap((call, i) =>
      !done.has(i) && call.dependsOn.every((d) => done.has(d)) ? [i] : [],
    );
    if (ready.length === 0) throw new Error('the dependencies of the plan form a cycle');
    const index = next(ready);
    const call = plan.calls[index];
    if (call === undefined) throw new Error(`no call ${index}`);
    const before = model.snapshot();
    try {
      WRITE_EFFECTS[call.operation].apply(model, call);
    } catch (error) {
      throw new Error(`call ${index} (${call.operation}): ${String(error)}`);
    }
    if (model.snapshot() === before) throw new Error(`call ${index} (${call.operation}) changes nothing`);
    done.add(index);
  }
  return model.toLive();
}
