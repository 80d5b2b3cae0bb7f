import { describe, expect, it } from 'vitest';
import { type DesiredState, describeGuideId, guideKey } from '../../src/core/desired.js';
import type { Diagnostic } from '../../src/core/diagnostics.js';
import type { LiveReadScope, LiveState } from '../../src/core/live.js';
import type { Plan } from '../../src/core/plan-data.js';
import { READ_EVERYTHING, readScopeFor } from '../../src/live/index.js';
import {
  canonicalJson,
  checkProtection,
  countDeletes,
  planBasis,
  planChanges,
  planId,
  sameWelcomeList,
} from '../../src/plan/index.js';
import { planToJson } from '../../src/report/plan.js';
import { stringifyJson } from '../../src/wire/json.js';
import { applyToModel, fullLive } from '../helpers/live-model.js';
import { type Case, desiredFromLive, Random, randomCase, shuffledCase } from '../helpers/random-states.js';

// Properties of the planner over a few hundred random desired/live pairs from a seeded generator
// (the same cases on every run). A failure names its seed: `randomCase(seed)` gives the pair back.

const CASES = Array.from({ length: 200 }, (_, i) => randomCase(i + 1));

/** The plan as machines see it, with its id: equal texts are the same plan, byte for byte. */
function planText(desired: DesiredState, live: LiveState): string {
  const { plan, diagnostics } = planChanges(desired, live);
  const sortedDiagnostics = diagnostics.map((d) => `${d.severity} ${d.code} ${d.message}`).sort();
  if (plan === undefined) return canonicalJson({ diagnostics: sortedDiagnostics });
  const id = planId(plan, planBasis(desired, live, READ_EVERYTHING));
  const protection = checkProtection(desired, live, plan).map((d) => `${d.code} ${d.message}`);
  return canonicalJson({ plan: planToJson(plan, { planId: id }), sortedDiagnostics, protection });
}

const plans = new Map<Case, Plan | undefined>();
const results = new Map<Case, LiveState>();

/** The plan of a case, or undefined when it has plan errors. */
function planOfCase(c: Case): Plan | undefined {
  if (!plans.has(c)) plans.set(c, planChanges(c.desired, c.live).plan);
  return plans.get(c);
}

/** The account after the plan of a case is run in plan order. */
function resultOf(c: Case, plan: Plan): LiveState {
  const known = results.get(c);
  if (known !== undefined) return known;
  const after = applyToModel(c.live, plan);
  results.set(c, after);
  return after;
}

const errors = (diagnostics: readonly Diagnostic[]): Diagnostic[] =>
  diagnostics.filter((d) => d.severity === 'error');

function fail(c: Case, message: string): never {
  throw new Error(`seed ${c.seed}: ${message}`);
}

