import { describe, expect, it } from 'vitest';
import type { DesiredGuide, DesiredState } from '../../src/core/desired.js';
import type { LiveState } from '../../src/core/live.js';
import { type Plan, type PlannedCall, SUBJECT_KINDS } from '../../src/core/plan-data.js';
import { READ_EVERYTHING } from '../../src/live/read-live-state.js';
import {
  decodeSavedPlan,
  encodeSavedPlan,
  liveFingerprints,
  planBasis,
  planChanges,
  planId,
  type SavedPlan,
} from '../../src/plan/index.js';
import { renderApplyResult } from '../../src/report/apply.js';
import { planToJson } from '../../src/report/plan.js';
import { renderStale } from '../../src/report/stale.js';
import { parseJson } from '../../src/wire/json.js';

const source = { file: 'f.yaml', line: 1, column: 1 };
const ZETA = '1860131524965138433';
const OLD = '1860131524965138435';

const guide = (account: string, extra: Partial<DesiredGuide> = {}): DesiredGuide => ({
  id: { kind: 'account', account },
  nickname: account,
  headImageUrl: `https://img/${account}`,
  source,
  ...extra,
});

const NOW = 1_800_000_000;
const TASK_ID = '1860131524965138437';
const GONE_ID = '1860131524965138439';
const task = (name: string, account: string): NonNullable<DesiredState['tasks']>[number] => ({
  name,
  guide: { kind: 'account', account },
  remark: '',
  pushAt: NOW + 3600,
  offsetMinutes: 480,
  recipients: ['oC1'],
  materials: [{ type: 'text', text: 'Hi' }],
  source,
});
const liveTask = (id: string, name: string, remark: string): NonNullable<LiveState['tasks']>[number] => ({
  id,
  guide: { kind: 'account', account: 'bob_wxx' },
  name,
  remark,
  pushAt: NOW + 3600,
  status: 'pending',
  recipients: ['oC1'],
  materials: [{ type: 'text', text: 'Hi' }],
});

/** Files and an account whose plan makes each of the twelve operations at least once. */
const desired: DesiredState = {
  account: { offlineAutoReply: 'Back at 9', defaultWelcome: [{ type: 'text', text: 'Welcome' }], source },
  guides: [
    guide('alice_wx', { welcome: [{ type: 'text', text: 'Hi' }] }),
    guide('bob_wxx', { nickname: 'Bobby' }),
    guide('carol_wx'),
    { id: { kind: 'openid', openid: 'oNew' }, nickname: 'O', headImageUrl: 'https://img/o', source },
  ],
  groups: [
    { name: 'North East', members: ['alice_wx'], source },
    { name: 'Zeta', members: ['bob_wxx'], source },
  ],
  tasks: [task('New', 'carol_wx'), task('Sale', 'bob_wxx')],
  prune: { guides: true, groups: true, tasks: true },
};

const live: LiveState = {
  guides: ['bob_wxx', 'carol_wx', 'dave_wx'].map((account) => ({
    id: { kind: 'account' as const, account },
    nickname: account,
    headImageUrl: `https://img/${account}`,
  })),
  groups: [
    { id: ZETA, name: 'Zeta', members: ['bob_wxx', 'carol_wx'] },
    { id: OLD, name: 'Old', members: [] },
  ],
  account: {},
  tasks: [liveTask(TASK_ID, 'Sale', 'old remark'), liveTask(GONE_ID, 'Gone', '')],
  readAt: NOW,
};

function planned(): Plan {
  const { plan, diagnostics } = planChanges(desired, live);
  if (plan === undefined) throw new Error(JSON.stringify(diagnostics));
  return plan;
}

function saved(plan: Plan): SavedPlan {
  const identity = { kind: 'remote', baseUrl: 'http://127.0.0.1:1' } as const;
  const basis = planBasis(desired, live, READ_EVERYTHING, { target: identity });
  return {
    planId: planId(plan, basis),
    target: { description: 'http://127.0.0.1:1', identity },
    paths: ['f.yaml'],
    basis,
    plan,
    liveFingerprints: liveFingerprints(live),
  };
}

