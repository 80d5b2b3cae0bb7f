// A second implementation of what the check after apply reads again (src/reconcile/verify.ts), written
// apart from the write effects in src/kinds: test/kinds/effects.test.ts checks the two agree on
// every plan of the property generator. Not used by anything else.
import { type GuideId, guideKey } from '../../../src/core/desired.js';
import type { LiveGuideConfig, LiveReadScope, LiveState, LiveWelcome } from '../../../src/core/live.js';
import type { ApplyResult, CallBody, JsonValue, Plan } from '../../../src/core/plan-data.js';
import { isRecord } from '../../../src/core/records.js';
import { toWelcome } from '../../../src/kinds/kind.js';

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
 * none) and every call of this apply that touched it — the guide's creation, its `setguideconfig`
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
  const expectedGuides = guidesAfter(plan, result, before);
  if (mode === 'full' || scope.guideConfigs === 'all')
    return { scope: { ...scope, expectedGuides }, vouched: new Map() };
  const known = knownConfigs(plan, result, before);
  const reread = new Set<string>();
  const vouched = new Map<string, LiveGuideConfig>();
  for (const key of scope.guideConfigs) {
    const config = known.get(key);
    if (config === undefined || config === UNKNOWN) reread.add(key);
    else vouched.set(key, { quickReplies: config.quickReplies, welcome: config.welcome });
  }
  return { scope: { ...scope, guideConfigs: reread, expectedGuides }, vouched };
}

/**
 * How many guides the account should list after the calls: those read before, plus the guides
 * this apply added, less those it deleted (the calls done). The read after the calls then asks
 * for every page of the guide list at once (see `LiveReadScope.expectedGuides`).
 */
function guidesAfter(plan: Plan, result: ApplyResult, before: LiveState): number {
  let count = before.guides.length;
  for (const outcome of result.outcomes) {
    if (outcome.status !== 'done') continue;
    const operation = plan.calls[outcome.index]?.operation;
    if (operation === 'addguideacct') count += 1;
    else if (operation === 'delguideacct') count -= 1;
  }
  return Math.max(0, count);
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

/** A guide's configuration as the answers make it, and whether an append onto it is known. */
interface Known {
  quickReplies: string[];
  welcome: LiveWelcome[];
  /** The quick replies were made empty by this apply (a new guide, or its delete-all). */
  emptiedHere: boolean;
}
const UNKNOWN = 'unknown';

/** Walks the calls in plan order: what each guide's configuration is after them, when known. */
function knownConfigs(
  plan: Plan,
  result: ApplyResult,
  before: LiveState,
): Map<string, Known | typeof UNKNOWN> {
  const known = new Map<string, Known | typeof UNKNOWN>();
  const read = new Map(before.guides.map((g) => [guideKey(g.id), g.config]));
  const current = (key: string): Known | typeof UNKNOWN => {
    const seen = known.get(key);
    if (seen !== undefined) return seen;
    const config = read.get(key);
    if (config === undefined) return UNKNOWN;
    return { quickReplies: [...config.quickReplies], welcome: [...config.welcome], emptiedHere: false };
  };
  plan.calls.forEach((call, index) => {
    const touches =
      call.operation === 'addguideacct' ||
      call.operation === 'setguideconfig' ||
      call.operation === 'delguideacct';
    const id = touches ? guideIdOfBody(call.body) : undefined;
    if (id === undefined) return;
    const key = guideKey(id);
    if (result.vouched?.has(index) !== true || call.operation === 'delguideacct') {
      known.set(key, UNKNOWN);
      return;
    }
    if (call.operation === 'addguideacct') {
      known.set(key, { quickReplies: [], welcome: [], emptiedHere: true });
      return;
    }
    const config = current(key);
    known.set(key, config === UNKNOWN ? UNKNOWN : setGuideConfig(config, call.body));
  });
  return known;
}

/** What a `setguideconfig` of a guide does to its configuration, as the service documents it. */
function setGuideConfig(config: Known, body: CallBody): Known | typeof UNKNOWN {
  const isDelete = body['is_delete'] === true;
  const replies = body['guide_fast_reply_list'];
  const first = body['guide_auto_reply'];
  const second = body['guide_auto_reply_plus'];
  const next: Known = { ...config };
  if (replies !== undefined && replies !== null) {
    if (isDelete) {
      next.quickReplies = [];
      next.emptiedHere = true;
    } else {
      const added = contentsOf(replies);
      if (added === undefined || !config.emptiedHere) return UNKNOWN;
      next.quickReplies = [...config.quickReplies, ...added];
    }
  }
  if (first !== undefined && first !== null) {
    if (isDelete) next.welcome = [];
    else {
      const messages = [first, second].filter((m) => m !== undefined && m !== null).map(autoReplyOf);
      if (messages.some((m) => m === undefined)) return UNKNOWN;
      next.welcome = messages.filter((m) => m !== undefined);
    }
  }
  return next;
}

function contentsOf(value: JsonValue | CallBody[string]): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: string[] = [];
  for (const item of value) {
    const content = isRecord(item) ? item['content'] : undefined;
    if (typeof content !== 'string') return undefined;
    out.push(content);
  }
  return out;
}

/** A welcome message as the API reads it back (a card without its media id). */
function autoReplyOf(value: CallBody[string] | undefined): LiveWelcome | undefined {
  if (!isRecord(value)) return undefined;
  const msgtype = value['msgtype'];
  const content = value['content'];
  if (typeof msgtype !== 'number' || typeof content !== 'string') return undefined;
  return toWelcome({ msgtype, content });
}

/** The guide a call's body names, or undefined (an account-wide call). */
function guideIdOfBody(body: CallBody): GuideId | undefined {
  const account = body['guide_account'];
  if (typeof account === 'string' && account !== '') return { kind: 'account', account };
  const openid = body['guide_openid'];
  if (typeof openid === 'string' && openid !== '') return { kind: 'openid', openid };
  return undefined;
}
