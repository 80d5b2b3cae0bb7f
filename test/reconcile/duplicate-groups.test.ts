import { describe, expect, it } from 'vitest';
import type { DesiredGroup, DesiredState } from '../../src/core/desired.js';
import type { LiveGroup, LiveState } from '../../src/core/live.js';
import {
  checkDeleteGuards,
  checkProtection,
  countDeletes,
  countLive,
  planChanges,
  resolveGuardPolicy,
} from '../../src/plan/index.js';
import { parseJson } from '../../src/wire/json.js';
import { useServiceTarget } from '../helpers/cli.js';

/**
 * Live groups that share a declared name — left by two applies at once against the API, which has
 * no lock, or made by hand — used to stop every plan for good (`group "Store a 00" matches 2 live
 * groups`). The plan now reconciles them: it keeps the one with the most members, then the lowest
 * id; moves the members of the others onto it; deletes the others, under the deletion guards.
 */

const source = { file: 'f.yaml', line: 3, column: 5 };
const account = (a: string) => ({
  id: { kind: 'account' as const, account: a },
  nickname: a,
  headImageUrl: `https://img/${a}`,
});

function state(groups: DesiredGroup[], extra: Partial<DesiredState> = {}): DesiredState {
  return {
    guides: ['alice_wx', 'bob_wxx', 'carol_wx'].map((a) => ({ ...account(a), source })),
    groups,
    prune: { guides: false, groups: false },
    ...extra,
  };
}

function liveWith(groups: LiveGroup[]): LiveState {
  return { guides: ['alice_wx', 'bob_wxx', 'carol_wx'].map(account), groups, account: {} };
}

const A = '1860131524965138433';
const B = '1860131524965138434';
const C = '1860131524965138435';

describe('the planner reconciles live groups of one declared name', () => {
  it('keeps the one with the most members, moves the others onto it, then deletes them', () => {
    const live = liveWith([
      { id: A, name: 'Flagship', members: ['alice_wx'] },
      { id: B, name: 'Flagship', members: ['alice_wx', 'bob_wxx'] },
      { id: C, name: 'Flagship', members: ['carol_wx'] },
    ]);
    const result = planChanges(state([{ name: 'Flagship', source }]), live);
    const plan = result.plan;
    expect(plan).toBeDefined();
    expect(plan?.calls).toEqual([
      {
        operation: 'addguide2guidegroup',
        body: { group_id: B, guide_account: 'carol_wx' },
        subject: { kind: 'membership', address: 'carol_wx in "Flagship"' },
        dependsOn: [],
      },
      {
        operation: 'delguidegroup',
        body: { group_id: A },
        subject: { kind: 'group', address: `Flagship (id ${A})` },
        dependsOn: [0],
      },
      {
        operation: 'delguidegroup',
        body: { group_id: C },
        subject: { kind: 'group', address: `Flagship (id ${C})` },
        dependsOn: [0],
      },
    ]);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'warning',
        code: 'group-live-duplicates',
        message: `group "Flagship" matches 3 live groups; the plan keeps id ${B} (the most members, then the lowest id), moves the members of id ${A}, id ${C} onto it and deletes them`,
      }),
    ]);
    expect(plan?.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'update Flagship',
      `delete Flagship (id ${A}, a copy)`,
      `delete Flagship (id ${C}, a copy)`,
    ]);
    // Planning the result again: nothing left.
    const after = liveWith([{ id: B, name: 'Flagship', members: ['alice_wx', 'bob_wxx', 'carol_wx'] }]);
    expect(planChanges(state([{ name: 'Flagship', source }]), after).plan?.calls).toEqual([]);
  });

  it('on a tie keeps the lowest id (by number, not by text), whatever order the API lists them in', () => {
    const low = '999999999999999999';
    const groups: LiveGroup[] = [
      { id: A, name: 'G', members: ['alice_wx'] },
      { id: low, name: 'G', members: ['bob_wxx'] },
    ];
    for (const order of [groups, [...groups].reverse()]) {
      const plan = planChanges(state([{ name: 'G', source }]), liveWith(order)).plan;
      expect(plan?.calls.map((c) => [c.operation, c.body['group_id']])).toEqual([
        ['addguide2guidegroup', low],
        ['delguidegroup', A],
      ]);
    }
  });

  it('with members in the files, the kept group gets exactly those', () => {
    const live = liveWith([
      { id: A, name: 'G', members: ['alice_wx', 'bob_wxx'] },
      { id: B, name: 'G', members: ['carol_wx'] },
    ]);
    const plan = planChanges(state([{ name: 'G', members: ['alice_wx', 'carol_wx'], source }]), live).plan;
    expect(
      plan?.calls.map(
        (c) => `${c.operation} ${String(c.body['group_id'])} ${String(c.body['guide_account'] ?? '')}`,
      ),
    ).toEqual([
      `addguide2guidegroup ${A} carol_wx`,
      `delguide2guidegroup ${A} bob_wxx`,
      `delguidegroup ${B} `,
    ]);
  });

  it('counts the copies under the groups guard, and lets a protected name keep its members', () => {
    const copies: LiveGroup[] = Array.from({ length: 13 }, (_, i) => ({
      id: String(1000n + BigInt(i)),
      name: 'G',
      members: i === 5 ? ['alice_wx'] : [],
    }));
    const desired = state([{ name: 'G', source }], {
      protect: {
        guides: [{ id: { kind: 'account', account: 'alice_wx' }, source }],
        groups: [{ name: 'G', source }],
      },
    });
    const live = liveWith(copies);
    const plan = planChanges(desired, live).plan;
    if (plan === undefined) throw new Error('no plan');
    expect(countDeletes(plan).groups).toBe(12);
    // The kept group (id 1005, the only one with a member) is never deleted, so neither the
    // protected group nor its protected member is taken away.
    expect(plan.calls.some((c) => c.body['group_id'] === '1005')).toBe(false);
    expect(checkProtection(desired, live, plan)).toEqual([]);
    const [, groups] = checkDeleteGuards(countDeletes(plan), countLive(live), resolveGuardPolicy(undefined));
    expect(groups?.status).toBe('refused');
  });

  it('a protected guide on a copy is moved onto the kept group before the copy goes', () => {
    const protect = {
      guides: [{ id: { kind: 'account' as const, account: 'carol_wx' }, source }],
      groups: [],
    };
    const desired = state([{ name: 'G', source }], { protect });
    const live = liveWith([
      { id: A, name: 'G', members: ['alice_wx', 'bob_wxx'] },
      { id: B, name: 'G', members: ['carol_wx'] },
    ]);
    const plan = planChanges(desired, live).plan;
    if (plan === undefined) throw new Error('no plan');
    expect(checkProtection(desired, live, plan)).toEqual([]);
    // Members in the files that leave the protected guide out: removing it is still refused.
    const strict = state([{ name: 'G', members: ['alice_wx'], source }], { protect });
    const refused = planChanges(strict, live).plan;
    if (refused === undefined) throw new Error('no plan');
    expect(checkProtection(strict, live, refused).map((d) => d.code)).toEqual(['protected-member-remove']);
  });
});

