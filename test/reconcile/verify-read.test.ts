import { describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../src/core/plan-data.js';
import { READ_EVERYTHING } from '../../src/live/index.js';
import { verifyRead } from '../../src/reconcile/index.js';
import { desiredGuide, desiredState, liveGuide, liveState, planOf } from '../helpers/plan-builder.js';

// The read after apply's calls asks for every page of the guide list at once when it knows how
// many guides to expect: those read before, plus the adds done, less the deletes done.

describe('verifyRead', () => {
  it('expects the guides read before plus those added (the adds that were done), in both modes', () => {
    const before = liveState({ guides: [liveGuide('kept_wx'), liveGuide('gone_wx')] });
    const desired = desiredState({
      guides: ['kept_wx', 'new1_wx', 'new2_wx', 'new3_wx'].map((name) => desiredGuide(name)),
      prune: { guides: true, groups: false },
    });
    const plan = planOf(desired, before);
    const adds = plan.calls.flatMap((c, index) => (c.operation === 'addguideacct' ? [index] : []));
    const deletes = plan.calls.flatMap((c, index) => (c.operation === 'delguideacct' ? [index] : []));
    expect([adds.length, deletes.length]).toEqual([3, 1]);
    // One add failed: two guides added, one deleted.
    const result: ApplyResult = {
      outcomes: plan.calls.map((call, index) => ({
        index,
        operation: call.operation,
        status: index === adds[0] ? 'failed' : 'done',
      })),
      createdGroups: new Map(),
    };
    for (const mode of ['targeted', 'full'] as const) {
      expect(verifyRead(mode, READ_EVERYTHING, plan, result, before).scope.expectedGuides).toBe(2 + 2 - 1);
    }
  });
});