/** The saved file of the plan, edited by `edit` as JSON (ids kept whole). */
function savedText(edit: (calls: Array<Record<string, unknown>>) => void = () => {}): string {
  const value = parseJson(encodeSavedPlan(saved(planned()))) as Record<string, unknown>;
  edit(value['calls'] as Array<Record<string, unknown>>);
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

const decode = (text: string): SavedPlan => decodeSavedPlan(parseJson(text), 'plan.json');

describe('each planned call names its target', () => {
  it('the planner makes exactly the operations that have target kinds, each call of one of its kinds', () => {
    const calls = planned().calls;
    expect([...new Set(calls.map((c) => c.operation))].sort()).toEqual(Object.keys(SUBJECT_KINDS).sort());
    for (const call of calls) expect(SUBJECT_KINDS[call.operation]).toContain(call.subject.kind);
  });

  it('names them as the files do: account or openid, group name, membership, task, account', () => {
    expect(planned().calls.map((c) => `${c.operation} ${c.subject.kind} ${c.subject.address}`)).toEqual([
      'newguidegroup group North East',
      'addguideacct guide alice_wx',
      'updateguideacct guide bob_wxx',
      'addguideacct guide openid oNew',
      'setguideconfig guide alice_wx',
      'setguideacctconfig account account',
      'setguideconfig account account',
      'addguide2guidegroup membership alice_wx in "North East"',
      'delguide2guidegroup membership carol_wx in "Zeta"',
      `updateguidemassendjob task "Sale" of bob_wxx (id ${TASK_ID})`,
      'addguidemassendjob task "New" of carol_wx',
      `cancelguidemassendjob task "Gone" of bob_wxx (id ${GONE_ID})`,
      'delguideacct guide dave_wx',
      `delguidegroup group Old (id ${OLD})`,
    ]);
  });

  it('is in plan --json and the saved plan, as {kind, address}', () => {
    const calls = planToJson(planned())['calls'] as Array<Record<string, unknown>>;
    expect(calls[7]?.['target']).toEqual({ kind: 'membership', address: 'alice_wx in "North East"' });
    expect(encodeSavedPlan(saved(planned()))).toContain(
      '"target": {\n        "kind": "group",\n        "address": "North East"\n      }',
    );
  });
});

describe('the saved-plan decoder', () => {
  it('refuses an operation a plan never makes', () => {
    const text = savedText((calls) => {
      if (calls[9] !== undefined) calls[9]['operation'] = 'delguideacct_all';
    });
    expect(() => decode(text)).toThrow(
      'plan.json: damaged or edited by hand: calls[9].operation "delguideacct_all" is not one a plan makes; make the plan again with guidectl plan --out',
    );
  });

  it('computes each target again from the body rather than reading the file', () => {
    const plan = planned();
    expect(decode(savedText()).plan.calls).toEqual(plan.calls);
    const misnamed = savedText((calls) => {
      for (const call of calls) call['target'] = { kind: 'account', address: 'nobody' };
    });
    expect(decode(misnamed).plan.calls).toEqual(plan.calls);
    // A file from before targets were written reads the same.
    const without = savedText((calls) => {
      for (const call of calls) delete call['target'];
    });
    expect(decode(without).plan.calls).toEqual(plan.calls);
  });

  it('refuses a body that does not name what its operation acts on', () => {
    const text = savedText((calls) => {
      const body = calls[12]?.['body'] as Record<string, unknown>;
      delete body['guide_account'];
    });
    expect(() => decode(text)).toThrow('calls[12].body does not name what delguideacct acts on');
    const unnamedTask = savedText((calls) => {
      const body = calls[11]?.['body'] as Record<string, unknown>;
      body['task_id'] = '1860131524965138499';
    });
    expect(() => decode(unnamedTask)).toThrow(
      'calls[11].body does not name what cancelguidemassendjob acts on',
    );
  });
});

describe('renderers name a call by its target, not its body', () => {
  // Bodies that name nothing: whatever is shown comes from the targets.
  const call = (operation: PlannedCall['operation'], subject: PlannedCall['subject']): PlannedCall => ({
    operation,
    body: {},
    subject,
    dependsOn: [],
  });
  const calls = [
    call('addguideacct', { kind: 'guide', address: 'alice_wx' }),
    call('delguideacct', { kind: 'guide', address: 'openid oXYZ' }),
    call('newguidegroup', { kind: 'group', address: 'North East' }),
    call('delguide2guidegroup', { kind: 'membership', address: 'bob_wxx in "Zeta"' }),
    call('setguideacctconfig', { kind: 'account', address: 'account' }),
    call('delguidegroup', { kind: 'group', address: `Old\u001b[31m (id ${OLD})` }),
  ];
  const subjects = [
    '(guide_account="alice_wx")',
    '(guide_openid="oXYZ")',
    '(group North East)',
    '(membership bob_wxx in "Zeta")',
    '(account)',
    `(group Old\\u001b[31m (id ${OLD}))`,
  ];

  it('in the apply result', () => {
    const plan: Plan = {
      formatVersion: 1,
      summary: { add: 0, change: 0, delete: 0, calls: calls.length },
      changes: [],
      calls,
      unmanaged: [],
    };
    const text = renderApplyResult(plan, {
      createdGroups: new Map(),
      outcomes: calls.map((c, index) => ({ index, operation: c.operation, status: 'failed', reason: 'no' })),
    });
    for (const [i, subject] of subjects.entries())
      expect(text).toContain(`#${i + 1} ${calls[i]?.operation} ${subject}: no`);
  });

  it('in the stale report', () => {
    const text = renderStale({
      savedPlanId: 'a'.repeat(12),
      filesChanged: true,
      paths: ['f.yaml'],
      now: { planId: 'b'.repeat(12), calls: calls.map((c) => ({ change: 'added', call: c })) },
    });
    for (const [i, subject] of subjects.entries())
      expect(text).toContain(`+ ${calls[i]?.operation} ${subject}  (planned now, not saved)`);
  });
});
