import { guideKey } from '../core/desired.js';
import type { LiveGuideConfig, LiveReadScope, LiveState } from '../core/live.js';
import type { ApplyResult, Plan } from '../core/plan-data.js';
import { AccountModel } from '../kinds/account-model.js';
import { WRITE_EFFECTS } from '../kinds/registry.js';

/**
 * How apply checks convergence after its calls (`apply --verify`):
 * - `targeted` (the default): reads again the lists (guides with their nicknames and images,
 *   groups, the members the files manage: one call per 100) and the account settings in scope,
 *   and the configuration (quick replies, welcome messages: one call per guide, the bulk of a full
 *   read) only of the guides whose configuration the answers do not vouch for — see
 *   {@link verifyRead}; the configuration of the others is what their calls' answers say it is.
 * - `full`: reads again everything the plan read.
 */
export type VerifyMode = 'targeted' | 'full';

/** What the check after the calls reads again, and what it takes from the answers instead. */
export interface VerifyRead {
  readonly scope: LiveReadScope;
  /** Guide configurations, by guide key, vouched for by the answers: not read again. */
  readonly vouched: ReadonlyMap<string, LiveGuideConfig>;
}

/**
 * What to read after the calls of `plan` (made from `before`, read with `scope`) went as `result`
 * says. Under `targeted`, a guide's configuration is not read again when it is known from the
 * answers: its configuration was read before (or the guide was created by this apply, so it had
 * none) and every call of this apply that touched it — the guide's creation, its configuration
 * calls — is done and vouched for by its own answer (first attempt; no retry, no lost answer
 * settled by a read, not held past its timeout). Quick replies are appended, so an append is
 * known only onto a list this apply itself made empty (a new guide, or its own delete-all); an
 * append onto a list read earlier is read back, since someone may have changed that list since.
 * Everything else the plan read is read again.
 */
export function verifyRead(
  mode: VerifyMode,
  scope: LiveReadScope,
  plan: Plan,
  result: ApplyResult,
  before: LiveState,
): VerifyRead {
  const model = new AccountModel(before, { appendsOntoRead: false });
  const read = new Map([...model.guides].map(([key, guide]) => [key, guide.config]));
  const done = new Set(result.outcomes.flatMap((o) => (o.status === 'done' ? [o.index] : [])));
  plan.calls.forEach((call, index) => {
    const apply = (): void => WRITE_EFFECTS[call.operation].apply(model, call);
    if (done.has(index)) apply();
    // A call whose own answer does not vouch for it may have done anything it could do.
    if (result.vouched?.has(index) !== true) model.forget(apply);
  });
  // How many guides the account should list after the calls, so that the read after them asks
  // for every page of the guide list at once (see `LiveReadScope.expectedGuides`).
  const expectedGuides = model.guides.size;
  if (mode === 'full' || scope.guideConfigs === 'all')
    return { scope: { ...scope, expectedGuides }, vouched: new Map() };
  const reread = new Set<string>();
  const vouched = new Map<string, LiveGuideConfig>();
  for (const key of scope.guideConfigs) {
    const config = model.guides.get(key)?.config;
    // Known from the answers: a configuration the calls made, not the one read.
    if (config === undefined || config === read.get(key)) reread.add(key);
    else vouched.set(key, { quickReplies: config.quickReplies, welcome: config.welcome });
  }
  return { scope: { ...scope, guideConfigs: reread, expectedGuides }, vouched };
}

/** The account as read after the calls, with the configurations the answers vouch for filled in. */
export function withVouched(after: LiveState, verify: VerifyRead): LiveState {
  if (verify.vouched.size === 0) return after;
  return {
    ...after,
    guides: after.guides.map((guide) => {
      const config = guide.config === undefined ? verify.vouched.get(guideKey(guide.id)) : undefined;
      return config === undefined ? guide : { ...guide, config };
    }),
  };
}