describe('planner properties over random desired/live pairs', () => {
  it('the generator reaches every step: creations, updates, deletions, copies, plan errors', () => {
    const all = CASES.map(planOfCase);
    const ops = new Set(all.flatMap((p) => p?.calls.map((c) => c.operation) ?? []));
    expect([...ops].sort()).toEqual([
      'addguide2guidegroup',
      'addguideacct',
      'delguide2guidegroup',
      'delguideacct',
      'delguidegroup',
      'newguidegroup',
      'setguideacctconfig',
      'setguideconfig',
      'updateguideacct',
    ]);
    const withPlan = all.filter((p) => p !== undefined).length;
    // Most cases plan; some have member errors, so that those are covered too.
    expect(withPlan).toBeGreaterThan(CASES.length * 0.6);
    expect(withPlan).toBeLessThan(CASES.length);
    const copies = CASES.filter((c) =>
      planChanges(c.desired, c.live).diagnostics.some((d) => d.code === 'group-live-duplicates'),
    );
    expect(copies.length).toBeGreaterThan(10);
  });

  it('(a) any order of guides, groups, members and words gives the same plan and plan id', () => {
    for (const c of CASES) {
      const expected = planText(c.desired, c.live);
      const r = new Random(c.seed);
      for (let i = 0; i < 2; i++) {
        const shuffled = shuffledCase(c, r);
        if (planText(shuffled.desired, shuffled.live) !== expected) fail(c, `shuffle ${i} plans otherwise`);
      }
    }
  });

  it('(b) the plan, run in plan order or any order its dependencies allow, converges: planning again makes no call', () => {
    let checked = 0;
    for (const c of CASES) {
      const plan = planOfCase(c);
      if (plan === undefined) continue;
      const r = new Random(c.seed);
      for (const order of ['plan order', 'random order'] as const) {
        const after =
          order === 'plan order' ? resultOf(c, plan) : applyToModel(c.live, plan, (ready) => r.pick(ready));
        const again = planChanges(c.desired, after);
        if (again.plan === undefined)
          fail(c, `${order}: the plan again fails: ${again.diagnostics[0]?.message}`);
        if (again.plan.calls.length > 0 || again.plan.changes.length > 0)
          fail(c, `${order}: planning again makes ${stringifyJson(planToJson(again.plan)['calls'])}`);
        expect(errors(again.diagnostics)).toEqual([]);
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(CASES.length * 0.6);
  });

  it('(c) no call for what already matches: a file written from the account plans nothing', () => {
    for (const c of CASES) {
      const live = fullLive(c.live);
      const desired = desiredFromLive(live, c.desired.prune);
      const plan = planChanges(desired, live);
      if (plan.plan === undefined) fail(c, `no plan: ${plan.diagnostics[0]?.message}`);
      // Only two live groups of one name differ from any file: the copy is merged and deleted.
      const copies = new Set(live.groups.map((g) => g.name)).size < live.groups.length;
      if (!copies) expect(plan.plan.calls, `seed ${c.seed}`).toEqual([]);
      else expect(plan.plan.calls.every((call) => /guidegroup$/.test(call.operation))).toBe(true);
    }
  });

  it('(c) no call names a guide, group or account setting that already matches', () => {
    // applyToModel also refuses any call that leaves the account as it was ((b) ran every plan).
    let matched = 0;
    for (const c of CASES) {
      const plan = planOfCase(c);
      if (plan === undefined) continue;
      const live = fullLive(c.live);
      for (const name of alreadyMatching(c.desired, live)) {
        matched++;
        const call = plan.calls.find((x) => subjectOf(x) === name);
        if (call !== undefined) fail(c, `${call.operation} names ${name}, which already matches`);
      }
    }
    expect(matched).toBeGreaterThan(CASES.length / 4);
  });

  it('(d) without prune nothing is deleted but the copies of declared groups; the guard counts what goes', () => {
    for (const c of CASES) {
      const plan = planOfCase(c);
      if (plan === undefined) continue;
      const before = fullLive(c.live);
      const after = resultOf(c, plan);
      const keys = new Set(after.guides.map((g) => guideKey(g.id)));
      const ids = new Set(after.groups.map((g) => g.id));
      const goneGuides = before.guides.filter((g) => !keys.has(guideKey(g.id)));
      const goneGroups = before.groups.filter((g) => !ids.has(g.id));
      const declared = new Set(c.desired.groups.map((g) => g.name));
      if (!c.desired.prune.guides && goneGuides.length > 0) fail(c, 'a guide was deleted without prune');
      for (const g of goneGroups)
        if (!c.desired.prune.groups && !declared.has(g.name))
          fail(c, `group ${g.name} deleted without prune`);
      // Memberships removed from groups that stay, of guides that stay.
      const removed = before.groups.flatMap((g) => {
        const now = after.groups.find((x) => x.id === g.id);
        if (now === undefined) return [];
        return (g.members ?? []).filter(
          (m) => keys.has(guideKey({ kind: 'account', account: m })) && !(now.members ?? []).includes(m),
        );
      });
      // List entries, by the model: words no longer in the set; how much shorter the quick
      // replies and welcome messages of each guide that stays (and the default welcome) end.
      const shorter = (a: number, b: number): number => Math.max(0, a - b);
      const wordsAfter = new Set(after.account.sensitiveWords ?? []);
      let quickReplies = 0;
      let welcome = shorter(
        c.live.account.defaultWelcome?.length ?? 0,
        after.account.defaultWelcome?.length ?? 0,
      );
      for (const g of c.live.guides) {
        const now = after.guides.find((x) => guideKey(x.id) === guideKey(g.id));
        if (g.config === undefined || now === undefined) continue;
        quickReplies += shorter(g.config.quickReplies.length, now.config?.quickReplies.length ?? 0);
        welcome += shorter(g.config.welcome.length, now.config?.welcome.length ?? 0);
      }
      const hadReply = (c.live.account.offlineAutoReply ?? '') !== '';
      expect(countDeletes(plan, c.live), `seed ${c.seed}`).toEqual({
        guides: goneGuides.length,
        groups: goneGroups.length,
        memberships: removed.length,
        tasks: 0,
        words: new Set((c.live.account.sensitiveWords ?? []).filter((w) => !wordsAfter.has(w))).size,
        quick_replies: quickReplies,
        welcome_messages: welcome,
        offline_replies: hadReply && (after.account.offlineAutoReply ?? '') === '' ? 1 : 0,
      });
    }
  });

  it('(d) protection: checkProtection objects exactly when a protected guide, membership or group would go', () => {
    let objected = 0;
    for (const c of CASES) {
      const plan = planOfCase(c);
      if (plan === undefined || c.desired.protect === undefined) continue;
      const found = checkProtection(c.desired, c.live, plan);
      const lost = protectedLosses(c, resultOf(c, plan));
      const said = new Set(errors(found).map((d) => `${d.code} ${nameIn(d.message)}`));
      expect([...said].sort(), `seed ${c.seed}`).toEqual([...lost].sort());
      if (said.size > 0) objected++;
    }
    expect(objected).toBeGreaterThan(5);
  });

  it('reading only what the files manage (readScopeFor) gives the same calls as reading everything', () => {
    for (const c of CASES) {
      const full = planChanges(c.desired, fullLive(c.live));
      const scoped = planChanges(c.desired, liveInScope(fullLive(c.live), readScopeFor(c.desired)));
      const calls = (p: Plan | undefined) => canonicalJson(p?.calls ?? null);
      if (calls(scoped.plan) !== calls(full.plan))
        fail(c, 'the calls depend on what was read beyond the scope');
    }
  });

  it('plan errors: a member that is neither declared nor live, or live but pruned, and nothing else', () => {
    let seen = 0;
    for (const c of CASES) {
      const result = planChanges(c.desired, c.live);
      const declared = new Set(
        c.desired.guides.flatMap((g) => (g.id.kind === 'account' ? [g.id.account] : [])),
      );
      const live = new Set(c.live.guides.flatMap((g) => (g.id.kind === 'account' ? [g.id.account] : [])));
      const expected = c.desired.groups.flatMap((g) =>
        (g.members ?? []).flatMap((m) =>
          declared.has(m)
            ? []
            : !live.has(m)
              ? [`member-not-found ${m} ${g.name}`]
              : c.desired.prune.guides
                ? [`member-would-be-pruned ${m} ${g.name}`]
                : [],
        ),
      );
      const said = errors(result.diagnostics).map(
        (d) => `${d.code} ${/member "([^"]+)" of group "([^"]+)"/.exec(d.message)?.slice(1).join(' ')}`,
      );
      expect(said.sort(), `seed ${c.seed}`).toEqual(expected.sort());
      expect(result.plan === undefined, `seed ${c.seed}`).toBe(expected.length > 0);
      if (expected.some((e) => e.startsWith('member-would-be-pruned'))) seen++;
    }
    expect(seen).toBeGreaterThan(0);
  });
});

/**
 * Whom a call is about: `guide account:x` for a guide's own calls (not its memberships),
 * `group <id>` for a group's creation, deletion and memberships, `account` for account settings.
 */
function subjectOf(call: Plan['calls'][number]): string {
  const { body, operation } = call;
  if (operation.includes('guidegroup')) {
    const id = body['group_id'];
    return `group ${typeof id === 'string' ? id : stringifyJson(id ?? body['group_name'])}`;
  }
  const account = body['guide_account'];
  const openid = body['guide_openid'];
  if (typeof account === 'string') return `guide ${guideKey({ kind: 'account', account })}`;
  if (typeof openid === 'string') return `guide ${guideKey({ kind: 'openid', openid })}`;
  return 'account';
}

/** The subjects (as {@link subjectOf} names them) that the files manage and that already match. */
function alreadyMatching(desired: DesiredState, live: LiveState): string[] {
  const same = (a: unknown, b: unknown): boolean => stringifyJson(a) === stringifyJson(b);
  const out: string[] = [];
  for (const guide of desired.guides) {
    const current = live.guides.find((g) => guideKey(g.id) === guideKey(guide.id));
    if (
      current !== undefined &&
      current.nickname === guide.nickname &&
      current.headImageUrl === guide.headImageUrl &&
      (guide.quickReplies === undefined || same(guide.quickReplies, current.config?.quickReplies)) &&
      (guide.welcome === undefined || sameWelcomeList(guide.welcome, current.config?.welcome ?? []))
    )
      out.push(`guide ${guideKey(guide.id)}`);
  }
  for (const group of desired.groups) {
    const copies = live.groups.filter((g) => g.name === group.name);
    const [current] = copies;
    if (copies.length !== 1 || current === undefined) continue;
    const members = [...(current.members ?? [])].sort();
    if (group.members === undefined || same([...group.members].sort(), members))
      out.push(`group ${current.id}`);
  }
  const account = desired.account;
  if (
    account !== undefined &&
    (account.offlineAutoReply === undefined || account.offlineAutoReply === live.account.offlineAutoReply) &&
    (account.sensitiveWords === undefined ||
      same(account.sensitiveWords.words, [...(live.account.sensitiveWords ?? [])].sort())) &&
    (account.defaultWelcome === undefined ||
      sameWelcomeList(account.defaultWelcome, live.account.defaultWelcome ?? []))
  )
    out.push('account');
  return out;
}

/** `guide x is protected` → x; `group "N" is protected` → N. */
function nameIn(message: string): string {
  return (
    /^guide (\S+(?: \S+)?) is protected|^group "([^"]+)"/.exec(message)?.slice(1).find(Boolean) ?? message
  );
}

