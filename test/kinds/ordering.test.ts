import { describe, expect, it } from 'vitest';
import {
  type DesiredState,
  type DesiredTask,
  guideIdFrom,
  guideKey,
  taskKey,
} from '../../src/core/desired.js';
import type { LiveState, LiveTask } from '../../src/core/live.js';
import type { PlannedCall } from '../../src/core/plan-data.js';
import { planChanges } from '../../src/plan/index.js';
import { type Case, Random, randomCase } from '../helpers/random-states.js';

// The planner's ordering, derived from the write effects, against the lanes the planners once
// passed by hand, restated here from the bodies: each call waits for the previous call on the same
// guide, group name, live group, membership, task or the account; an added membership for the
// creation of its group and guide; an added task for its guide's creation; the deletion of a
// group's copy for the members moved onto the kept group.

const NOW = 1_796_000_000;

/** The dependsOn of each call as the hand-passed lanes made them. */
function laneDependsOn(calls: readonly PlannedCall[], desired: DesiredState, live: LiveState): number[][] {
  const groupNames = new Map(live.groups.map((g) => [g.id, g.name]));
  const liveTaskKeys = new Map((live.tasks ?? []).map((t) => [t.id, taskKey(t.guide, t.name)]));
  const declaredGroups = new Set(desired.groups.map((g) => g.name));
  const last = new Map<string, number>();
  const groupCreated = new Map<string, number>();
  const guideAdded = new Map<string, number>();
  const movedInto = new Map<string, number[]>();
  return calls.map((call, i) => {
    const body = call.body;
    const guide = guideIdFrom(body['guide_account'], body['guide_openid']);
    const guideLane = guide === undefined ? 'account' : `guide ${guideKey(guide)}`;
    const ref = body['group_id'];
    const groupName =
      typeof ref === 'string'
        ? (groupNames.get(ref) ?? '')
        : typeof ref === 'object' && ref !== null && '$group' in ref
          ? String(ref.$group)
          : '';
    const extra: Array<number | undefined> = [];
    let lane: string;
    switch (call.operation) {
      case 'newguidegroup':
        lane = `group ${String(body['group_name'])}`;
        groupCreated.set(String(body['group_name']), i);
        break;
      case 'delguidegroup':
        lane = `group ${groupName}\u0000${String(ref)}`;
        if (declaredGroups.has(groupName)) extra.push(...(movedInto.get(groupName) ?? []));
        break;
      case 'addguideacct':
        lane = guideLane;
        if (guide !== undefined) guideAdded.set(guideKey(guide), i);
        break;
      case 'updateguideacct':
      case 'delguideacct':
      case 'setguideconfig':
      case 'setguideacctconfig':
        lane = guideLane;
        break;
      case 'addguide2guidegroup':
      case 'delguide2guidegroup': {
        const account = String(body['guide_account']);
        lane = `membership ${groupName}\u0000${account}`;
        if (call.operation === 'addguide2guidegroup') {
          extra.push(groupCreated.get(groupName), guideAdded.get(guideKey({ kind: 'account', account })));
          movedInto.set(groupName, [...(movedInto.get(groupName) ?? []), i]);
        }
        break;
      }
      case 'addguidemassendjob':
        lane = guide === undefined ? '' : `task ${taskKey(guide, String(body['task_name']))}`;
        if (guide !== undefined) extra.push(guideAdded.get(guideKey(guide)));
        break;
      case 'updateguidemassendjob':
        lane = `task ${liveTaskKeys.get(String(body['task_id'])) ?? ''}`;
        break;
      case 'cancelguidemassendjob':
        lane = `task ${liveTaskKeys.get(String(body['task_id'])) ?? ''}\u0000${String(body['task_id'])}`;
        break;
    }
    const deps = new Set<number>();
    const previous = last.get(lane);
    if (previous !== undefined) deps.add(previous);
    for (const d of extra) if (d !== undefined) deps.add(d);
    last.set(lane, i);
    return [...deps].sort((x, y) => x - y);
  });
}

/** A case with tasks: added, updated and cancelled (copies, and unlisted ones under prune.tasks). */
function withTasks(c: Case): Case {
  const r = new Random(c.seed * 7 + 1);
  const task = (guide: DesiredTask['guide'], name: string, remark: string): DesiredTask => ({
    name,
    guide,
    remark,
    pushAt: NOW + 3600,
    offsetMinutes: 0,
    recipients: ['oC1'],
    materials: [{ type: 'text', text: 'Hello' }],
    source: { file: 't.yaml', line: 1, column: 1 },
  });
  const liveTask = (guide: LiveTask['guide'], name: string, id: number): LiveTask => ({
    id: String(9000 + id),
    guide,
    name,
    remark: '',
    pushAt: NOW + 3600,
    status: 'pending',
    recipients: ['oC1'],
    materials: [{ type: 'text', text: 'Hello' }],
  });
  const tasks = c.desired.guides.flatMap((g) =>
    ['Sale', 'News'].filter(() => r.chance(0.6)).map((n) => task(g.id, n, r.chance(0.5) ? '' : 'changed')),
  );
  let next = 0;
  const liveTasks = c.live.guides.flatMap((g) =>
    ['Sale', 'News', 'Old'].flatMap((n) => Array.from({ length: r.int(3) }, () => liveTask(g.id, n, next++))),
  );
  return {
    seed: c.seed,
    desired: { ...c.desired, tasks, prune: { ...c.desired.prune, tasks: r.chance(0.5) } },
    live: { ...c.live, tasks: liveTasks, readAt: NOW },
  };
}

const CASES = Array.from({ length: 200 }, (_, i) => randomCase(i + 1));
const CASES_WITH_TASKS = CASES.map(withTasks);

describe('the order of a plan from the write effects', () => {
  it.each([
    ['random cases', CASES],
    ['random cases with tasks', CASES_WITH_TASKS],
  ])('gives each call of the %s the dependsOn of the hand-passed lanes', (_, cases) => {
    let calls = 0;
    const ops = new Set<string>();
    for (const c of cases) {
      const plan = planChanges(c.desired, c.live).plan;
      if (plan === undefined) continue;
      calls += plan.calls.length;
      for (const call of plan.calls) ops.add(call.operation);
      const actual = plan.calls.map((call) => call.dependsOn);
      expect(actual, `seed ${c.seed}`).toEqual(laneDependsOn(plan.calls, c.desired, c.live));
    }
    expect(calls).toBeGreaterThan(1000);
    expect(ops.size).toBeGreaterThanOrEqual(9);
  });

  it('reaches every write operation, dependencies across lanes included', () => {
    const ops = new Set<string>();
    let crossing = 0;
    for (const c of CASES_WITH_TASKS) {
      const plan = planChanges(c.desired, c.live).plan;
      for (const call of plan?.calls ?? []) {
        ops.add(call.operation);
        if (call.dependsOn.length > 1) crossing++;
      }
    }
    expect(ops.size).toBe(12);
    expect(crossing).toBeGreaterThan(10);
  });
});
