import { describe, expect, it } from 'vitest';
import { runCli, useWorkspace } from '../helpers/cli.js';

// Past 100 problems, one line stands for the rest: the count is of the problems, not of the lines.

const guides = (n: number) =>
  `version: 1\nguides:\n${Array.from(
    { length: n },
    (_, i) => `  - account: ${i}bad\n    nickname: A\n    head_image_url: https://x.example/a\n`,
  ).join('')}`;

describe('validate: more than 100 problems', () => {
  const ws = useWorkspace();

  it('150 invalid accounts: 100 listed, "and 50 more errors not shown", then 150 errors', async () => {
    await ws().write('g.yaml', guides(150));
    const human = await runCli(['validate', 'g.yaml'], { cwd: ws().dir });
    expect(human.code).toBe(1);
    expect(human.stdout.match(/\[guide-account-invalid\]$/gm)).toHaveLength(100);
    expect(human.stdout).toContain(
      'g.yaml:303:14: error: and 50 more errors not shown, from here on; only the first 100 are listed [too-many-problems]',
    );
    expect(human.stdout.endsWith('\n150 errors in 1 file\n')).toBe(true);
  });

  it('--json: the last element says how many problems it stands for', async () => {
    await ws().write('g.yaml', guides(150));
    const json = await runCli(['validate', '--json', 'g.yaml'], { cwd: ws().dir });
    const diagnostics = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(diagnostics).toHaveLength(101);
    expect(diagnostics[100]).toMatchObject({
      code: 'too-many-problems',
      not_shown: { errors: 50, warnings: 0 },
    });
    expect(diagnostics.slice(0, 100).every((d) => d['not_shown'] === undefined)).toBe(true);
  });

  it('placed at a problem whose line may be a secret, the line is not shown under it', async () => {
    const secret = 'F2A9C01B7E4D3A85F2A9C01B7E4D3A8';
    await ws().write('g.yaml', `${guides(100)}environments:\n  dev:\n    credentials: ${secret}\n`);
    const human = await runCli(['validate', 'g.yaml'], { cwd: ws().dir });
    expect(human.stdout).toContain('g.yaml:305:18: error: and 1 more error not shown');
    expect(human.stdout).not.toContain(secret);
  });
});
