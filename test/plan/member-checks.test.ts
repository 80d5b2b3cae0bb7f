import { describe, expect, it } from 'vitest';
import { planChanges } from '../../src/plan/index.js';
import {
  desiredGroup,
  desiredGuide,
  desiredState,
  liveGroup,
  liveGuide,
  liveState,
  planOf,
} from '../helpers/plan-builder.js';

// A group's members must be guides the plan keeps: declared in the files, or live and not about
// to be pruned. Otherwise the plan is refused, with the error at the group.

const group = {
  ...desiredGroup('Flagship', ['alice_wx', 'bob_wx']),
  source: { file: 'g.yaml', line: 7, column: 5 },
};
const live = liveState({
  guides: [liveGuide('alice_wx'), liveGuide('bob_wx')],
  groups: [liveGroup('1860131524965138433', 'Flagship', ['alice_wx'])],
});

describe('members of a group', () => {
  it('member-would-be-pruned: a live guide the files do not declare, under prune.guides', () => {
    const desired = desiredState({
      guides: [desiredGuide('alice_wx')],
      groups: [group],
      prune: { guides: true, groups: false },
    });
    const { plan, diagnostics } = planChanges(desired, live);
    expect(plan).toBeUndefined();
    expect(diagnostics).toEqual([
      {
        file: 'g.yaml',
        line: 7,
        column: 5,
        severity: 'error',
        code: 'member-would-be-pruned',
        message:
          'member "bob_wx" of group "Flagship" is a live guide that the files do not declare, so prune.guides would delete it',
        hint: 'declare the guide under guides: with account: bob_wx, or remove it from members',
      },
    ]);
  });

  it('the same member without prune.guides is kept and added to the group', () => {
    const plan = planOf(desiredState({ guides: [desiredGuide('alice_wx')], groups: [group] }), live);
    expect(plan.calls.map((c) => [c.operation, c.body['guide_account']])).toEqual([
      ['addguide2guidegroup', 'bob_wx'],
    ]);
  });

  it('the same member declared under guides: is no error, prune or not', () => {
    const desired = desiredState({
      guides: [desiredGuide('alice_wx'), desiredGuide('bob_wx')],
      groups: [group],
      prune: { guides: true, groups: true },
    });
    expect(planChanges(desired, live).diagnostics).toEqual([]);
  });

  it('member-not-found: neither declared nor live; every bad member is reported, not only the first', () => {
    const desired = desiredState({
      guides: [],
      groups: [{ ...group, members: ['ghost_wx', 'alice_wx', 'bob_wx'] }],
      prune: { guides: true, groups: false },
    });
    const { plan, diagnostics } = planChanges(desired, live);
    expect(plan).toBeUndefined();
    expect(diagnostics.map((d) => [d.code, d.line, d.column, d.message.split(' of ')[0]])).toEqual([
      ['member-not-found', 7, 5, 'member "ghost_wx"'],
      ['member-would-be-pruned', 7, 5, 'member "alice_wx"'],
      ['member-would-be-pruned', 7, 5, 'member "bob_wx"'],
    ]);
  });
});
