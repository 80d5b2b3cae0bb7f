import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { formatWrittenTime } from '../../src/core/task-time.js';
import { parseJson } from '../../src/wire/json.js';
import { bindCustomer, type CliRun, runCli, useServiceTarget } from '../helpers/cli.js';
import { frozenClock, guideBody } from '../helpers/service.js';

// Mass-send tasks as code, end to end: the CLI over real HTTP against the service, whose clock
// (frozen unless a test moves it through /__sim/clock) the CLI is given as its own, so that "now"
// is the same on both sides.

const t = useServiceTarget({ reset: true, clock: frozenClock() });
let now: number;

beforeEach(async () => {
  now = Number((await t.sim('clock'))['now']);
  await t.ok('addguideacct', guideBody('alice_wx'));
  for (const openid of ['oCustomer1', 'oCustomer2', 'oCustomer3']) {
    await bindCustomer(t, 'alice_wx', openid);
  }
});

async function cli(args: readonly string[]): Promise<CliRun> {
  const clock = Number((await t.sim('clock'))['now']);
  return t.cli(args, { now: () => clock * 1000 });
}

const HEAD = `version: 1
guides:
  - account: alice_wx
    nickname: alice_wx
    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/alice_wx/0
`;

/** A file with the tasks given (YAML list entries) and the prune section. */
function file(tasks: string, prune = ''): string {
  return `${HEAD}tasks:\n${tasks}${prune}`;
}

function task(name: string, pushAt: number, extra = 'recipients: [oCustomer1, oCustomer2]\n'): string {
  return `  - name: ${name}
    guide: alice_wx
    push_at: "${formatWrittenTime(pushAt, 480)}"
    ${extra}    materials:
      - text: "Spring sale starts now!"
`;
}

interface JsonPlan {
  summary: { add: number; change: number; delete: number; calls: number };
  calls: { operation: string; body: Record<string, unknown> }[];
  changes: { resource: string; action: string; address: string }[];
}

