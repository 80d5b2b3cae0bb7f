// A second implementation of the tests' model of the account (test/helpers/live-model.ts), written
// apart from the write effects in src/kinds: test/kinds/effects.test.ts checks the two agree on
// every plan of the property generator. Not used by anything else.
import { type GuideId, guideKey } from '../../../src/core/desired.js';
import type { LiveGroup, LiveGuide, LiveState, LiveWelcome } from '../../../src/core/live.js';
import {
  type CallBody,
  type GroupRef,
  isGroupRef,
  type JsonValue,
  type Plan,
} from '../../../src/core/plan-data.js';
import { toWelcome } from '../../../src/kinds/kind.js';

/**
 * A model of the account that interprets a plan's calls as the guide service does (see
 * src/service/ops): small enough to check by reading, strict enough to catch a plan that could not
 * run. A call the account could not take (a guide added twice, a member removed who is not one, a
 * group id no one made) throws; so does a call that would change nothing — a plan makes no call
 * for what already matches.
 */

interface ModelGuide {
  id: GuideId;
  nickname: string;
  headImageUrl: string;
  quickReplies: string[];
  welcome: LiveWelcome[];
}

interface ModelGroup {
  id: string;
  name: string;
  members: string[];
}

interface Model {
  guides: Map<string, ModelGuide>;
  groups: ModelGroup[];
  offlineAutoReply: string | null;
  sensitiveWords: string[];
  defaultWelcome: LiveWelcome[];
  created: Map<string, string>;
  nextId: bigint;
}

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

function toModel(live: LiveState): Model {
  const full = fullLive(live);
  return {
    guides: new Map(
      full.guides.map((g) => [
        guideKey(g.id),
        {
          id: g.id,
          nickname: g.nickname,
          headImageUrl: g.headImageUrl,
          quickReplies: [...(g.config?.quickReplies ?? [])],
          welcome: [...(g.config?.welcome ?? [])],
        },
      ]),
    ),
    groups: full.groups.map((g) => ({ id: g.id, name: g.name, members: [...(g.members ?? [])] })),
    offlineAutoReply: full.account.offlineAutoReply ?? null,
    sensitiveWords: [...(full.account.sensitiveWords ?? [])],
    defaultWelcome: [...(full.account.defaultWelcome ?? [])],
    created: new Map(),
    nextId: 9_000_000_000_000_000_000n,
  };
}

function fromModel(model: Model): LiveState {
  return {
    guides: [...model.guides.values()].map(
      (g): LiveGuide => ({
        id: g.id,
        nickname: g.nickname,
        headImageUrl: g.headImageUrl,
        config: { quickReplies: [...g.quickReplies], welcome: [...g.welcome] },
      }),
    ),
    groups: model.groups.map((g): LiveGroup => ({ id: g.id, name: g.name, members: [...g.members] })),
    account: {
      offlineAutoReply: model.offlineAutoReply,
      sensitiveWords: [...model.sensitiveWords],
      defaultWelcome: [...model.defaultWelcome],
    },
  };
}

const str = (body: CallBody, key: string): string | undefined => {
  const value = body[key];
  return typeof value === 'string' ? value : undefined;
};

function obj(value: JsonValue | GroupRef | undefined): Record<string, JsonValue> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, JsonValue>)
    : undefined;
}

function guideOf(model: Model, body: CallBody): ModelGuide | undefined {
  const account = str(body, 'guide_account');
  const openid = str(body, 'guide_openid');
  const id: GuideId | undefined =
    account !== undefined
      ? { kind: 'account', account }
      : openid !== undefined
        ? { kind: 'openid', openid }
        : undefined;
  if (id === undefined) return undefined;
  const guide = model.guides.get(guideKey(id));
  if (guide === undefined) throw new Error(`no such guide: ${guideKey(id)}`);
  return guide;
}

function groupOf(model: Model, body: CallBody): ModelGroup {
  const value = body['group_id'];
  const id = isGroupRef(value)
    ? model.created.get(value.$group)
    : typeof value === 'string'
      ? value
      : undefined;
  const group = model.groups.find((g) => g.id === id);
  if (group === undefined) throw new Error(`no such group: ${JSON.stringify(value)}`);
  return group;
}

function welcomeOf(value: JsonValue | GroupRef | undefined): LiveWelcome | undefined {
  const reply = obj(value);
  if (reply === undefined) return undefined;
  const { msgtype, content } = reply;
  if ((msgtype !== 1 && msgtype !== 2 && msgtype !== 3) || typeof content !== 'string')
    throw new Error(`bad auto reply ${JSON.stringify(value)}`);
  return toWelcome({ msgtype, content });
}

function setWelcome(body: CallBody, isDelete: boolean): LiveWelcome[] | undefined {
  if (body['guide_auto_reply'] === undefined) return undefined;
  if (isDelete) return [];
  const first = welcomeOf(body['guide_auto_reply']);
  const second = welcomeOf(body['guide_auto_reply_plus']);
  return [first, second].filter((w) => w !== undefined);
}

