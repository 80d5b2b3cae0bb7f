import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/core/plan-data.js';
import {
  decodeSavedPlan,
  encodeSavedPlan,
  type PlanBasis,
  planId,
  type SavedPlan,
} from '../../src/plan/index.js';
import { parseJson } from '../../src/wire/json.js';

const plan: Plan = {
  formatVersion: 1,
  summary: { add: 1, change: 0, delete: 1, calls: 3 },
  changes: [
    {
      resource: 'group',
      action: 'create',
      address: 'G',
      fields: [{ field: 'members', after: ['alice_wx'] }],
    },
    { resource: 'group', action: 'delete', address: 'Old', fields: [] },
  ],
  calls: [
    {
      operation: 'newguidegroup',
      body: { group_name: 'G' },
      subject: { kind: 'group', address: 'G' },
      dependsOn: [],
      createsGroup: 'G',
    },
    {
      operation: 'addguide2guidegroup',
      body: { group_id: { $group: 'G' }, guide_account: 'alice_wx' },
      subject: { kind: 'membership', address: 'alice_wx in "G"' },
      dependsOn: [0],
    },
    {
      operation: 'delguidegroup',
      body: { group_id: '1860131524965138433' },
      subject: { kind: 'group', address: 'Old (id 1860131524965138433)' },
      dependsOn: [],
    },
  ],
  unmanaged: [{ resource: 'guide', address: 'bob_wx' }],
  sensitiveWordSemantics: 'append',
};

const identity = {
  kind: 'remote',
  baseUrl: 'http://127.0.0.1:18084',
  appidDigest: '0123456789abcdef',
} as const;

const basis: PlanBasis = {
  desiredDigest: 'a'.repeat(64),
  liveDigest: 'b'.repeat(64),
  readScope: {
    guideConfigs: new Set(['account:alice_wx']),
    groupMembers: 'all',
    offlineAutoReply: false,
    sensitiveWords: true,
    defaultWelcome: false,
  },
  safety: { maxDeletes: { groups: 3 }, maxDeleteShare: 0.5 },
  protect: { guides: ['alice_wx'], guideOpenids: ['oXYZ'], groups: ['Flagship'] },
  target: identity,
};

const saved: SavedPlan = {
  planId: planId(plan, basis),
  target: { description: 'http://127.0.0.1:18084 (WECHAT_APPID/WECHAT_SECRET)', identity },
  paths: ['guides'],
  basis,
  plan,
  liveFingerprints: {
    guides: { 'account:alice_wx': '0123456789ab' },
    groups: { '1860131524965138433': { name: 'Old', hash: 'ba9876543210' } },
    account: {},
  },
};

const roundTrip = (text: string): SavedPlan => decodeSavedPlan(parseJson(text), 'plan.json');

