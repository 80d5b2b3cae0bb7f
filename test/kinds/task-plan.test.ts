import { describe, expect, it } from 'vitest';
import type { DesiredState, DesiredTask } from '../../src/core/desired.js';
import type { LiveState, LiveTask } from '../../src/core/live.js';
import { countDeletes, planChanges } from '../../src/plan/index.js';

// The task rules of the planner, with a fixed "now" (the time of the live read).

const NOW = 1_796_000_000; // 2026-11-30T00:53:20Z
const DAY = 86_400;
const source = { file: 't.yaml', line: 7, column: 5 };
const alice = { kind: 'account', account: 'alice_wx' } as const;

const task = (over: Partial<DesiredTask> = {}): DesiredTask => ({
  name: 'Spring sale',
  guide: alice,
  remark: '',
  pushAt: NOW + 3600,
  offsetMinutes: 480,
  recipients: ['oC1', 'oC2'],
  materials: [{ type: 'text', text: 'Hello' }],
  source,
  ...over,
});

const liveTask = (over: Partial<LiveTask> = {}): LiveTask => ({
  id: '1860131524965138433',
  guide: alice,
  name: 'Spring sale',
  remark: '',
  pushAt: NOW + 3600,
  status: 'pending',
  recipients: ['oC1', 'oC2'],
  materials: [{ type: 'text', text: 'Hello' }],
  ...over,
});

const desired = (tasks: DesiredTask[], pruneTasks = false): DesiredState => ({
  guides: [{ id: alice, nickname: 'Alice', headImageUrl: 'https://img/a', source }],
  groups: [],
  tasks,
  prune: { guides: false, groups: false, tasks: pruneTasks },
});

const live = (tasks: LiveTask[], guides = true): LiveState => ({
  guides: guides ? [{ id: alice, nickname: 'Alice', headImageUrl: 'https://img/a' }] : [],
  groups: [],
  account: {},
  tasks,
  readAt: NOW,
});

const ops = (d: DesiredState, l: LiveState): string[] =>
  planChanges(d, l).plan?.calls.map((c) => c.operation) ?? ['(no plan)'];

