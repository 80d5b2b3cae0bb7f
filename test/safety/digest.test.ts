import { describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/config/index.js';
import type { DesiredState } from '../../src/core/desired.js';
import type { LiveState } from '../../src/core/live.js';
import type { Change, Plan, PlannedCall, PlannedOperation } from '../../src/core/plan-data.js';
import { READ_EVERYTHING } from '../../src/live/read-live-state.js';
import {
  canonicalJson,
  desiredDigest,
  diffCalls,
  diffLiveFingerprints,
  liveDigest,
  liveFingerprints,
  type PlanBasis,
  planBasis,
  planId as planIdOf,
} from '../../src/plan/index.js';
import { chaosYaml } from '../helpers/chaos.js';
import { useWorkspace } from '../helpers/cli.js';
import {
  desiredGroup,
  desiredGuide,
  desiredState,
  liveGroup,
  liveGuide,
  liveState,
  planOf,
} from '../helpers/plan-builder.js';

const BASIS: PlanBasis = {
  desiredDigest: 'a'.repeat(64),
  liveDigest: 'b'.repeat(64),
  readScope: {
    guideConfigs: new Set(['account:alice_wx']),
    groupMembers: new Set(['G']),
    offlineAutoReply: false,
    sensitiveWords: true,
    defaultWelcome: false,
  },
  safety: { maxDeletes: { guides: 20 } },
  protect: { guides: ['alice_wx'], guideOpenids: [], groups: ['G'] },
};
const planId = (
  plan: { calls: readonly PlannedCall[]; changes?: Plan['changes']; unmanaged?: Plan['unmanaged'] },
  basis: PlanBasis = BASIS,
): string => planIdOf({ changes: [], unmanaged: [], ...plan }, basis);

// The plan id does not cover targets (they follow from the bodies): any will do here.
const call = (
  operation: PlannedOperation,
  body: PlannedCall['body'],
  dependsOn: number[] = [],
): PlannedCall => ({
  operation,
  body,
  subject: { kind: 'account', address: 'account' },
  dependsOn,
});

describe('canonical JSON', () => {
  const ws = useWorkspace();
  it('sorts keys at every depth, keeps list order, writes bigints whole', () => {
    expect(canonicalJson({ b: [3, { z: 1, a: null }], a: 'x', u: undefined, n: 1860131524965138433n })).toBe(
      '{"a":"x","b":[3,{"a":null,"z":1}],"n":1860131524965138433}',
    );
  });

  it('sorts keys by UTF-16 code units: integer-like, upper case, accented, astral, empty', () => {
    const value = { é: 1, Z: 2, a: 3, 10: 4, 9: 5, '': 6, 'a b': { '\u{1F600}': 7, '\uFFFF': 8 } };
    expect(canonicalJson(value)).toBe(
      '{"":6,"10":4,"9":5,"Z":2,"a":3,"a b":{"\u{1F600}":7,"\uFFFF":8},"é":1}',
    );
  });

  it('keeps the digests of earlier versions, so a plan saved by one still has its id (300 guides: more than one chunk of hashed text)', async () => {
    const file = await ws().write('guides.yaml', chaosYaml(300, 3));
    const loaded = await loadDesiredState([file]);
    if (loaded.state === undefined) throw new Error('the file does not validate');
    const live = liveState({
      guides: Array.from({ length: 300 }, (_, i) =>
        liveGuide(`guide_${String(i).padStart(5, '0')}`, {
          config: { quickReplies: [`reply ${i}`, 'é 😀'], welcome: [] },
        }),
      ),
      groups: [liveGroup('1860131524965138433', 'Store 0', ['guide_00001', 'guide_00000'])],
      account: { sensitiveWords: ['b', 'a'] },
    });
    const plan = planOf(loaded.state, live);
    const basis = planBasis(loaded.state, live, READ_EVERYTHING);
    // The digests were computed by the version before the digests' writer was rewritten (main at
    // 08d8d29); the plan id by the first version whose id covers the changes (saved-plan format 3),
    // and checked then against the SHA-256 of the whole canonical text.
    expect(plan.calls).toHaveLength(1200);
    expect(basis.desiredDigest).toBe('cc5ee83297ce81271fcd4e6b54a8df15bb083fefac16ab68e7bf291fdd3b381c');
    expect(liveDigest(live)).toBe('b69e39530063d3ee819567de43a2c1f5f3f172769878a76b186a1e6a62b73b53');
    expect(planIdOf(plan, basis)).toBe('389d14b75e41');
  });
});

describe('plan id', () => {
  const calls = [
    call('newguidegroup', { group_name: 'G' }),
    call('addguide2guidegroup', { group_id: { $group: 'G' }, guide_account: 'alice_wx' }, [0]),
    call('delguidegroup', { group_id: '1860131524965138433' }),
  ];
  const withCreates = [{ ...calls[0], createsGroup: 'G' } as PlannedCall, ...calls.slice(1)];

  it('is 12 hex digits, the same for the same calls, whatever the key order', () => {
    const id = planId({ calls: withCreates });
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    const reordered = withCreates.map((c) => ({
      dependsOn: c.dependsOn,
      body: { ...c.body },
      subject: c.subject,
      operation: c.operation,
      ...(c.createsGroup === undefined ? {} : { createsGroup: c.createsGroup }),
    }));
    expect(planId({ calls: reordered })).toBe(id);
  });

  it('changes with any call, its order, its body or its dependencies', () => {
    const id = planId({ calls: withCreates });
    const variants: PlannedCall[][] = [
      withCreates.slice(1),
      [withCreates[0], withCreates[2], withCreates[1]] as PlannedCall[],
      withCreates.map((c, i) => (i === 2 ? { ...c, body: { group_id: '1860131524965138435' } } : c)),
      withCreates.map((c, i) => (i === 1 ? { ...c, dependsOn: [] } : c)),
      calls,
    ];
    for (const v of variants) expect(planId({ calls: v })).not.toBe(id);
    expect(planId({ calls: [] })).toMatch(/^[0-9a-f]{12}$/);
  });

  it('covers what apply acts on besides the calls: semantics, digests, read scope, safety, protections', () => {
    const id = planId({ calls: withCreates });
    const scope = BASIS.readScope;
    const bases: PlanBasis[] = [
      { ...BASIS, desiredDigest: 'c'.repeat(64) },
      { ...BASIS, liveDigest: 'c'.repeat(64) },
      { ...BASIS, readScope: { ...scope, groupMembers: 'all' } },
      { ...BASIS, readScope: { ...scope, guideConfigs: new Set() } },
      { ...BASIS, readScope: { ...scope, sensitiveWords: false } },
      { ...BASIS, safety: { maxDeletes: { guides: 1000 } } },
      { ...BASIS, safety: { maxDeletes: { guides: 20 }, maxDeleteShare: 1 } },
      { ...BASIS, safety: { maxDeletes: { guides: 20, memberships: 5 } } },
      { ...BASIS, protect: { ...BASIS.protect, guides: [] } },
      { ...BASIS, protect: { ...BASIS.protect, guideOpenids: ['o1'] } },
      { ...BASIS, protect: { ...BASIS.protect, groups: [] } },
    ];
    const ids = bases.map((b) => planId({ calls: withCreates }, b));
    for (const other of ids) expect(other).not.toBe(id);
    expect(new Set(ids).size).toBe(bases.length);
    expect(
      planIdOf({ calls: withCreates, changes: [], unmanaged: [], sensitiveWordSemantics: 'replace' }, BASIS),
    ).not.toBe(id);
    // Sets are covered by their members, not by the order they were filled in.
    const same = { ...scope, guideConfigs: new Set(['account:alice_wx']) };
    expect(planId({ calls: withCreates }, { ...BASIS, readScope: same })).toBe(id);
  });

  it('covers what is shown with the calls: a change edited, dropped or added, an unmanaged resource', () => {
    const change: Change = {
      resource: 'group',
      action: 'delete',
      address: 'G',
      fields: [{ field: 'members', before: ['alice_wx'] }],
    };
    const id = planId({ calls: withCreates, changes: [change] });
    const variants: Pick<Plan, 'changes' | 'unmanaged'>[] = [
      { changes: [], unmanaged: [] },
      { changes: [{ ...change, action: 'update' }], unmanaged: [] },
      { changes: [{ ...change, fields: [{ field: 'members', before: [] }] }], unmanaged: [] },
      { changes: [change, { ...change, address: 'H' }], unmanaged: [] },
      { changes: [change], unmanaged: [{ resource: 'guide', address: 'bob_wx' }] },
    ];
    const ids = variants.map((v) => planId({ calls: withCreates, ...v }));
    for (const other of ids) expect(other).not.toBe(id);
    expect(new Set(ids).size).toBe(variants.length);
  });
});

const src = (line: number, file = '/w/a.yaml') => ({ file, line, column: 3 });
const state = (lineShift = 0, file = '/w/a.yaml'): DesiredState => ({
  account: { offlineAutoReply: 'Back at 9', source: src(2 + lineShift, file) },
  guides: [
    {
      id: { kind: 'account', account: 'bob_wx' },
      nickname: 'Bob',
      headImageUrl: 'https://x/b',
      source: src(9 + lineShift, file),
    },
    {
      id: { kind: 'account', account: 'alice_wx' },
      nickname: 'Alice',
      headImageUrl: 'https://x/a',
      quickReplies: ['a', 'b'],
      source: src(5 + lineShift, file),
    },
  ],
  groups: [{ name: 'G', members: ['bob_wx', 'alice_wx'], source: src(20 + lineShift, file) }],
  prune: { guides: false, groups: false },
});

describe('desired digest', () => {
  it('ignores where things were written and the order of guides, groups and members', () => {
    const digest = desiredDigest(state());
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(desiredDigest(state(7, '/other/b.yaml'))).toBe(digest);
    const s = state();
    const reordered: DesiredState = {
      ...s,
      guides: [...s.guides].reverse(),
      groups: [{ name: 'G', members: ['alice_wx', 'bob_wx'], source: src(1) }],
    };
    expect(desiredDigest(reordered)).toBe(digest);
  });

  it('changes with any change of meaning', () => {
    const digest = desiredDigest(state());
    const s = state();
    const changed: DesiredState[] = [
      { ...s, prune: { guides: true, groups: false } },
      {
        ...s,
        guides: s.guides.map((g) => (g.nickname === 'Alice' ? { ...g, quickReplies: ['b', 'a'] } : g)),
      },
      { ...s, groups: [{ name: 'G', members: ['bob_wx'], source: src(1) }] },
      { ...s, account: { offlineAutoReply: null, source: src(2) } },
      {
        ...s,
        protect: { guides: [{ id: { kind: 'account', account: 'bob_wx' }, source: src(1) }], groups: [] },
      },
      { ...s, safety: { maxDeletes: { guides: 20 }, source: src(1) } },
    ];
    for (const c of changed) expect(desiredDigest(c)).not.toBe(digest);
  });
});

const live = (): LiveState => ({
  guides: [
    { id: { kind: 'account', account: 'alice_wx' }, nickname: 'Alice', headImageUrl: 'https://x/a' },
    { id: { kind: 'openid', openid: 'oABC' }, nickname: 'Wang', headImageUrl: 'https://x/w' },
  ],
  groups: [
    { id: '1860131524965138433', name: 'G', members: ['alice_wx', 'bob_wx'] },
    { id: '1860131524965138435', name: 'H' },
  ],
  account: { sensitiveWords: ['b', 'a'], offlineAutoReply: null },
});

describe('live digest and fingerprints', () => {
  it('does not depend on the order the API listed things in', () => {
    const l = live();
    const shuffled: LiveState = {
      guides: [...l.guides].reverse(),
      groups: [...l.groups]
        .reverse()
        .map((g) => (g.members === undefined ? g : { ...g, members: [...g.members].reverse() })),
      account: { sensitiveWords: ['a', 'b'], offlineAutoReply: null },
    };
    expect(liveDigest(shuffled)).toBe(liveDigest(l));
    expect(liveFingerprints(shuffled)).toEqual(liveFingerprints(l));
  });

  it('says which guides, groups and account settings were added, removed or changed', () => {
    const before = live();
    const after: LiveState = {
      guides: [
        { id: { kind: 'account', account: 'alice_wx' }, nickname: 'Alicia', headImageUrl: 'https://x/a' },
        { id: { kind: 'account', account: 'zed_wx' }, nickname: 'Zed', headImageUrl: 'https://x/z' },
      ],
      groups: [{ id: '1860131524965138433', name: 'G', members: ['alice_wx'] }],
      account: { sensitiveWords: ['a', 'b'], offlineAutoReply: 'Closed' },
    };
    expect(liveDigest(after)).not.toBe(liveDigest(before));
    expect(diffLiveFingerprints(liveFingerprints(before), liveFingerprints(after))).toEqual([
      { resource: 'account', address: 'offline_auto_reply', change: 'changed' },
      { resource: 'group', address: 'G (id 1860131524965138433)', change: 'changed' },
      { resource: 'group', address: 'H (id 1860131524965138435)', change: 'removed' },
      { resource: 'guide', address: 'alice_wx', change: 'changed' },
      { resource: 'guide', address: 'openid oABC', change: 'removed' },
      { resource: 'guide', address: 'zed_wx', change: 'added' },
    ]);
  });
});

describe('call differences', () => {
  it('lists saved calls no longer planned, then calls planned now', () => {
    const a = call('addguideacct', { guide_account: 'a' });
    const b = call('delguideacct', { guide_account: 'b' });
    const c = call('updateguideacct', { guide_account: 'c', guide_nickname: 'C' });
    expect(diffCalls([a, b, b], [b, c])).toEqual([
      { change: 'removed', call: a },
      { change: 'removed', call: b },
      { change: 'added', call: c },
    ]);
    expect(diffCalls([a, b], [b, a])).toEqual([]);
  });
});

describe('digests of large states', () => {
  // Hashed as the canonical text is made, 64 KB at a time, not from the whole text at once: the
  // values must stay those of the whole text, byte for byte (the digests pinned from before the
  // change; the plan id, which since covers the changes, from the SHA-256 of its whole text).
  it('are the same as when the whole canonical text was hashed at once', () => {
    const names = Array.from({ length: 3_000 }, (_, i) => `guide_${String(i).padStart(4, '0')}`);
    const desired = desiredState({
      guides: names.map((n, i) =>
        desiredGuide(n, { nickname: `Guide ${i}`, quickReplies: ['Hello!', `Ask for ${n}.`] }),
      ),
      groups: [desiredGroup('North', names.slice(0, 1_500)), desiredGroup('South', names.slice(1_500))],
    });
    const live = liveState({
      guides: names.slice(0, 2_000).map((n) => liveGuide(n)),
      groups: [liveGroup('12345678901234567', 'North', names.slice(0, 10))],
    });
    const plan = planOf(desired, live);
    expect(plan.calls.length).toBeGreaterThan(1_000);
    expect([desiredDigest(desired), liveDigest(live), planIdOf(plan, BASIS)]).toEqual([
      'b1bdf91d98919622679ea60cac0682ae35629ae18c96b8199f06acf17d12f2e4',
      '9871b38ca426e016906b37260cf4a0643054d5e13b92c839f79b3919fb40010d',
      'de05ec4d9657',
    ]);
  });
});
