import { describe, expect, it } from 'vitest';
import type { DeleteKind, DesiredState } from '../../src/core/desired.js';
import type { LiveState } from '../../src/core/live.js';
import type { DeleteCounts } from '../../src/core/safety.js';
import {
  checkDeleteGuards,
  checkProtection,
  countDeletes,
  countLive,
  isRefused,
  planChanges,
  resolveGuardPolicy,
} from '../../src/plan/index.js';
import { allowDeleteFlag, guardMessage } from '../../src/report/plan.js';
import { savedPlanNotice } from '../../src/report/plan-output.js';
import { deleteCounts } from '../helpers/plan-builder.js';

const counts = (kind: DeleteKind, n: number): DeleteCounts => deleteCounts({ [kind]: n });

const KINDS: DeleteKind[] = ['guides', 'groups', 'memberships'];

function guard(kind: DeleteKind, deletes: number, live: number, flags = {}, safety?: DesiredState['safety']) {
  const results = checkDeleteGuards(
    counts(kind, deletes),
    counts(kind, live),
    resolveGuardPolicy(safety, flags),
  );
  const result = results.find((r) => r.kind === kind);
  if (result === undefined) throw new Error('no result');
  return result;
}

describe('deletion guards', () => {
  it.each(KINDS)('%s: 10 of 40 live passes (the threshold), 11 is refused', (kind) => {
    expect(guard(kind, 10, 40)).toMatchObject({ status: 'ok', threshold: 10, limit: 10 });
    expect(guard(kind, 11, 40)).toMatchObject({ status: 'refused', threshold: 10 });
  });

  it.each(KINDS)('%s: 25%% of live when that is smaller: 5 of 20 passes, 6 is refused', (kind) => {
    expect(guard(kind, 5, 20)).toMatchObject({ status: 'ok', threshold: 5 });
    expect(guard(kind, 6, 20)).toMatchObject({ status: 'refused', threshold: 5 });
  });

  it.each(KINDS)('%s: 10 when that is smaller: 10 of 1,000 passes, 11 is refused', (kind) => {
    expect(guard(kind, 10, 1000).status).toBe('ok');
    expect(guard(kind, 11, 1000).status).toBe('refused');
  });

  it('a single deletion is never a mass deletion: 1 of 2 passes, 2 of 2 is refused', () => {
    expect(guard('guides', 1, 2)).toMatchObject({ status: 'ok', threshold: 1, shareLimit: 1 });
    expect(guard('guides', 2, 2).status).toBe('refused');
    expect(guard('groups', 0, 0).status).toBe('ok');
  });

  it.each(KINDS)('--allow-delete %s=12 lets exactly 12 through, not 13', (kind) => {
    const allow = { allowDelete: { [kind]: 12 } };
    expect(guard(kind, 12, 40, allow)).toMatchObject({ status: 'allowed', limit: 12, threshold: 10 });
    expect(guard(kind, 13, 40, allow)).toMatchObject({ status: 'refused', limit: 12 });
    expect(guard(kind, 3, 40, allow).status).toBe('ok');
  });

  it('an allowance is scoped: it does not lift the guard of another kind', () => {
    const results = checkDeleteGuards(
      deleteCounts({ guides: 12, groups: 12 }),
      deleteCounts({ guides: 40, groups: 40 }),
      resolveGuardPolicy(undefined, { allowDelete: { guides: 12 } }),
    );
    expect(results.map((r) => [r.kind, r.status])).toEqual([
      ['guides', 'allowed'],
      ['groups', 'refused'],
      ['memberships', 'ok'],
      ['tasks', 'ok'],
      ['words', 'ok'],
      ['quick_replies', 'ok'],
      ['welcome_messages', 'ok'],
      ['offline_replies', 'ok'],
    ]);
    expect(isRefused(results)).toBe(true);
  });

  it('the file sets the limits, flags override the file', () => {
    const safety = {
      maxDeletes: { guides: 20 },
      maxDeleteShare: 0.5,
      source: { file: 'f', line: 1, column: 1 },
    };
    expect(guard('guides', 20, 40, {}, safety)).toMatchObject({ status: 'ok', threshold: 20 });
    expect(guard('guides', 21, 40, {}, safety).status).toBe('refused');
    expect(guard('groups', 11, 40, {}, safety).status).toBe('refused');
    const flagged = guard('guides', 20, 40, { maxDeletes: { guides: 5 } }, safety);
    expect(flagged).toMatchObject({
      status: 'refused',
      threshold: 5,
      maxDeletes: { value: 5, origin: 'flag' },
    });
    expect(guard('guides', 4, 40, { maxDeleteShare: 0.1 }, safety).status).toBe('ok');
    expect(guard('guides', 5, 40, { maxDeleteShare: 0.1 }, safety).status).toBe('refused');
    expect(guard('guides', 1, 40, { maxDeletes: { guides: 0 } }).status).toBe('refused');
  });

  it('names the counts, the limit and the exact flag that allows the deletions', () => {
    expect(guardMessage(guard('guides', 12, 40))).toBe(
      'refused: the plan deletes 12 guides (of 40 live); the limit is 10 (the smaller of 10 and 25% of live guides). To allow exactly these deletions, pass --allow-delete guides=12.',
    );
    expect(guardMessage(guard('memberships', 13, 40, { allowDelete: { memberships: 12 } }))).toBe(
      'refused: the plan deletes 13 memberships (of 40 live); --allow-delete memberships=12 allows at most 12. To allow exactly these deletions, pass --allow-delete memberships=13.',
    );
    expect(guardMessage(guard('groups', 12, 40, { allowDelete: { groups: 12 } }))).toBe(
      'allowed: the plan deletes 12 groups (of 40 live), above the limit of 10 (the smaller of 10 and 25% of live groups); --allow-delete groups=12 allows at most 12.',
    );
    expect(guardMessage(guard('guides', 2, 3))).toBe(
      'refused: the plan deletes 2 guides (of 3 live); the limit is 1 (the smaller of 10 and 25% of live guides, but at least 1). To allow exactly these deletions, pass --allow-delete guides=2.',
    );
    const safety = { maxDeletes: { guides: 20 }, source: { file: 'f', line: 1, column: 1 } };
    expect(guardMessage(guard('guides', 1, 100, { maxDeleteShare: 0.005 }, safety))).toBe(
      'ok: the plan deletes 1 guide (of 100 live); the limit is 1 (the smaller of 20 (safety.max_deletes.guides) and 0.5% (--max-delete-share 0.005) of live guides, but at least 1).',
    );
  });

  it("the refusal's fix and the command that applies a refused saved plan pass the same flag", () => {
    const refused = [guard('guides', 12, 40), guard('tasks', 3, 4, { allowDelete: { tasks: 2 } })];
    const command = savedPlanNotice('human', 'p.json', refused).text;
    for (const g of refused) {
      expect(guardMessage(g)).toContain(`pass ${allowDeleteFlag(g)}.`);
      expect(command).toContain(` ${allowDeleteFlag(g)}`);
    }
    expect(command).toContain('guidectl apply p.json --allow-delete guides=12 --allow-delete tasks=3\n');
  });
});

