import { beforeAll, describe, expect, it } from 'vitest';
import { formatWrittenTime } from '../../src/core/task-time.js';
import { parseFaults } from '../../src/service/index.js';
import { parseJson } from '../../src/wire/json.js';
import { bindCustomer, useServiceTarget } from '../helpers/cli.js';
import { frozenClock, guideBody } from '../helpers/service.js';

// A task add whose answer is lost is an append: it cannot be resent blindly. Apply settles it by
// one read of the guide's tasks after the loss, against the tasks its plan had just read, and
// goes on, as the README says of every lost write.

// Time stands still, so that the CLI's clock (given as the service's) and the service's agree.
const t = useServiceTarget({ clock: frozenClock() });
const GUIDES = ['guide_one', 'guide_two', 'guide_three', 'guide_four', 'guide_five'];

beforeAll(async () => {
  for (const account of GUIDES) {
    await t.ok('addguideacct', guideBody(account));
    await t.ok('setguideconfig', {
      guide_account: account,
      is_delete: false,
      guide_fast_reply_list: [{ content: 'Hello' }],
    });
    for (const n of [1, 2]) {
      const openid = `o${account}_${n}`;
      await bindCustomer(t, account, openid);
    }
  }
});

function tasksYaml(now: number, perGuide: number): string {
  const guides = GUIDES.map(
    (a) =>
      `  - account: ${a}\n    nickname: ${a}\n    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/${a}/0\n` +
      `    quick_replies: [Hello, "Sale ${a}", Bye]\n`,
  ).join('');
  const tasks = GUIDES.flatMap((a) =>
    Array.from(
      { length: perGuide },
      (_, i) => `  - name: Sale ${i}
    guide: ${a}
    push_at: "${formatWrittenTime(now + 3600 * (i + 1), 480)}"
    recipients: [o${a}_1, o${a}_2]
    materials:
      - text: "Sale ${i} starts now"
`,
    ),
  ).join('');
  const account = 'account:\n  sensitive_words:\n    semantics: append\n    words: [alpha, beta, gamma]\n';
  return `version: 1\n${account}guides:\n${guides}tasks:\n${tasks}`;
}

interface JsonApply {
  converged: boolean | null;
  outcomes: { status: string; operation: string; reason?: string }[];
}

describe('apply: lost answers to appends', () => {
  it('task adds and quick-reply appends are settled by a read against what the plan read: every call done once, one run', async () => {
    const now = Number((await t.sim('clock'))['now']);
    const file = await t.ws.write('tasks.yaml', tasksYaml(now, 8));
    t.service.setFaults(parseFaults('lost_answer=0.2,seed=4'));
    const run = await t.cli(['apply', file, '--auto-approve', '--continue-on-error', '--json', '--verbose'], {
      now: () => now * 1000,
    });
    t.service.setFaults(parseFaults(''));
    const result = parseJson(run.stdout) as JsonApply;
    const failed = result.outcomes.filter((o) => o.status !== 'done');
    expect(failed).toEqual([]);
    // The run did lose the answer of a task add, and settled it by a read: not a run without loss.
    expect(run.stderr).toMatch(/addguidemassendjob: the answer was lost; confirmed by reading: applied/);
    expect(result.converged).toBe(true);
    expect(run.code, run.stderr).toBe(0);
    for (const account of GUIDES) {
      const list = await t.ok('getguidemassendjoblist', {
        guide_account: account,
        task_status: [1],
        limit: 100,
      });
      expect(list['total_count'], account).toBe(8);
      const config = await t.ok('getguideconfig', { guide_account: account });
      expect(JSON.stringify(config['guide_fast_reply_list']), account).toMatch(/Hello.*Sale.*Bye/);
      expect(config['guide_fast_reply_list'], account).toHaveLength(3);
    }
  }, 60_000);
});
