import { beforeAll, describe, expect, it, vi } from 'vitest';
import { formatWrittenTime } from '../../src/core/task-time.js';
import { parseFaults } from '../../src/service/index.js';
import { parseJson } from '../../src/wire/json.js';
import { bindCustomer, type CliRun, useServiceTarget } from '../helpers/cli.js';
import { startGateway } from '../helpers/gateway.js';
import { frozenClock, guideBody } from '../helpers/service.js';

// Apply behind a gateway that answers 504 after its timeout while the request carries on
// upstream (nginx's proxy_read_timeout), against a service that holds some calls longer than
// that: the creates and appends whose answer the gateway lost are watched for by reads until the
// late original lands, never simply sent again. At most two applies converge, and nothing is
// doubled: guides, groups, quick replies, tasks.

const t = useServiceTarget({ clock: frozenClock() });
const GUIDES = Array.from({ length: 8 }, (_, i) => `guide_${i + 1}`);
const GROUPS = ['North', 'South', 'East'];

beforeAll(async () => {
  // The guides exist with their customers; the applies below create everything else.
  for (const account of GUIDES) {
    await t.ok('addguideacct', guideBody(account));
    const openid = `o${account}_buyer`;
    await bindCustomer(t, account, openid);
  }
});

function files(now: number): string {
  const guides = GUIDES.map(
    (a) =>
      `  - account: ${a}\n    nickname: ${a}\n    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/${a}/0\n` +
      `    quick_replies: [Hello, "Sale at ${a}", Bye]\n`,
  ).join('');
  const groups = GROUPS.map(
    (name, i) =>
      `  - name: ${name}\n    members: [${GUIDES.filter((_, g) => g % GROUPS.length === i).join(', ')}]\n`,
  ).join('');
  const tasks = GUIDES.flatMap((a) =>
    [1, 2].map(
      (n) => `  - name: Sale ${n}
    guide: ${a}
    push_at: "${formatWrittenTime(now + 3600 * n, 480)}"
    recipients: [o${a}_buyer]
    materials:
      - text: "Sale ${n} starts now"
`,
    ),
  ).join('');
  return `version: 1\nguides:\n${guides}groups:\n${groups}tasks:\n${tasks}`;
}

describe('apply behind a gateway that times out while the service still works', () => {
  it('converges in at most two applies, with no copy of anything', async () => {
    const now = Number((await t.sim('clock'))['now']);
    const path = await t.ws.write('shop.yaml', files(now));
    const gateway = await startGateway(t.service.url, { timeoutMs: 200 });
    const applies: CliRun[] = [];
    try {
      t.service.setFaults(parseFaults('hold=0.2,hold_time=600ms,seed=11'));
      for (let i = 0; i < 2; i++) {
        const run = await t.cli(['apply', path, '--auto-approve', '--json', '--verbose'], {
          now: () => now * 1000,
          baseUrl: gateway.url,
        });
        applies.push(run);
        if (run.code === 0) break;
      }
    } finally {
      t.service.setFaults(parseFaults(''));
      gateway.close();
    }
    const last = applies.at(-1);
    expect(last?.code, last?.stderr).toBe(0);
    expect((parseJson(last?.stdout ?? '{}') as { converged: unknown }).converged).toBe(true);
    // The gateway did give up on writes that then landed, and the reads after found them.
    expect(gateway.gaveUp).toBeGreaterThan(0);
    expect(applies[0]?.stderr).toMatch(/the answer was lost; confirmed by reading: applied/);
    // Let any call still held land before the account is read: wait until none is in service.
    await vi.waitFor(() => expect(t.service.callsInService, 'calls still held').toBe(0), {
      timeout: 20_000,
      interval: 5,
    });

    const groups = (await t.ok('getguidegrouplist'))['group_list'] as { name: string }[];
    expect(groups.map((g) => g.name).sort()).toEqual([...GROUPS].sort());
    const guides = (await t.ok('getguideacctlist', { page: 0, num: 100 }))['total_num'];
    expect(guides).toBe(GUIDES.length);
    for (const account of GUIDES) {
      const config = await t.ok('getguideconfig', { guide_account: account });
      const replies = (config['guide_fast_reply_list'] as { content: string }[]).map((r) => r.content);
      expect(replies, account).toEqual(['Hello', `Sale at ${account}`, 'Bye']);
      const tasks = await t.ok('getguidemassendjoblist', {
        guide_account: account,
        task_status: [1],
        limit: 100,
      });
      const names = (tasks['list'] as { task_name: string }[]).map((x) => x.task_name).sort();
      expect(names, account).toEqual(['Sale 1', 'Sale 2']);
    }
    const plan = await t.cli(['plan', path, '--expect-no-changes'], { now: () => now * 1000 });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  }, 120_000);
});