const src = (line: number) => ({ file: '/w/g.yaml', line, column: 5 });
const liveGuide = (account: string) => ({
  id: { kind: 'account' as const, account },
  nickname: account,
  headImageUrl: 'https://x/a',
});
const desiredGuide = (account: string, line: number) => ({ ...liveGuide(account), source: src(line) });

describe('counting on the plan', () => {
  it('counts deletions by their calls and live memberships of the groups read', () => {
    const live: LiveState = {
      guides: ['a1', 'a2', 'a3'].map(liveGuide),
      groups: [
        { id: '11', name: 'G', members: ['a1', 'a2'] },
        { id: '13', name: 'H' },
      ],
      account: {},
    };
    const desired: DesiredState = {
      guides: [desiredGuide('a1', 3)],
      groups: [{ name: 'G', members: [], source: src(1) }],
      prune: { guides: true, groups: true },
    };
    const { plan } = planChanges(desired, live);
    if (plan === undefined) throw new Error('no plan');
    expect(countDeletes(plan)).toEqual(deleteCounts({ guides: 2, groups: 1, memberships: 1 }));
    expect(countLive(live)).toEqual(deleteCounts({ guides: 3, groups: 2, memberships: 2 }));
  });
});

describe('protection', () => {
  const live: LiveState = {
    guides: ['alice_wx', 'bob_wx', 'carol_wx'].map(liveGuide),
    groups: [
      { id: '21', name: 'Flagship', members: ['alice_wx', 'bob_wx'] },
      { id: '23', name: 'Old', members: ['carol_wx'] },
    ],
    account: {},
  };
  const codes = (desired: DesiredState) => {
    const { plan } = planChanges(desired, live);
    if (plan === undefined) throw new Error('no plan');
    return checkProtection(desired, live, plan).map((d) => `${d.severity} ${d.code} ${d.line}`);
  };

  it('a protected guide dropped from the file is not deleted by prune: a plan error at its protection', () => {
    const desired: DesiredState = {
      guides: [desiredGuide('bob_wx', 4), desiredGuide('carol_wx', 7)],
      groups: [],
      prune: { guides: true, groups: false },
      protect: { guides: [{ id: { kind: 'account', account: 'alice_wx' }, source: src(20) }], groups: [] },
    };
    expect(codes(desired)).toEqual(['error protected-guide-delete 20']);
  });

  it('a protected guide left out of a group members list is a plan error at the group', () => {
    const desired: DesiredState = {
      guides: ['alice_wx', 'bob_wx', 'carol_wx'].map((a, i) => desiredGuide(a, i + 10)),
      groups: [{ name: 'Flagship', members: ['bob_wx'], source: src(2) }],
      prune: { guides: false, groups: false },
      protect: { guides: [{ id: { kind: 'account', account: 'alice_wx' }, source: src(11) }], groups: [] },
    };
    expect(codes(desired)).toEqual(['error protected-member-remove 2']);
  });

  it('a protected group is not pruned, nor a group holding a protected guide', () => {
    const desired: DesiredState = {
      guides: ['alice_wx', 'bob_wx', 'carol_wx'].map((a, i) => desiredGuide(a, i + 10)),
      groups: [],
      prune: { guides: false, groups: true },
      protect: {
        guides: [{ id: { kind: 'account', account: 'carol_wx' }, source: src(30) }],
        groups: [{ name: 'Flagship', source: src(31) }],
      },
    };
    expect(codes(desired)).toEqual(['error protected-group-delete 31', 'error protected-member-remove 30']);
  });

  it('warns about a protection that names nothing', () => {
    const desired: DesiredState = {
      guides: [],
      groups: [],
      prune: { guides: false, groups: false },
      protect: {
        guides: [{ id: { kind: 'account', account: 'alcie_wx' }, source: src(5) }],
        groups: [{ name: 'Flagshp', source: src(6) }],
      },
    };
    expect(codes(desired)).toEqual(['warning protected-not-found 5', 'warning protected-not-found 6']);
  });

  it('nothing protected, nothing to say', () => {
    const desired: DesiredState = { guides: [], groups: [], prune: { guides: true, groups: true } };
    expect(codes(desired)).toEqual([]);
  });
});
