import { describe, expect, it } from 'vitest';
import { guideEntries, runCli, useServiceTarget } from '../helpers/cli.js';

interface Event {
  format_version: number;
  type: string;
  index?: number;
  [key: string]: unknown;
}

describe('apply --json-stream', () => {
  // Seeded faults: some calls are answered -1 (system busy) and retried, the same ones each run.
  const target = useServiceTarget({ faults: 'system_error=0.3,seed=2' });

  it('prints one JSON event a line: the plan, each call starting, retrying, done, then a summary', async () => {
    await target.ws.write('g.yaml', `version: 1\ngroups:\n  - name: North\nguides:\n${guideEntries(5)}`);
    const run = await target.cli([
      'apply',
      'g.yaml',
      '--auto-approve',
      '--json-stream',
      '--parallelism',
      '1',
    ]);
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
      verify: 'targeted',
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
  });

  it('is one format: --json and --json-stream together are refused', async () => {
    const run = await runCli(['apply', 'x.yaml', '--json', '--json-stream']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--json and --json-stream are two output formats; give one');
  });
});