async function plan(path: string): Promise<{ plan: JsonPlan; run: CliRun }> {
  const run = await cli(['plan', path, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return { plan: parseJson(run.stdout) as JsonPlan, run };
}

interface LiveTask {
  task_id: bigint;
  task_name: string;
  task_remark: string;
  task_status: number;
  buyer_info: { openid: string }[];
}

async function liveTasks(): Promise<LiveTask[]> {
  const answer = await t.ok('getguidemassendjoblist', { guide_account: 'alice_wx' });
  return answer['list'] as LiveTask[];
}

describe('tasks as code', () => {
  it('creates, updates while pending, then an executed task is history: a warning and no call', async () => {
    const path = await t.ws.write('tasks.yaml', file(task('Spring sale', now + 3600)));
    const created = await cli(['apply', path, '--auto-approve']);
    expect(created.code, created.stderr + created.stdout).toBe(0);
    expect(created.stdout).toContain('task "Spring sale" of alice_wx');
    const [live] = await liveTasks();
    expect(live?.buyer_info.map((b) => b.openid).sort()).toEqual(['oCustomer1', 'oCustomer2']);
    const id = live?.task_id;
    // 64-bit: larger than 2^53, and kept exact from the answer to the plan's body.
    expect(typeof id).toBe('bigint');
    expect((id ?? 0n) > 2n ** 53n).toBe(true);
    expect((await plan(path)).plan.summary.calls).toBe(0);

    // Recipients are a set: the same openids in another order and repeated change nothing.
    const reordered = task('Spring sale', now + 3600, 'recipients: [oCustomer2, oCustomer1, oCustomer2]\n');
    await t.ws.write('tasks.yaml', file(reordered));
    expect((await plan(path)).plan.summary.calls).toBe(0);

    // Pending and different: one update of the whole task, by its exact id.
    const changed = task(
      'Spring sale',
      now + 1800,
      'remark: VIPs first\n    recipients: [oCustomer1, oCustomer3]\n',
    );
    await t.ws.write('tasks.yaml', file(changed));
    const { plan: update, run } = await plan(path);
    expect(update.calls.map((c) => c.operation)).toEqual(['updateguidemassendjob']);
    expect(update.calls[0]?.body['task_id']).toBe(id);
    expect(run.stdout).toContain(`"task_id": ${String(id)}`);
    expect(update.summary).toMatchObject({ change: 1, calls: 1 });
    const updated = await cli(['apply', path, '--auto-approve']);
    expect(updated.code, updated.stderr + updated.stdout).toBe(0);
    const [after] = await liveTasks();
    expect(after?.task_id).toBe(id);
    expect(after?.task_remark).toBe('VIPs first');
    expect(after?.buyer_info.map((b) => b.openid).sort()).toEqual(['oCustomer1', 'oCustomer3']);

    // The push time passes: the task is executed, and a change of it is a warning, not a call.
    await t.sim('clock', { advance: 3600 });
    await t.ws.write(
      'tasks.yaml',
      file(task('Spring sale', now + 1800, 'remark: too late\n    recipients: [oCustomer1, oCustomer3]\n')),
    );
    const late = await cli(['plan', path, '--detailed-exitcode']);
    expect(late.code, late.stderr + late.stdout).toBe(0);
    // The headline does not say the account matches the files: the warning says it differs.
    expect(late.stdout).toContain(
      'No changes to make, but 1 warning: read it before taking the account as matching the files.',
    );
    expect(late.stdout).not.toContain('matches the files');
    expect(late.stderr).toMatch(
      /warning: task "Spring sale" of alice_wx was already executed at .*\+08:00; it cannot change \(remark differ\)/,
    );
    // The machine formats carry the warning, as stderr tells it to people.
    const json = (await plan(path)).plan as JsonPlan & { diagnostics: Record<string, unknown>[] };
    expect(json.summary).toEqual({ add: 0, change: 0, delete: 0, calls: 0 });
    expect(json.diagnostics).toEqual([
      expect.objectContaining({ severity: 'warning', code: 'task-executed', file: 'tasks.yaml', line: 7 }),
    ]);
    const markdown = await cli(['plan', path, '--markdown']);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toContain(
      '**No changes to make, but 1 warning: read it before taking the account as matching the files.**',
    );
    expect(markdown.stdout).toMatch(
      /> \[!WARNING\]\n> \*\*1 warning:\*\*\n> - tasks\.yaml:7:5: task "Spring sale" of alice\\_wx was already executed at .*; it cannot change \(remark differ\) \(`task-executed`\)\n/,
    );
  });

  it('refuses a push time in the past or more than a month ahead, naming the range in the file offset', async () => {
    const path = await t.ws.write('tasks.yaml', file(task('Old', now - 60) + task('Far', now + 40 * 86_400)));
    const run = await cli(['plan', path]);
    expect(run.code).toBe(1);
    const from = formatWrittenTime(now, 480);
    const to = formatWrittenTime(now + 30 * 86_400, 480);
    expect(run.stderr).toContain(
      `is in the past; a task to create or change must be pushed from ${from} to ${to}`,
    );
    expect(run.stderr).toContain('is more than one month ahead');
    expect(await liveTasks()).toEqual([]);
  });

  it('prune.tasks cancels only the pending tasks the files do not list; executed ones stay', async () => {
    const body = (name: string, push: number) => ({
      guide_account: 'alice_wx',
      task_name: name,
      push_time: push,
      openid: ['oCustomer1'],
      material: [{ type: 1, word: 'hi' }],
    });
    await t.ok('addguidemassendjob', body('Done', now + 60));
    await t.sim('clock', { advance: 120 });
    await t.ok('addguidemassendjob', body('Later', now + 3600));
    const path = await t.ws.write('tasks.yaml', `${HEAD}tasks: []\n`);
    const leftAlone = await cli(['plan', path]);
    expect(leftAlone.stdout).toContain(
      'Pending tasks not in the files, left alone: 1 task ("Later" of alice_wx',
    );
    await t.ws.write('tasks.yaml', `${HEAD}tasks: []\nprune:\n  tasks: true\n`);
    const { plan: prune } = await plan(path);
    expect(prune.calls.map((c) => c.operation)).toEqual(['cancelguidemassendjob']);
    expect(prune.summary.delete).toBe(1);
    const guarded = await cli(['apply', path, '--auto-approve', '--max-deletes', 'tasks=0']);
    expect(guarded.code).toBe(1);
    expect(guarded.stdout + guarded.stderr).toContain('--allow-delete tasks=1');
    const applied = await cli([
      'apply',
      path,
      '--auto-approve',
      '--max-deletes',
      'tasks=0',
      '--allow-delete',
      'tasks=1',
    ]);
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    const statuses = Object.fromEntries((await liveTasks()).map((x) => [x.task_name, x.task_status]));
    expect(statuses).toEqual({ Done: 3, Later: 4 });
    // A cancelled task is not matched: listing it again creates a new one.
    await t.ws.write('tasks.yaml', file(task('Later', now + 7200)));
    expect((await plan(path)).plan.calls.map((c) => c.operation)).toEqual(['addguidemassendjob']);
  });

  /** A live pending task "Keep" of alice_wx to oCustomer1, saying "hi", in an hour. */
  const addKeep = () =>
    t.ok('addguidemassendjob', {
      guide_account: 'alice_wx',
      task_name: 'Keep',
      push_time: now + 3600,
      openid: ['oCustomer1'],
      material: [{ type: 1, word: 'hi' }],
    });

  it('tasks: with no value (null) means none, as tasks: [] does: the same plan, with prune.tasks and without', async () => {
    await addKeep();
    for (const prune of ['', 'prune:\n  tasks: true\n']) {
      const empty = await plan(await t.ws.write('empty.yaml', `${HEAD}tasks: []\n${prune}`));
      const none = await plan(await t.ws.write('none.yaml', `${HEAD}tasks:\n${prune}`));
      const tilde = await plan(await t.ws.write('tilde.yaml', `${HEAD}tasks: ~\n${prune}`));
      expect(none.run.stderr).toBe(empty.run.stderr);
      // The whole plan: calls, changes, what is left alone, and the plan id (the files' meaning).
      expect(none.plan).toEqual(empty.plan);
      expect(tilde.plan).toEqual(empty.plan);
      expect(empty.plan.calls.map((c) => c.operation)).toEqual(prune === '' ? [] : ['cancelguidemassendjob']);
    }
  });

  it('protected: true keeps a task from being cancelled', async () => {
    await addKeep();
    // Listed twice: the one copy is matched, the second copy would be cancelled, but it is protected.
    await addKeep();
    const keep = task('Keep', now + 3600, 'protected: true\n    recipients: [oCustomer1]\n').replace(
      'Spring sale starts now!',
      'hi',
    );
    const path = await t.ws.write('tasks.yaml', file(keep, 'prune:\n  tasks: true\n'));
    const run = await cli(['plan', path]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'task "Keep" of alice_wx is protected, but the plan would cancel its live copy',
    );
  });

  it('protect.tasks keeps a task from being cancelled once the files no longer list it', async () => {
    await addKeep();
    const protect = 'protect:\n  tasks:\n    - {guide: alice_wx, name: Keep}\n';
    const path = await t.ws.write(
      'tasks.yaml',
      file(task('Other', now + 3600), `prune:\n  tasks: true\n${protect}`),
    );
    const run = await cli(['plan', path]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'tasks.yaml:17:7: error: task "Keep" of alice_wx is protected, but the plan would cancel its live copy',
    );
    // Without the protection, the same files cancel it.
    await t.ws.write('tasks.yaml', file(task('Other', now + 3600), 'prune:\n  tasks: true\n'));
    const plan = await cli(['plan', path, '--json']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(
      JSON.parse(plan.stdout)
        .calls.map((c: { operation: string }) => c.operation)
        .sort(),
    ).toEqual(['addguidemassendjob', 'cancelguidemassendjob']);
  });

  it('reads recipients from a CSV file next to the YAML file', async () => {
    await t.ws.write('vip.csv', 'name,openid\nAnn,oCustomer1\n"Bo, Jr.",oCustomer3\n');
    const path = await t.ws.write('tasks.yaml', file(task('CSV', now + 3600, 'recipients_file: vip.csv\n')));
    const run = await cli(['apply', path, '--auto-approve']);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const [live] = await liveTasks();
    expect(live?.buyer_info.map((b) => b.openid).sort()).toEqual(['oCustomer1', 'oCustomer3']);
    await t.ws.write('vip.csv', 'name,openid\nAnn,oCustomer1\nBo,not an openid\n');
    const bad = await runCli(['validate', path], { cwd: t.ws.dir });
    expect(bad.code).toBe(1);
    expect(bad.stdout + bad.stderr).toMatch(
      /vip\.csv:3:4: error: not an openid: its character 4 \(of 13\) is a space/,
    );
  });

  it('export writes the pending tasks (not the executed ones), and the file plans to no changes', async () => {
    const add = (name: string, push: number, remark = '') =>
      t.ok('addguidemassendjob', {
        guide_account: 'alice_wx',
        task_name: name,
        task_remark: remark,
        push_time: push,
        openid: ['oCustomer2', 'oCustomer1'],
        material: [
          { type: 1, word: '春季促销' },
          { type: 1, word: 'second' },
        ],
      });
    await add('Done', now + 60);
    await t.sim('clock', { advance: 120 });
    await add('Soon', now + 3600, 'VIPs first');
    await add('Later', now + 7200);
    const exported = await cli(['export', '-o', 'exported.yaml']);
    expect(exported.code, exported.stderr).toBe(0);
    // The summary counts the tasks written.
    expect(exported.stderr).toMatch(/(^|\n)guidectl: wrote exported\.yaml: 1 guide, 0 groups, 2 tasks\n$/);
    const text = await readFile(join(t.ws.dir, 'exported.yaml'), 'utf8');
    expect(text).toContain('- name: Soon');
    expect(text).toContain(`push_at: ${formatWrittenTime(now + 3600, 0)}`);
    expect(text).not.toContain('name: Done');
    const again = await cli(['plan', 'exported.yaml', '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes.');
    expect(again.stderr).not.toContain('warning');
  });

  it('a saved plan is stale when a task changed since, and says which; applied unchanged it updates by the exact id', async () => {
    const path = await t.ws.write('tasks.yaml', file(task('Spring sale', now + 3600)));
    expect((await cli(['apply', path, '--auto-approve'])).code).toBe(0);
    const [live] = await liveTasks();
    await t.ws.write(
      'tasks.yaml',
      file(task('Spring sale', now + 3600, 'remark: new\n    recipients: [oCustomer1, oCustomer2]\n')),
    );
    const saved = await cli(['plan', path, '--out', 'plan.json']);
    expect(saved.code, saved.stderr).toBe(0);
    expect(await readFile(join(t.ws.dir, 'plan.json'), 'utf8')).toContain(
      `"task_id": ${String(live?.task_id)}`,
    );
    await t.ok('updateguidemassendjob', { task_id: live?.task_id, task_remark: 'by hand' });
    const stale = await cli(['apply', 'plan.json']);
    expect(stale.code).toBe(1);
    expect(stale.stdout + stale.stderr).toContain(
      `task "Spring sale" of alice_wx (id ${String(live?.task_id)})`,
    );
    await t.ok('updateguidemassendjob', { task_id: live?.task_id, task_remark: '' });
    const applied = await cli(['apply', 'plan.json']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect((await liveTasks())[0]).toMatchObject({ task_id: live?.task_id, task_remark: 'new' });
  });
});
