import { describe, expect, it } from 'vitest';
import { guideKey } from '../../src/core/desired.js';
import { CREATE_GROUP } from '../../src/kinds/group/writes.js';
import { planGuideDeletions, planGuides } from '../../src/kinds/guide/plan.js';
import { builderFor } from '../helpers/kind-plan.js';
import { desiredGuide, desiredState, guideId, liveGuide, liveState } from '../helpers/plan-builder.js';

// The guide kind's planner on its own: creations, updates of what differs, deletions.

const key = (name: string): string => guideKey(guideId(name));

describe('planGuides', () => {
  it('creates a guide the account lacks and notes the index of its call', () => {
    const b = builderFor();
    b.call(CREATE_GROUP, { group_name: 'G' }, { createsGroup: 'G' });
    const { guideFields, addedAt } = planGuides(b, [desiredGuide('alice_wx')], new Map());
    expect(b.calls[1]?.operation).toBe('addguideacct');
    expect(b.calls[1]?.body).toEqual({
      guide_account: 'alice_wx',
      guide_headimgurl: 'https://img.example/alice_wx',
      guide_nickname: 'alice_wx',
    });
    expect(b.calls[1]?.dependsOn).toEqual([]);
    expect(addedAt).toEqual(new Map([[key('alice_wx'), 1]]));
    expect(guideFields.get(key('alice_wx'))).toEqual([
      { field: 'nickname', after: 'alice_wx' },
      { field: 'head_image_url', after: 'https://img.example/alice_wx' },
    ]);
  });

  it('updates only the fields that differ, and nothing for a guide that matches', () => {
    const b = builderFor();
    const live = new Map([
      [key('alice_wx'), liveGuide('alice_wx', { nickname: 'Old' })],
      [key('openid oBOB'), liveGuide('openid oBOB')],
    ]);
    const { guideFields, addedAt } = planGuides(
      b,
      [desiredGuide('alice_wx'), desiredGuide('openid oBOB')],
      live,
    );
    expect(b.calls.map((c) => [c.operation, c.body])).toEqual([
      ['updateguideacct', { guide_account: 'alice_wx', guide_nickname: 'alice_wx' }],
    ]);
    expect(addedAt.size).toBe(0);
    expect(guideFields.get(key('alice_wx'))).toEqual([
      { field: 'nickname', before: 'Old', after: 'alice_wx' },
    ]);
    expect(guideFields.get(key('openid oBOB'))).toEqual([]);
  });
});

describe('planGuideDeletions', () => {
  const live = liveState({ guides: [liveGuide('zed_wx'), liveGuide('alice_wx'), liveGuide('openid oX')] });
  const kept = new Set([key('alice_wx')]);

  it('lists the undeclared guides as unmanaged, by key (accounts before openids), when guides are not pruned', () => {
    const b = builderFor(live);
    expect(planGuideDeletions(b, desiredState(), live, kept)).toEqual([
      { resource: 'guide', address: 'zed_wx' },
      { resource: 'guide', address: 'openid oX' },
    ]);
    expect(b.calls).toEqual([]);
  });

  it('deletes them under prune.guides, each a change with its nickname and image before', () => {
    const b = builderFor(live);
    const desired = desiredState({ prune: { guides: true, groups: false } });
    expect(planGuideDeletions(b, desired, live, kept)).toEqual([]);
    expect(b.calls.map((c) => [c.operation, c.body])).toEqual([
      ['delguideacct', { guide_account: 'zed_wx' }],
      ['delguideacct', { guide_openid: 'oX' }],
    ]);
    expect(b.sortedChanges().map((c) => [c.action, c.address, c.fields.length])).toEqual([
      ['delete', 'openid oX', 2],
      ['delete', 'zed_wx', 2],
    ]);
  });
});
