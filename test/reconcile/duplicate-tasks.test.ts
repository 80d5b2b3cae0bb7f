import { beforeEach, describe, expect, it } from 'vitest';
import { formatWrittenTime } from '../../src/core/task-time.js';
import { parseJson } from '../../src/wire/json.js';
import { bindCustomer, type CliRun, useServiceTarget } from '../helpers/cli.js';
import { holdingGate } from '../helpers/holding-gate.js';
import { frozenClock, guideBody } from '../helpers/service.js';

// Pending copies of a listed task (two applies at once, or a create whose late original landed
// after its resend) are reconciled as copies of a declared group are: one is kept, the others are
// cancelled under the tasks guard, whatever prune says. While a copy is live, nothing reports
// "no changes" or convergence.

const t = useServiceTarget({ reset: true, clock: frozenClock() });
let now: number;

beforeEach(async () => {
  now = Number((await t.sim('clock'))['now']);
  await t.ok('addguideacct', guideBody('alice_wx'));
  for (const openid of ['oCustomer1', 'oCustomer2']) {
    await bindCustomer(t, 'alice_wx', openid);
  }
});

async function cli(args: readonly string[]): Promise<CliRun> {
  const clock = Number((await t.sim('clock'))['now']);
  return t.cli(args, { now: () => clock * 1000 });
}

const NAMES = ['Spring sale', 'Summer sale'];

function file(): string {
  const tasks = NAMES.map(
    (name, i) => `  - name: ${name}
    guide: alice_wx
    push_at: "${formatWrittenTime(now + 3600 * (i + 1), 480)}"
    recipients: [oCustomer1, oCustomer2]
    materials:
      - text: "${name} starts now!"
`,
  ).join('');
  return `version: 1
guides:
  - account: alice_wx
    nickname: alice_wx
    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/alice_wx/0
tasks:
${tasks}`;
}

/** The pending tasks of alice_wx, by name: how many of each. */
async function pendingByName(): Promise<Record<string, number>> {
  const answer = await t.ok('getguidemassendjoblist', { guide_account: 'alice_wx', task_status: [1] });
  const counts: Record<string, number> = {};
  for (const task of answer['list'] as { task_name: string }[])
    counts[task.task_name] = (counts[task.task_name] ?? 0) + 1;
  return counts;
}

describe('pending copies of a listed task', () => {
  it('are never "no changes": plan says drift, apply cancels the copy under the guard, then converges', async () => {
    const path = await t.ws.write('tasks.yaml', file());
    expect((await cli(['apply', path, '--auto-approve'])).code).toBe(0);
    // A second copy of "Spring sale", as another apply at the same time would make.
    await t.ok('addguidemassendjob', {
      guide_account: 'alice_wx',
      task_name: 'Spring sale',
      push_time: now + 3600,
      openid: ['oCustomer1', 'oCustomer2'],
      material: [{ type: 1, word: 'Spring sale starts now!' }],
    });
    expect(await pendingByName()).toEqual({ 'Spring sale': 2, 'Summer sale': 1 });

    const drift = await cli(['plan', path, '--expect-no-changes']);
    expect(drift.code, drift.stdout + drift.stderr).toBe(1);
    expect(drift.stderr).toContain('[task-live-duplicates]');
    expect(drift.stdout).toMatch(/cancel|delete/i);
    const detailed = await cli(['plan', path, '--detailed-exitcode']);
    expect(detailed.code).toBe(2);

    // The copy counts under the tasks guard: with none allowed, apply is refused.
    const guarded = await cli(['apply', path, '--auto-approve', '--max-deletes', 'tasks=0']);
    expect(guarded.code).toBe(1);
    expect(guarded.stdout + guarded.stderr).toContain('--allow-delete tasks=1');
    expect(guarded.stdout).not.toContain('No changes');

    const applied = await cli(['apply', path, '--auto-approve', '--json']);
    expect(applied.code, applied.stderr).toBe(0);
    const result = parseJson(applied.stdout) as { converged: boolean; outcomes: { operation: string }[] };
    expect(result.outcomes.map((o) => o.operation)).toEqual(['cancelguidemassendjob']);
    expect(result.converged).toBe(true);
    expect(await pendingByName()).toEqual({ 'Spring sale': 1, 'Summer sale': 1 });
    expect((await cli(['plan', path, '--expect-no-changes'])).code).toBe(0);
  }, 60_000);

  it('abandoned task adds: the report says how long to wait; an apply made sooner copies them, and the next cancels the copies', async () => {
    const path = await t.ws.write('tasks.yaml', file());
    const gate = await holdingGate(t.service.url, 'addguidemassendjob');
    try {
      const clock = Number((await t.sim('clock'))['now']);
      const held = await t.cli(
        ['apply', path, '--auto-approve', '--timeout', '0.2', '--settle-timeout', '0.2'],
        { now: () => clock * 1000, baseUrl: gate.url },
      );
      expect(held.code).toBe(1);
      expect(held.stderr).toContain(
        'wait 0.4 s more for it to land before you plan or apply again, or it may be made twice',
      );
      expect(held.stdout).toContain(
        '2 writes got no answer even after waiting and may still take effect, so convergence is not claimed. Wait as long again as apply waited for them',
      );
      expect(held.stdout).toContain('the next apply, which cancels those of tasks');
      // Applied again too soon: the held originals have not landed, so the tasks are made again.
      expect((await cli(['apply', path, '--auto-approve'])).code).toBe(0);
      await gate.release();
    } finally {
      gate.close();
    }
    expect(await pendingByName()).toEqual({ 'Spring sale': 2, 'Summer sale': 2 });
    const next = await cli(['apply', path, '--auto-approve', '--allow-delete', 'tasks=2', '--json']);
    expect(next.code, next.stderr).toBe(0);
    expect(parseJson(next.stdout)).toMatchObject({ converged: true });
    expect(await pendingByName()).toEqual({ 'Spring sale': 1, 'Summer sale': 1 });
  }, 60_000);

  it('two applies at once, then one more: no copy is left', async () => {
    const path = await t.ws.write('tasks.yaml', file());
    // The first apply's task adds wait at a gate while the second apply reads, then makes both
    // tasks; then they land too: each task twice, as two applies at once leave them.
    const gate = await holdingGate(t.service.url, 'addguidemassendjob');
    try {
      const clock = Number((await t.sim('clock'))['now']);
      const first = t.cli(['apply', path, '--auto-approve'], { now: () => clock * 1000, baseUrl: gate.url });
      await gate.held;
      const second = await cli(['apply', path, '--auto-approve']);
      expect(second.code, second.stderr).toBe(0);
      await gate.answer();
      // The apply whose tasks landed second reads the copies back: drift, not convergence.
      const done = await first;
      expect(done.code, done.stdout + done.stderr).toBe(1);
      expect(done.stdout).not.toMatch(/Converged|No changes/);
      expect(done.stdout).toMatch(/task "Spring sale" of alice_wx \(id [0-9]+, a copy\)/);
    } finally {
      gate.close();
    }
    expect(await pendingByName()).toEqual({ 'Spring sale': 2, 'Summer sale': 2 });
    const third = await cli(['apply', path, '--auto-approve', '--allow-delete', 'tasks=2']);
    expect(third.code, third.stdout + third.stderr).toBe(0);
    expect(await pendingByName()).toEqual({ 'Spring sale': 1, 'Summer sale': 1 });
    expect((await cli(['plan', path, '--expect-no-changes'])).code).toBe(0);
  }, 60_000);
});
