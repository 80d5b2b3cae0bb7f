import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuideService } from '../../src/service/index.js';
import { runCli, workspace } from '../helpers/cli.js';

interface Event {
  format_version: number;
  type: string;
  index?: number;
  [key: string]: unknown;
}

describe('apply --json-stream', () => {
  let service: GuideService;
  beforeAll(async () => {
    // Seeded faults: some calls are answered -1 (system busy) and retried, the same ones each run.
    service = await GuideService.start({ db: ':memory:', faults: 'system_error=0.3,seed=2' });
  });
  afterAll(() => service.close());

  it('prints one JSON event a line: the plan, each call starting, retrying, done, then a summary', async () => {
    const ws = await workspace();
    try {
      const guides = Array.from(
        { length: 5 },
        (_, i) =>
          `  - account: guide_${i}00\n    nickname: G${i}\n    head_image_url: https://img.example/${i}\n`,
      ).join('');
      await ws.write('g.yaml', `version: 1\ngroups:\n  - name: North\nguides:\n${guides}`);
      const run = await runCli(
        [
          'apply',
          'g.yaml',
          '--auto-approve',
          '--json-stream',
          '--parallelism',
          '1',
          '--base-url',
          service.url,
        ],
        {
          env: { WECHAT_APPID: service.credentials.appid, WECHAT_SECRET: service.credentials.secret },
          cwd: ws.dir,
        },
      );
      expect(run.code, run.stderr).toBe(0);
      const lines = run.stdout.trimEnd().split('\n');
      const events = lines.map((line) => JSON.parse(line) as Event);
      expect(events.every((e) => e.format_version === 1)).toBe(true);
      expect(events[0]).toMatchObject({ type: 'plan', calls: 6, summary: { add: 6, calls: 6 } });
      expect(events.at(-1)).toEqual({
        format_version: 1,
        type: 'summary',
        plan_id: events[0]?.['plan_id'],
        calls: 6,
        done: 6,
        failed: 0,
        not_started: 0,
        interrupted: false,
        converged: true,
        exit_code: 0,
      });
      // Each call starts once, then ends once; its retries come in between.
      for (let index = 0; index < 6; index++) {
        const own = events.filter((e) => e.index === index).map((e) => e.type);
        expect(own[0]).toBe('call_start');
        expect(own.at(-1)).toBe('call_done');
        expect(own.slice(1, -1).every((t) => t === 'call_retry')).toBe(true);
      }
      const retry = events.find((e) => e.type === 'call_retry');
      expect(retry).toMatchObject({
        operation: expect.any(String),
        attempt: expect.any(Number),
        reason: expect.stringContaining('-1'),
      });
      expect(retry?.['delay_ms']).toEqual(expect.any(Number));
    } finally {
      await ws.remove();
    }
  });

  it('is one format: --json and --json-stream together are refused', async () => {
    const run = await runCli(['apply', 'x.yaml', '--json', '--json-stream']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--json and --json-stream are two output formats; give one');
  });
});
