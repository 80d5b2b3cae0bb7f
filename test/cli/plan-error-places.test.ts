import { describe, expect, it } from 'vitest';
import { runCli, useWorkspace } from '../helpers/cli.js';
import { frozenClock } from '../helpers/service.js';

// The errors that only the plan can find point at the value they are about, with its end.

const FILE = `version: 1
environments:
  a:
    values:
      n: Alice
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://x.example/a
tasks:
  - name: past
    guide: alice_wx
    push_at: 2020-12-01T10:00:00+08:00
    recipients: [o1]
    materials: [{text: Hi}]
  - name: far
    guide: alice_wx
    push_at: 2099-12-01T10:00:00+08:00
    recipients: [o1]
    materials: [{text: Hi}]
  - name: noguide
    guide: bob_wx
    push_at: 2020-12-01T10:00:00+08:00
    recipients: [o1]
    materials: [{text: Hi}]
`;

describe('plan-time errors point at the value', () => {
  const ws = useWorkspace();

  it('push_at and the guide of a task, with the end column in --json', async () => {
    await ws().write('t.yaml', FILE);
    // By a clock that stands still: by the real one, the "far" push_at would not stay too far.
    const { now } = frozenClock();
    const { stdout } = await runCli(['plan', '--env', 'a', '--json', 't.yaml'], { cwd: ws().dir, now });
    const { diagnostics } = JSON.parse(stdout) as { diagnostics: Record<string, unknown>[] };
    const places = diagnostics
      .filter((d) => d['severity'] === 'error')
      .map((d) => `${String(d['code'])} ${d['line']}:${d['column']}-${d['endLine']}:${d['endColumn']}`);
    expect(places).toEqual([
      'task-push-time-past 13:14-13:39',
      'task-push-time-too-far 18:14-18:39',
      'task-guide-not-found 22:12-22:18',
    ]);
  });

  it('an env-reference-invalid underlines the malformed reference, not the whole string', async () => {
    await ws().write('t.yaml', FILE.replace('nickname: Alice', `nickname: "Hi \${n} \${bad name}"`));
    const { stdout } = await runCli(['validate', '--json', 't.yaml'], { cwd: ws().dir });
    const [d] = JSON.parse(stdout) as Record<string, unknown>[];
    expect(d).toMatchObject({
      code: 'env-reference-invalid',
      line: 8,
      column: 24,
      endLine: 8,
      endColumn: 35,
    });
  });
});
