import { describe, expect, it } from 'vitest';
import {
  deleteCopies,
  matchGroups,
  planGroupCreations,
  planGroupDeletions,
} from '../../src/kinds/group/plan.js';
import { builderFor as builder } from '../helpers/kind-plan.js';
import { desiredGroup, desiredState, liveGroup, liveState } from '../helpers/plan-builder.js';

// The group kind's planner on its own, without the rest of the plan around it.

describe('matchGroups', () => {
  it('keeps the live group with the most members, then the lowest id, and warns of the others', () => {
    const copies = [liveGroup('30', 'VIP', ['a']), liveGroup('9', 'VIP', ['a']), liveGroup('2', 'VIP')];
    const { matchedGroups, duplicates, warnings } = matchGroups([desiredGroup('VIP')], copies);
    expect(matchedGroups.get('VIP')?.id).toBe('9');
    expect(duplicates.get('VIP')?.map((g) => g.id)).toEqual(['30', '2']);
    expect(warnings.map((w) => [w.code, w.severity])).toEqual([['group-live-duplicates', 'warning']]);
    expect(warnings[0]?.message).toContain('keeps id 9');
    expect(warnings[0]?.message).toContain('moves the members of id 30, id 2 onto it and deletes them');
  });

  it('compares ids as numbers, not as text', () => {
    const { matchedGroups } = matchGroups(
      [desiredGroup('VIP')],
      [liveGroup('10', 'VIP'), liveGroup('9', 'VIP')],
    );
    expect(matchedGroups.get('VIP')?.id).toBe('9');
  });

  it('matches nothing, and warns of nothing, for a name without a live group', () => {
    const { matchedGroups, duplicates, warnings } = matchGroups(
      [desiredGroup('New')],
      [liveGroup('1', 'Old')],
    );
    expect(matchedGroups.get('New')).toBeUndefined();
    expect(duplicates.size).toBe(0);
    expect(warnings).toEqual([]);
  });
});

describe('planGroupCreations', () => {
  it('creates each unmatched group once, naming the group it creates, its members sorted', () => {
    const b = builder();
    const groups = [desiredGroup('A', ['z', 'b']), desiredGroup('B')];
    planGroupCreations(b, groups, new Map([['B', liveGroup('5', 'B')]]));
    expect(b.calls).toEqual([
      {
        operation: 'newguidegroup',
        body: { group_name: 'A' },
        subject: { kind: 'group', address: 'A' },
        dependsOn: [],
        createsGroup: 'A',
      },
    ]);
    expect(b.sortedChanges()).toEqual([
      {
        resource: 'group',
        action: 'create',
        address: 'A',
        fields: [{ field: 'members', after: ['b', 'z'] }],
      },
    ]);
  });
});

describe('planGroupDeletions', () => {
  const live = liveState({ groups: [liveGroup('7', 'Old', ['b', 'a']), liveGroup('8', 'Kept')] });

  it('lists the undeclared groups as unmanaged when groups are not pruned', () => {
    const b = builder(live);
    const unmanaged = planGroupDeletions(b, desiredState({ groups: [desiredGroup('Kept')] }), live);
    expect(unmanaged).toEqual([{ resource: 'group', address: 'Old' }]);
    expect(b.calls).toEqual([]);
  });

  it('deletes them under prune.groups, with their members as they were', () => {
    const b = builder(live);
    const desired = desiredState({ groups: [desiredGroup('Kept')], prune: { guides: false, groups: true } });
    expect(planGroupDeletions(b, desired, live)).toEqual([]);
    expect(b.calls.map((c) => [c.operation, c.body, c.subject, c.dependsOn])).toEqual([
      ['delguidegroup', { group_id: '7' }, { kind: 'group', address: 'Old (id 7)' }, []],
    ]);
    expect(b.sortedChanges()).toEqual([
      {
        resource: 'group',
        action: 'delete',
        address: 'Old',
        fields: [{ field: 'members', before: ['a', 'b'] }],
      },
    ]);
  });
});

describe('deleteCopies', () => {
  it('deletes each copy after the calls that moved its members', () => {
    const copy = liveGroup('31', 'VIP');
    const b = builder(liveState({ groups: [copy] }));
    deleteCopies(b, [desiredGroup('VIP')], new Map([['VIP', [copy]]]), new Map([['VIP', [0, 2]]]));
    expect(b.calls.map((c) => [c.operation, c.body, c.dependsOn])).toEqual([
      ['delguidegroup', { group_id: '31' }, [0, 2]],
    ]);
    expect(b.sortedChanges().map((c) => c.address)).toEqual(['VIP (id 31, a copy)']);
  });
});
