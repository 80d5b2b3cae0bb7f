import { describe, expect, it } from 'vitest';
import type { LiveGroup } from '../../src/core/live.js';
import { CREATE_GROUP } from '../../src/kinds/group/writes.js';
import { ADD_GUIDE } from '../../src/kinds/guide/writes.js';
import { checkMembersExist, planMemberships } from '../../src/kinds/membership/plan.js';
import { builderFor } from '../helpers/kind-plan.js';
import { desiredGroup, desiredGuide, desiredState, liveGroup, liveState } from '../helpers/plan-builder.js';

// The membership kind's planner on its own: its checks, and its calls with their dependencies.

describe('checkMembersExist', () => {
  const group = desiredGroup('Flagship', ['alice_wx', 'bob_wx', 'carol_wx']);

  it('passes declared guides, and live ones when guides are not pruned', () => {
    const desired = desiredState({ guides: [desiredGuide('alice_wx')], groups: [group] });
    expect(checkMembersExist(desired, desired.guides, [group], new Set(['bob_wx', 'carol_wx']))).toEqual([]);
  });

  it('names a member that is nowhere, and a live one that prune.guides would delete', () => {
    const desired = desiredState({
      guides: [desiredGuide('alice_wx')],
      groups: [group],
      prune: { guides: true, groups: false },
    });
    const found = checkMembersExist(desired, desired.guides, [group], new Set(['bob_wx']));
    expect(found.map((d) => [d.code, d.severity, d.line])).toEqual([
      ['member-would-be-pruned', 'error', 1],
      ['member-not-found', 'error', 1],
    ]);
    expect(found[1]?.message).toBe(
      'member "carol_wx" of group "Flagship" is neither declared in the files nor a live guide',
    );
  });
});

describe('planMemberships', () => {
  const none = new Map<string, readonly LiveGroup[]>();

  it('adds to a group the plan creates by its name, after the group and the guide', () => {
    const b = builderFor();
    b.call(CREATE_GROUP, { group_name: 'New' }, { createsGroup: 'New' });
    b.call(ADD_GUIDE, { guide_account: 'alice_wx' });
    const moves = planMemberships(b, [desiredGroup('New', ['alice_wx', 'bob_wx'])], {
      matchedGroups: new Map([['New', undefined]]),
      duplicates: none,
      liveAccounts: new Set(['bob_wx']),
      deletedAccounts: new Set(),
    });
    expect(b.calls.slice(2).map((c) => [c.operation, c.body, c.dependsOn])).toEqual([
      ['addguide2guidegroup', { group_id: { $group: 'New' }, guide_account: 'alice_wx' }, [0, 1]],
      ['addguide2guidegroup', { group_id: { $group: 'New' }, guide_account: 'bob_wx' }, [0]],
    ]);
    expect(moves.get('New')).toEqual([2, 3]);
    // A group created is one change (its creation), not an update too.
    expect(b.sortedChanges()).toEqual([]);
  });

  it('removes what the files drop, but not the members of guides the plan deletes', () => {
    const b = builderFor(liveState({ groups: [liveGroup('7', 'VIP')] }));
    planMemberships(b, [desiredGroup('VIP', ['alice_wx'])], {
      matchedGroups: new Map([['VIP', liveGroup('7', 'VIP', ['bob_wx', 'carol_wx', 'alice_wx'])]]),
      duplicates: none,
      liveAccounts: new Set(['alice_wx', 'bob_wx', 'carol_wx']),
      deletedAccounts: new Set(['carol_wx']),
    });
    expect(b.calls.map((c) => [c.operation, c.body])).toEqual([
      ['delguide2guidegroup', { group_id: '7', guide_account: 'bob_wx' }],
    ]);
    expect(b.sortedChanges()).toEqual([
      {
        resource: 'group',
        action: 'update',
        address: 'VIP',
        fields: [{ field: 'members', before: ['alice_wx', 'bob_wx', 'carol_wx'], after: ['alice_wx'] }],
      },
    ]);
  });

  it('moves the live members of copies onto the kept group when members are not managed', () => {
    const b = builderFor(liveState({ groups: [liveGroup('7', 'VIP')] }));
    const moves = planMemberships(b, [desiredGroup('VIP')], {
      matchedGroups: new Map([['VIP', liveGroup('7', 'VIP', ['alice_wx'])]]),
      duplicates: new Map([['VIP', [liveGroup('9', 'VIP', ['bob_wx', 'gone_wx', 'carol_wx'])]]]),
      liveAccounts: new Set(['alice_wx', 'bob_wx', 'carol_wx']),
      deletedAccounts: new Set(['carol_wx']),
    });
    expect(b.calls.map((c) => [c.operation, c.body])).toEqual([
      ['addguide2guidegroup', { group_id: '7', guide_account: 'bob_wx' }],
    ]);
    expect(moves.get('VIP')).toEqual([0]);
  });

  it('leaves a group alone whose members are not managed and that has no copies', () => {
    const b = builderFor();
    const moves = planMemberships(b, [desiredGroup('VIP')], {
      matchedGroups: new Map([['VIP', liveGroup('7', 'VIP', ['alice_wx'])]]),
      duplicates: none,
      liveAccounts: new Set(['alice_wx']),
      deletedAccounts: new Set(),
    });
    expect(b.calls).toEqual([]);
    expect(moves.has('VIP')).toBe(false);
  });
});
