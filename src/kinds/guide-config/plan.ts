import { type DesiredGuide, describeGuideId, guideKey, type WelcomeMessage } from '../../core/desired.js';
import type { Diagnostic } from '../../core/diagnostics.js';
import type { LiveGuide } from '../../core/live.js';
import type { CallBody, FieldChange, JsonValue } from '../../core/plan-data.js';
import { wireGuideIdentity } from '../../wire/guide-identity.js';
import { APPEND_BUDGET_BYTES, checkBodySize, jsonBytes, splitByBytes } from '../call-size.js';
import { sameList } from '../kind.js';
import type { PlanBuilder } from '../plan-builder.js';
import type { KindPlan } from '../plan-context.js';
import { messageToJson, sameWelcomeList, welcomeToWire } from '../welcome.js';
import { SET_GUIDE_CONFIG } from './writes.js';

/**
 * The guide configuration kind's step: each declared guide's, by key, its fields added to the
 * guide's change; a call too large for the service is an error of the plan.
 */
export const GUIDE_CONFIG_PLAN: KindPlan = {
  configure: (ctx) => {
    for (const guide of ctx.desiredGuides) {
      const key = guideKey(guide.id);
      const fields = ctx.facts.get('guideFields').get(key) ?? [];
      planGuideConfig(ctx.builder, guide, ctx.liveGuides.get(key), fields, ctx.diagnostics);
    }
  },
};

/**
 * Quick replies and welcome messages of one guide in the fewest calls: one `is_delete: true` call
 * for what must go (all quick replies, both welcome messages), then one `is_delete: false` call
 * for what is added (the missing tail of the quick replies, or all of them; the welcome messages),
 * or several when the quick replies added would make a request too large. A call the service
 * would refuse for its size is an error in `errors`.
 */
export function planGuideConfig(
  b: PlanBuilder,
  guide: DesiredGuide,
  live: LiveGuide | undefined,
  fields: FieldChange[],
  errors: Diagnostic[],
): void {
  const liveReplies = live?.config?.quickReplies ?? [];
  const liveWelcome = live?.config?.welcome ?? [];
  let clearReplies = false;
  let addReplies: readonly string[] = [];
  if (guide.quickReplies !== undefined && !sameList(guide.quickReplies, liveReplies)) {
    const isPrefix =
      liveReplies.length < guide.quickReplies.length &&
      liveReplies.every((r, i) => guide.quickReplies?.[i] === r);
    clearReplies = !isPrefix && liveReplies.length > 0;
    addReplies = isPrefix ? guide.quickReplies.slice(liveReplies.length) : guide.quickReplies;
    fields.push({
      field: 'quick_replies',
      ...(live === undefined ? {} : { before: [...liveReplies] }),
      after: [...guide.quickReplies],
    });
  }
  let clearWelcome = false;
  let setWelcome = false;
  if (guide.welcome !== undefined && !sameWelcomeList(guide.welcome, liveWelcome)) {
    clearWelcome = guide.welcome.length === 0;
    setWelcome = guide.welcome.length > 0;
    fields.push({
      field: 'welcome',
      ...(live === undefined ? {} : { before: liveWelcome.map(messageToJson) }),
      after: guide.welcome.map(messageToJson),
    });
  }
  const id = wireGuideIdentity(guide.id);
  if (clearReplies || clearWelcome) {
    b.call(SET_GUIDE_CONFIG, {
      ...id,
      is_delete: true,
      ...(clearReplies ? { guide_fast_reply_list: [{ content: liveReplies[0] ?? '' }] } : {}),
      ...(clearWelcome ? { guide_auto_reply: { msgtype: 1 } } : {}),
    });
  }
  // Quick replies are appended, so a long list goes in runs well under the request limit, in order
  // (each call waits for the one before it on the guide's lane); the welcome rides with the first.
  const bodies: CallBody[] = splitByBytes(addReplies.map((content) => ({ content }))).map((run) => ({
    ...id,
    is_delete: false,
    guide_fast_reply_list: run,
  }));
  if (setWelcome) {
    const welcome = welcomeBody(guide.welcome ?? []);
    const [first] = bodies;
    if (first !== undefined && jsonBytes(first) + jsonBytes(welcome) <= APPEND_BUDGET_BYTES)
      bodies[0] = { ...first, ...welcome };
    else bodies.push({ ...id, is_delete: false, ...welcome });
  }
  for (const body of bodies) {
    const tooLarge = checkBodySize(
      body,
      guide.source,
      `the ${SET_GUIDE_CONFIG.operation} request of guide ${describeGuideId(guide.id)} (a quick reply or its welcome messages)`,
      'one quick reply or one welcome message this long cannot be sent in a request: shorten it',
    );
    if (tooLarge !== undefined) errors.push(tooLarge);
    b.call(SET_GUIDE_CONFIG, body);
  }
}

/** The wire keys of up to two welcome messages, as one configuration body holds them. */
export function welcomeBody(messages: readonly WelcomeMessage[]): Record<string, JsonValue> {
  const [first, second] = messages;
  return {
    ...(first === undefined ? {} : { guide_auto_reply: welcomeToWire(first) }),
    ...(second === undefined ? {} : { guide_auto_reply_plus: welcomeToWire(second) }),
  };
}