describe('against a remote target (no lock): what a race leaves, the next apply heals', () => {
  const target = useServiceTarget({ reset: true });
  const { cli } = target;

  async function liveGroupNames(): Promise<string[]> {
    const run = await cli(['api', 'getguidegrouplist']);
    return [...run.stdout.matchAll(/"name": "([^"]+)"/g)].map((m) => m[1] ?? '').sort();
  }

  const file = (groups: number): string => {
    const names = Array.from({ length: groups }, (_, i) => `Store a ${String(i).padStart(2, '0')}`);
    const guides = ['alice_wx', 'bob_wxx']
      .map((a) => `  - account: ${a}\n    nickname: ${a}\n    head_image_url: https://img.example/${a}\n`)
      .join('');
    return `version: 1\ngroups:\n${names.map((n) => `  - name: ${n}\n    members: [alice_wx, bob_wxx]\n`).join('')}guides:\n${guides}`;
  };

  it('two applies of one file at once, then one more: converged, no group doubled', async () => {
    await target.ws.write('g.yaml', file(6));
    await Promise.all([
      cli(['apply', 'g.yaml', '--auto-approve']),
      cli(['apply', 'g.yaml', '--auto-approve']),
    ]);
    const healed = await cli(['apply', 'g.yaml', '--auto-approve', '--allow-delete', 'groups=6']);
    expect(healed.code, healed.stderr + healed.stdout).toBe(0);
    expect(await liveGroupNames()).toEqual(Array.from({ length: 6 }, (_, i) => `Store a 0${i}`));
    expect((await cli(['plan', 'g.yaml', '--detailed-exitcode'])).code).toBe(0);
  });

  it('a copy made by hand is merged and deleted, saying which was kept', async () => {
    await target.ws.write('g.yaml', file(1));
    expect((await cli(['apply', 'g.yaml', '--auto-approve'])).code).toBe(0);
    const made = parseJson((await cli(['api', 'newguidegroup', '{"group_name": "Store a 00"}'])).stdout) as {
      group_id: bigint;
    };
    const plan = await cli(['plan', 'g.yaml']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).toMatch(
      /g\.yaml:3:5: warning: group "Store a 00" matches 2 live groups; the plan keeps id [0-9]+ \(the most members, then the lowest id\)/,
    );
    expect(plan.stderr).toContain(`moves the members of id ${made.group_id} onto it and deletes it`);
    const run = await cli(['apply', 'g.yaml', '--auto-approve']);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stdout).toContain('Converged');
    expect(await liveGroupNames()).toEqual(['Store a 00']);
  });
});