describe('the saved plan file', () => {
  it('round-trips, with 64-bit ids as bare numbers, byte for byte the same each time', () => {
    const text = encodeSavedPlan(saved);
    expect(text).toContain('"group_id": 1860131524965138433');
    expect(text).toContain('"creates_group": "G"');
    expect(encodeSavedPlan(saved)).toBe(text);
    const back = roundTrip(text);
    expect(back).toEqual(saved);
    expect(encodeSavedPlan(back)).toBe(text);
  });

  const edit = (f: (value: Record<string, unknown>) => void): string => {
    const value = parseJson(encodeSavedPlan(saved)) as Record<string, unknown>;
    f(value);
    return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  };
  const calls = (v: Record<string, unknown>) => v['calls'] as Array<Record<string, unknown>>;

  it.each([
    [
      'a call edited',
      (v: Record<string, unknown>) =>
        ((calls(v)[1]?.['body'] as Record<string, unknown>)['guide_account'] = 'eve_wx'),
      /does not match its plan id/,
    ],
    [
      'a guard setting raised',
      (v: Record<string, unknown>) =>
        ((v['safety'] as Record<string, Record<string, unknown>>)['max_deletes'] = { groups: 1000 }),
      /does not match its plan id/,
    ],
    [
      'a guard setting added',
      (v: Record<string, unknown>) => ((v['safety'] as Record<string, unknown>)['max_delete_share'] = 1),
      /does not match its plan id/,
    ],
    [
      'a protection removed',
      (v: Record<string, unknown>) => ((v['protect'] as Record<string, unknown>)['guides'] = []),
      /does not match its plan id/,
    ],
    [
      'the read scope narrowed',
      (v: Record<string, unknown>) =>
        ((v['read_scope'] as Record<string, unknown>)['group_members'] = ['Flagship']),
      /does not match its plan id/,
    ],
    [
      'the live digest replaced',
      (v: Record<string, unknown>) => (v['live_digest'] = 'c'.repeat(64)),
      /does not match its plan id/,
    ],
    [
      'the target edited',
      (v: Record<string, unknown>) =>
        ((v['target_id'] as Record<string, unknown>)['base_url'] = 'http://127.0.0.1:18085'),
      /does not match its plan id: its calls, changes, digests, read scope, safety settings, protections and target hash to/,
    ],
    [
      'the target left out',
      (v: Record<string, unknown>) => delete v['target_id'],
      /target_id is not an object/,
    ],
    [
      'the semantics changed',
      (v: Record<string, unknown>) => (v['sensitive_word_semantics'] = 'replace'),
      /does not match its plan id/,
    ],
    ['a call removed', (v: Record<string, unknown>) => calls(v).pop(), /summary does not count/],
    [
      'a forward dependency',
      (v: Record<string, unknown>) => ((calls(v)[0] as Record<string, unknown>)['depends_on'] = [2]),
      /calls\[0\] depends on call 2, which is not an earlier call/,
    ],
    [
      'an operation a plan never makes',
      (v: Record<string, unknown>) =>
        ((calls(v)[2] as Record<string, unknown>)['operation'] = 'getguidemassendjob'),
      /"getguidemassendjob" is not one a plan makes/,
    ],
    [
      'a group no call creates',
      (v: Record<string, unknown>) => delete (calls(v)[0] as Record<string, unknown>)['creates_group'],
      /names group "G", which no newguidegroup call creates/,
    ],
    [
      'a bad id',
      (v: Record<string, unknown>) => ((calls(v)[2]?.['body'] as Record<string, unknown>)['group_id'] = 'x'),
      /group_id is not a group id/,
    ],
    [
      'a short digest',
      (v: Record<string, unknown>) => (v['live_digest'] = 'abc'),
      /live_digest is not 64 lowercase hex digits/,
    ],
    [
      'a missing scope',
      (v: Record<string, unknown>) => delete v['read_scope'],
      /read_scope is not an object/,
    ],
    [
      'a share above 1',
      (v: Record<string, unknown>) => ((v['safety'] as Record<string, unknown>)['max_delete_share'] = 2),
      /safety.max_delete_share is not a share/,
    ],
    [
      'a missing protect list',
      (v: Record<string, unknown>) => delete v['protect'],
      /protect is not an object/,
    ],
    [
      'a bad plan id',
      (v: Record<string, unknown>) => (v['plan_id'] = 'XYZ'),
      /plan_id is not 12 lowercase hex digits/,
    ],
  ])('refuses %s', (_name, change, message) => {
    expect(() => roundTrip(edit(change))).toThrow(message);
  });

  it('says what it is when it is not a saved plan, or of another version', () => {
    expect(() => decodeSavedPlan([], 'x.json')).toThrow(
      'x.json: not a saved plan (the file holds no JSON object)',
    );
    expect(() => roundTrip(edit((v) => (v['kind'] = 'terraform')))).toThrow('its "kind" is "terraform"');
    expect(() => roundTrip(edit((v) => (v['format_version'] = 0)))).toThrow(
      'format_version 0 is not supported',
    );
  });
});