describe('the task rules of the planner', () => {
  it('adds a missing task, its whole body, after the guide it needs', () => {
    const fresh = live([], false);
    const { plan } = planChanges(desired([task()]), fresh);
    expect(plan?.calls.map((c) => [c.operation, c.dependsOn])).toEqual([
      ['addguideacct', []],
      ['addguidemassendjob', [0]],
    ]);
    expect(plan?.calls[1]?.body).toEqual({
      guide_account: 'alice_wx',
      task_name: 'Spring sale',
      task_remark: '',
      push_time: NOW + 3600,
      openid: ['oC1', 'oC2'],
      material: [{ type: 1, word: 'Hello' }],
    });
    expect(plan?.changes.at(-1)).toMatchObject({
      resource: 'task',
      action: 'create',
      address: '"Spring sale" of alice_wx',
    });
  });

  it('takes push times from now to exactly one month ahead, and refuses others naming the range in the file offset', () => {
    expect(ops(desired([task({ pushAt: NOW })]), live([]))).toEqual(['addguidemassendjob']);
    expect(ops(desired([task({ pushAt: NOW + 30 * DAY })]), live([]))).toEqual(['addguidemassendjob']);
    const past = planChanges(desired([task({ pushAt: NOW - 1 })]), live([]));
    expect(past.plan).toBeUndefined();
    expect(past.diagnostics).toMatchObject([
      {
        severity: 'error',
        code: 'task-push-time-past',
        line: 7,
        column: 5,
        message:
          'push_at 2026-11-30T08:53:19+08:00 of task "Spring sale" is in the past; a task to create or change must be pushed from 2026-11-30T08:53:20+08:00 to 2026-12-30T08:53:20+08:00',
      },
    ]);
    const far = planChanges(desired([task({ pushAt: NOW + 30 * DAY + 1, offsetMinutes: -300 })]), live([]));
    expect(
      far.diagnostics.map((d) => [
        d.code,
        d.message.includes('from 2026-11-29T19:53:20-05:00 to 2026-12-29T19:53:20-05:00'),
      ]),
    ).toEqual([['task-push-time-too-far', true]]);
  });

  it('compares recipients as a set, and images by being images (their media id is not read back)', () => {
    const d = desired([task({ recipients: ['oC1', 'oC2'], materials: [{ type: 'image', mediaId: 'NEW' }] })]);
    const l = live([
      liveTask({ recipients: ['oC2', 'oC1'], materials: [{ type: 'image', picUrl: 'https://x/OLD/0' }] }),
    ]);
    expect(ops(d, l)).toEqual([]);
  });

  it('updates a pending task that differs, whole, by its id; the fields say what differs', () => {
    const { plan } = planChanges(
      desired([task({ remark: 'VIP', recipients: ['oC1', 'oC3'] })]),
      live([liveTask()]),
    );
    expect(plan?.calls).toMatchObject([
      {
        operation: 'updateguidemassendjob',
        body: {
          task_id: '1860131524965138433',
          task_name: 'Spring sale',
          task_remark: 'VIP',
          openid: ['oC1', 'oC3'],
        },
        subject: { kind: 'task', address: '"Spring sale" of alice_wx (id 1860131524965138433)' },
      },
    ]);
    expect(plan?.changes[0]?.fields).toEqual([
      { field: 'remark', before: '', after: 'VIP' },
      { field: 'recipients_added', after: ['oC3'] },
      { field: 'recipients_removed', before: ['oC2'] },
    ]);
  });

  it('never changes an executed task: a warning at the task, no call, no change, whatever the push time', () => {
    for (const status of ['executed', 'completed'] as const) {
      const { plan, diagnostics } = planChanges(
        desired([task({ remark: 'late', pushAt: NOW - DAY, recipients: ['oC1', 'oC3'] })]),
        live([liveTask({ status, pushAt: NOW - 60 })]),
      );
      expect(plan?.calls).toEqual([]);
      expect(plan?.summary).toEqual({ add: 0, change: 0, delete: 0, calls: 0 });
      expect(diagnostics).toMatchObject([
        {
          severity: 'warning',
          code: 'task-executed',
          line: 7,
          message:
            'task "Spring sale" of alice_wx was already executed at 2026-11-30T08:52:20+08:00; it cannot change (push_at, remark, recipients differ)',
        },
      ]);
    }
  });

  it('cancels only unlisted pending tasks, under prune.tasks; executed ones are history', () => {
    const l = live([
      liveTask({ id: '11', name: 'Old', status: 'completed', pushAt: NOW - DAY }),
      liveTask({ id: '12', name: 'Later' }),
    ]);
    const kept = planChanges(desired([]), l).plan;
    expect(kept?.calls).toEqual([]);
    expect(kept?.unmanaged).toEqual([{ resource: 'task', address: '"Later" of alice_wx (id 12)' }]);
    const pruned = planChanges(desired([], true), l).plan;
    expect(pruned?.calls.map((c) => [c.operation, c.body])).toEqual([
      ['cancelguidemassendjob', { task_id: '12' }],
    ]);
    expect(pruned === undefined ? undefined : countDeletes(pruned)).toMatchObject({ tasks: 1 });
  });

  it('manages the oldest of two pending copies of a name, and says so; prune.tasks cancels the other', () => {
    const l = live([liveTask({ id: '9007199254740993' }), liveTask({ id: '21' })]);
    const { plan, diagnostics } = planChanges(desired([task()], true), l);
    expect(plan?.calls.map((c) => [c.operation, c.body['task_id']])).toEqual([
      ['cancelguidemassendjob', '9007199254740993'],
    ]);
    expect(diagnostics.map((d) => d.code)).toEqual(['task-live-duplicates']);
  });

  it('cancels a pending copy of a listed task whatever prune says, keeping the copy that matches the files', () => {
    // The older copy differs (another remark); the newer one matches: that one is kept.
    const l = live([liveTask({ id: '21', remark: 'old' }), liveTask({ id: '22' }), liveTask({ id: '23' })]);
    const { plan, diagnostics } = planChanges(desired([task()]), l);
    expect(plan?.calls.map((c) => [c.operation, c.body['task_id']])).toEqual([
      ['cancelguidemassendjob', '21'],
      ['cancelguidemassendjob', '23'],
    ]);
    expect(plan === undefined ? undefined : countDeletes(plan)).toMatchObject({ tasks: 2 });
    expect(plan?.changes.map((c) => [c.action, c.address])).toEqual([
      ['delete', '"Spring sale" of alice_wx (id 21, a copy)'],
      ['delete', '"Spring sale" of alice_wx (id 23, a copy)'],
    ]);
    expect(diagnostics.map((d) => [d.code, d.message])).toEqual([
      [
        'task-live-duplicates',
        'task "Spring sale" of alice_wx has another pending copy live (id 21); the plan keeps id 22 (the copy that matches the files, else the lowest id) and cancels this one',
      ],
      [
        'task-live-duplicates',
        'task "Spring sale" of alice_wx has another pending copy live (id 23); the plan keeps id 22 (the copy that matches the files, else the lowest id) and cancels this one',
      ],
    ]);
    // None matches: the oldest is kept, and updated.
    const none = planChanges(desired([task({ remark: 'new' })]), l).plan;
    expect(none?.calls.map((c) => [c.operation, c.body['task_id']])).toEqual([
      ['updateguidemassendjob', '21'],
      ['cancelguidemassendjob', '22'],
      ['cancelguidemassendjob', '23'],
    ]);
  });

  it('matches a new pending task before an executed one of the same name', () => {
    const l = live([liveTask({ id: '30', status: 'executed', pushAt: NOW - DAY }), liveTask({ id: '31' })]);
    expect(ops(desired([task()]), l)).toEqual([]);
    // A change goes to the pending one, by its id, with no word of history.
    const changed = planChanges(desired([task({ remark: 'changed' })]), l);
    expect(changed.plan?.calls.map((c) => [c.operation, c.body['task_id']])).toEqual([
      ['updateguidemassendjob', '31'],
    ]);
    expect(changed.diagnostics).toEqual([]);
    // Only the executed one: the files' task is that one (history), not a new task.
    const history = live([liveTask({ id: '30', status: 'executed', pushAt: NOW - DAY })]);
    expect(ops(desired([task()]), history)).toEqual([]);
  });

  it('refuses a task whose guide is neither declared nor live', () => {
    const bob = { kind: 'account', account: 'bob_wxxx' } as const;
    const { plan, diagnostics } = planChanges(desired([task({ guide: bob })]), live([]));
    expect(plan).toBeUndefined();
    expect(diagnostics.map((d) => d.code)).toEqual(['task-guide-not-found']);
  });

  it('needs the time of the read when tasks are managed', () => {
    const { readAt: _, ...noClock } = live([]);
    expect(() => planChanges(desired([task()]), noClock)).toThrow(/readAt/);
  });
});