function setGuideConfig(model: Model, body: CallBody): void {
  const isDelete = body['is_delete'] === true;
  const guide = guideOf(model, body);
  const replies = body['guide_fast_reply_list'];
  if (Array.isArray(replies)) {
    if (guide === undefined) throw new Error('quick replies without a guide');
    if (isDelete) guide.quickReplies = [];
    else {
      if (replies.length === 0) throw new Error('an empty quick-reply append');
      for (const r of replies) guide.quickReplies.push(String(obj(r)?.['content']));
    }
  }
  const welcome = setWelcome(body, isDelete);
  if (welcome === undefined) return;
  if (guide === undefined) model.defaultWelcome = welcome;
  else guide.welcome = welcome;
}

function setAccountConfig(model: Model, body: CallBody, semantics: Plan['sensitiveWordSemantics']): void {
  const isDelete = body['is_delete'] === true;
  const reply = obj(body['guide_auto_reply']);
  if (reply !== undefined) model.offlineAutoReply = isDelete ? null : String(reply['content']);
  const words = obj(body['black_keyword'])?.['values'];
  if (!Array.isArray(words)) return;
  const given = words.map(String);
  if (isDelete) model.sensitiveWords = model.sensitiveWords.filter((w) => !given.includes(w));
  else {
    if (semantics === 'replace') model.sensitiveWords = [];
    for (const w of given) if (!model.sensitiveWords.includes(w)) model.sensitiveWords.push(w);
  }
}

function member(model: Model, body: CallBody): { group: ModelGroup; account: string } {
  const group = groupOf(model, body);
  const account = str(body, 'guide_account') ?? '';
  if (!model.guides.has(guideKey({ kind: 'account', account }))) throw new Error(`no such guide: ${account}`);
  return { group, account };
}

function applyCall(model: Model, plan: Plan, index: number): void {
  const call = plan.calls[index];
  if (call === undefined) throw new Error(`no call ${index}`);
  const body = call.body;
  switch (call.operation) {
    case 'newguidegroup': {
      const id = String(model.nextId++);
      model.groups.push({ id, name: str(body, 'group_name') ?? '', members: [] });
      if (call.createsGroup !== undefined) model.created.set(call.createsGroup, id);
      return;
    }
    case 'addguideacct': {
      const account = str(body, 'guide_account');
      const id: GuideId =
        account !== undefined
          ? { kind: 'account', account }
          : { kind: 'openid', openid: str(body, 'guide_openid') ?? '' };
      if (model.guides.has(guideKey(id))) throw new Error(`guide added twice: ${guideKey(id)}`);
      model.guides.set(guideKey(id), {
        id,
        nickname: str(body, 'guide_nickname') ?? '',
        headImageUrl: str(body, 'guide_headimgurl') ?? '',
        quickReplies: [],
        welcome: [],
      });
      return;
    }
    case 'updateguideacct': {
      const guide = guideOf(model, body);
      if (guide === undefined) throw new Error('update without a guide');
      guide.nickname = str(body, 'guide_nickname') ?? guide.nickname;
      guide.headImageUrl = str(body, 'guide_headimgurl') ?? guide.headImageUrl;
      return;
    }
    case 'delguideacct': {
      const guide = guideOf(model, body);
      if (guide === undefined) throw new Error('delete without a guide');
      model.guides.delete(guideKey(guide.id));
      if (guide.id.kind === 'account') {
        const account = guide.id.account;
        for (const g of model.groups) g.members = g.members.filter((m) => m !== account);
      }
      return;
    }
    case 'setguideconfig':
      setGuideConfig(model, body);
      return;
    case 'setguideacctconfig':
      setAccountConfig(model, body, plan.sensitiveWordSemantics);
      return;
    case 'addguide2guidegroup': {
      const { group, account } = member(model, body);
      if (group.members.includes(account)) throw new Error(`${account} is already a member of ${group.name}`);
      group.members.push(account);
      return;
    }
    case 'delguide2guidegroup': {
      const { group, account } = member(model, body);
      if (!group.members.includes(account)) throw new Error(`${account} is not a member of ${group.name}`);
      group.members = group.members.filter((m) => m !== account);
      return;
    }
    case 'delguidegroup': {
      const group = groupOf(model, body);
      model.groups = model.groups.filter((g) => g !== group);
      return;
    }
    default:
      throw new Error(`the model does not know ${call.operation}`);
  }
}

/**
 * What a model holds, as text: a call that changes nothing leaves it equal (assignments keep the
 * order of keys), a call that changes anything does not.
 */
function snapshot(model: Model): string {
  const { guides, groups, offlineAutoReply, sensitiveWords, defaultWelcome } = model;
  return JSON.stringify([[...guides.entries()], groups, offlineAutoReply, sensitiveWords, defaultWelcome]);
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
  const model = toModel(live);
  const done = new Set<number>();
  while (done.size < plan.calls.length) {
    const ready = plan.calls.flatMap((call, i) =>
      !done.has(i) && call.dependsOn.every((d) => done.has(d)) ? [i] : [],
    );
    if (ready.length === 0) throw new Error('the dependencies of the plan form a cycle');
    const index = next(ready);
    const before = snapshot(model);
    try {
      applyCall(model, plan, index);
    } catch (error) {
      throw new Error(`call ${index} (${plan.calls[index]?.operation}): ${String(error)}`);
    }
    if (snapshot(model) === before)
      throw new Error(`call ${index} (${plan.calls[index]?.operation}) changes nothing`);
    done.add(index);
  }
  return fromModel(model);
}
