import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useWorkspace } from '../helpers/cli.js';

// An environment with neither credentials nor base_url is the embedded service over
// .guidectl/<name>.db. As for a database named by --local-db, a command that only reads creates
// no database there: it reads an empty account and says so; apply creates it.

const FILE = `version: 1
environments:
  production: {}
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://x.example/a
`;
const NOTE =
  "guidectl: note: environment production's database .guidectl/production.db does not exist yet; reading it as an empty account, and creating nothing (apply creates it)\n";

describe("an environment's local database", () => {
  const ws = useWorkspace();
  const cli = (args: string[]) => runCli(args, { cwd: ws().dir, env: {} });
  const db = () => join(ws().dir, '.guidectl', 'production.db');

  it('plan --env and plan --all-envs create none and say so; apply --env creates it', async () => {
    await mkdir(join(ws().dir, 'envs'));
    await ws().write('envs/guides.yaml', FILE);
    const plan = await cli(['plan', 'envs/', '--env', 'production']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).toContain(NOTE);
    expect(plan.stdout).toContain('alice_wx');
    expect(existsSync(db())).toBe(false);

    const all = await cli(['plan', 'envs/', '--all-envs']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).toContain(NOTE);
    expect(existsSync(db())).toBe(false);

    const apply = await cli(['apply', 'envs/', '--env', 'production', '--auto-approve']);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr).not.toContain('does not exist yet');
    expect(existsSync(db())).toBe(true);

    const again = await cli(['plan', 'envs/', '--env', 'production', '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stderr).not.toContain('does not exist yet');
  });
});