/**
 * What the run of the plan took away of what the files protect, as checkProtection would say it:
 * a protected guide deleted, a protected guide (still there) no longer in a group of a name it was
 * in, a protected group's name gone.
 */
function protectedLosses(c: Case, after: LiveState): Set<string> {
  const protect = c.desired.protect;
  const lost = new Set<string>();
  if (protect === undefined) return lost;
  const before = fullLive(c.live);
  const keysAfter = new Set(after.guides.map((g) => guideKey(g.id)));
  for (const { id } of protect.guides) {
    const key = guideKey(id);
    if (!before.guides.some((g) => guideKey(g.id) === key)) continue;
    if (!keysAfter.has(key)) {
      lost.add(`protected-guide-delete ${describeGuideId(id)}`);
      continue;
    }
    if (id.kind !== 'account') continue;
    for (const group of before.groups) {
      if (!(group.members ?? []).includes(id.account)) continue;
      const kept = after.groups.some((g) => g.name === group.name && (g.members ?? []).includes(id.account));
      if (!kept) lost.add(`protected-member-remove ${id.account}`);
    }
  }
  for (const { name } of protect.groups) {
    const wasLive = before.groups.some((g) => g.name === name);
    if (wasLive && !after.groups.some((g) => g.name === name)) lost.add(`protected-group-delete ${name}`);
  }
  return lost;
}

/** What readLiveState reads of `live` with `scope`: groups that share a name are read whole. */
function liveInScope(live: LiveState, scope: LiveReadScope): LiveState {
  const has = (set: ReadonlySet<string> | 'all', key: string): boolean => set === 'all' || set.has(key);
  const shared = (name: string): boolean => live.groups.filter((g) => g.name === name).length > 1;
  const { offlineAutoReply, sensitiveWords, defaultWelcome } = live.account;
  return {
    guides: live.guides.map(({ config, ...g }) =>
      has(scope.guideConfigs, guideKey(g.id)) && config !== undefined ? { ...g, config } : g,
    ),
    groups: live.groups.map(({ members, ...g }) =>
      (has(scope.groupMembers, g.name) || shared(g.name)) && members !== undefined ? { ...g, members } : g,
    ),
    account: {
      ...(scope.offlineAutoReply && offlineAutoReply !== undefined ? { offlineAutoReply } : {}),
      ...(scope.sensitiveWords && sensitiveWords !== undefined ? { sensitiveWords } : {}),
      ...(scope.defaultWelcome && defaultWelcome !== undefined ? { defaultWelcome } : {}),
    },
  };
}
