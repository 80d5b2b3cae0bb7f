import { describe, expect, it } from 'vitest';
import type { DesiredGuide, DesiredState } from '../../src/core/desired.js';
import type { LiveState } from '../../src/core/live.js';
import { planChanges } from '../../src/plan/index.js';
import { planToJson } from '../../src/report/plan.js';
import { stringifyJson } from '../../src/wire/json.js';

const source = { file: 'f.yaml', line: 1, column: 1 };

function guide(account: string, extra: Partial<DesiredGuide> = {}): DesiredGuide {
  return {
    id: { kind: 'account', account },
    nickname: account,
    headImageUrl: `https://img/${account}`,
    source,
    ...extra,
  };
}

const desired: DesiredState = {
  guides: [
    guide('carol_wx', { quickReplies: ['a', 'b', 'c'] }),
    guide('alice_wx', { welcome: [{ type: 'text', text: 'Hi' }] }),
    guide('bob_wxx', { nickname: 'Bobby' }),
    {
      id: { kind: 'openid', openid: 'oNew' },
      nickname: 'O',
      headImageUrl: 'https://img/o',
      quickReplies: ['x'],
      source,
    },
  ],
  groups: [
    { name: 'Zeta', members: ['alice_wx', 'carol_wx'], source },
    { name: 'Alpha', members: ['bob_wxx'], source },
  ],
  prune: { guides: true, groups: true },
};

const live: LiveState = {
  guides: [
    { id: { kind: 'account', account: 'bob_wxx' }, nickname: 'bob_wxx', headImageUrl: 'https://img/bob_wxx' },
    {
      id: { kind: 'account', account: 'carol_wx' },
      nickname: 'carol_wx',
      headImageUrl: 'https://img/carol_wx',
      config: { quickReplies: ['a'], welcome: [] },
    },
    { id: { kind: 'account', account: 'dave_wx' }, nickname: 'dave_wx', headImageUrl: 'https://img/dave_wx' },
  ],
  groups: [
    { id: '1860131524965138433', name: 'Zeta', members: ['carol_wx', 'dave_wx'] },
    { id: '1860131524965138435', name: 'Old', members: [] },
  ],
  account: {},
};

function shuffled<T>(items: readonly T[]): T[] {
  return [...items].reverse();
}

describe('planChanges', () => {
  it('gives the same plan, byte for byte, whatever the order of the files and of the live lists', () => {
    const a = planChanges(desired, live).plan;
    const b = planChanges(
      { ...desired, guides: shuffled(desired.guides), groups: shuffled(desired.groups) },
      { ...live, guides: shuffled(live.guides), groups: shuffled(live.groups) },
    ).plan;
    expect(a).toBeDefined();
    expect(stringifyJson(planToJson(b!))).toBe(stringifyJson(planToJson(a!)));
  });

  it('orders calls: groups created, guides, configuration, memberships, deletions; each call after what it needs', () => {
    const plan = planChanges(desired, live).plan!;
    expect(
      plan.calls.map((c) => [
        c.operation,
        c.body['guide_account'] ?? c.body['guide_openid'] ?? c.body['group_name'] ?? c.body['group_id'],
      ]),
    ).toEqual([
      ['newguidegroup', 'Alpha'],
      ['addguideacct', 'alice_wx'],
      ['updateguideacct', 'bob_wxx'],
      ['addguideacct', 'oNew'],
      ['setguideconfig', 'alice_wx'],
      ['setguideconfig', 'carol_wx'],
      ['setguideconfig', 'oNew'],
      ['addguide2guidegroup', 'bob_wxx'],
      ['addguide2guidegroup', 'alice_wx'],
      ['delguideacct', 'dave_wx'],
      ['delguidegroup', '1860131524965138435'],
    ]);
    // carol's replies: the live list is a prefix, so only the tail is appended.
    expect(plan.calls[5]?.body['guide_fast_reply_list']).toEqual([{ content: 'b' }, { content: 'c' }]);
    // Each call depends only on earlier ones: config on the guide's add, a membership on the
    // group's creation and the guide's add.
    for (const [i, call] of plan.calls.entries()) for (const d of call.dependsOn) expect(d).toBeLessThan(i);
    expect(plan.calls[4]?.dependsOn).toEqual([1]);
    expect(plan.calls[7]?.dependsOn).toEqual([0]);
    expect(plan.calls[8]?.dependsOn).toEqual([1]);
    // dave is deleted, so his membership of Zeta needs no removal of its own.
    expect(plan.calls.some((c) => c.operation === 'delguide2guidegroup')).toBe(false);
    expect(plan.calls[7]?.body['group_id']).toEqual({ $group: 'Alpha' });
    expect(plan.calls[8]?.body['group_id']).toBe('1860131524965138433');
    expect(plan.summary).toEqual({ add: 3, change: 3, delete: 2, calls: 11 });
  });

  it('plans nothing when the live state matches, and lists what it leaves alone without prune', () => {
    const same: DesiredState = {
      guides: [guide('bob_wxx')],
      groups: [],
      prune: { guides: false, groups: false },
    };
    const plan = planChanges(same, live).plan!;
    expect(plan.calls).toEqual([]);
    expect(plan.unmanaged).toEqual([
      { resource: 'guide', address: 'carol_wx' },
      { resource: 'guide', address: 'dave_wx' },
      { resource: 'group', address: 'Old' },
      { resource: 'group', address: 'Zeta' },
    ]);
  });
});
