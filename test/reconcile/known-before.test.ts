import { describe, expect, it } from 'vitest';
import { appendsKnownBefore } from '../../src/apply/execute-plan.js';
import type { DesiredGuide, DesiredState } from '../../src/core/desired.js';
import type { LiveState } from '../../src/core/live.js';
import { planChanges } from '../../src/plan/index.js';

// Apply hands the client what the plan knew before each append, so that a lost answer is settled
// by one read after it: these are the states it hands over.

const source = { file: 'f.yaml', line: 1, column: 1 };

function guide(account: string, quickReplies: string[]): DesiredGuide {
  return {
    id: { kind: 'account', account },
    nickname: account,
    headImageUrl: `https://img.example/${account}`,
    quickReplies,
    source,
  };
}

function live(replies: Record<string, string[]>): LiveState {
  return {
    guides: Object.entries(replies).map(([account, quickReplies]) => ({
      id: { kind: 'account', account },
      nickname: account,
      headImageUrl: `https://img.example/${account}`,
      config: { quickReplies, welcome: [] },
    })),
    groups: [],
    account: {},
  };
}

describe('what apply knows before each append', () => {
  it('a new group: none of its name; quick replies: the live list, or nothing after a delete-all', () => {
    const desired: DesiredState = {
      guides: [
        guide('prefix_wx', ['a', 'b', 'c']),
        guide('replace_wx', ['x', 'y']),
        guide('fresh_wx', ['one']),
      ],
      groups: [{ name: 'Flagship', members: ['prefix_wx'], source }],
      prune: { guides: false, groups: false },
    };
    const plan = planChanges(desired, live({ prefix_wx: ['a', 'b'], replace_wx: ['old'] })).plan;
    if (plan === undefined) throw new Error('no plan');
    const known = appendsKnownBefore(plan);
    const byCall = plan.calls.flatMap((call, index) => {
      const before = known.get(index);
      const who = String(call.body['guide_account'] ?? call.body['group_name']);
      return before === undefined ? [] : [[call.operation, who, before]];
    });
    expect(byCall).toEqual([
      ['newguidegroup', 'Flagship', []],
      ['setguideconfig', 'fresh_wx', []],
      ['setguideconfig', 'prefix_wx', ['a', 'b']],
      ['setguideconfig', 'replace_wx', []],
    ]);
  });
});
