import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALICE_ALONE, runCli, useServiceTarget, useWorkspace } from '../helpers/cli.js';
import { pasted } from '../helpers/spawn.js';

// The "Invited …; Status: guidectl api getguideacct '{…}' …" hint after an apply reaches the
// account that apply changed, pasted into a shell as printed: the target flags that were given
// (--local-db, --base-url) are in it; the credentials stay in the environment.

function hintOf(stdout: string): string {
  const line = /Status: (guidectl api getguideacct .*)$/m.exec(stdout)?.[1];
  if (line === undefined) throw new Error(`no hint in:\n${stdout}`);
  return line;
}

describe('the Invited hint after apply with --local-db', () => {
  const ws = useWorkspace();

  it('names the database, shell-quoted, and answers for the applied guide as printed', async () => {
    await ws().write('a.yaml', ALICE_ALONE);
    const apply = await runCli(['apply', 'a.yaml', '--auto-approve', '--local-db', '.guidectl/my other.db'], {
      cwd: ws().dir,
    });
    expect(apply.code, apply.stderr).toBe(0);
    const hint = hintOf(apply.stdout);
    expect(hint).toBe(
      `guidectl api getguideacct '{"guide_account":"alice_wx"}' --local-db '.guidectl/my other.db'`,
    );
    const status = await pasted(hint, ws().dir, {});
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ errcode: 0, guide_account: 'alice_wx' });
    expect(existsSync(join(ws().dir, '.guidectl', 'local.db'))).toBe(false);
  });
});

describe('the Invited hint after apply with --base-url', () => {
  const target = useServiceTarget({ reset: true });

  it('names the URL, never the credentials, and answers for the applied guide as printed', async () => {
    await target.ws.write('a.yaml', ALICE_ALONE);
    const apply = await target.cli(['apply', 'a.yaml', '--auto-approve']);
    expect(apply.code, apply.stderr).toBe(0);
    const hint = hintOf(apply.stdout);
    expect(hint).toBe(
      `guidectl api getguideacct '{"guide_account":"alice_wx"}' --base-url ${target.service.url}`,
    );
    const { appid, secret } = target.service.credentials;
    expect(hint).not.toContain(appid);
    expect(hint).not.toContain(secret);
    const status = await pasted(hint, target.ws.dir, target.env());
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ errcode: 0, guide_account: 'alice_wx' });
  });
});

describe('the Invited hint after apply of a saved plan of an environment', () => {
  const ws = useWorkspace();

  it("names the environment and the plan's files, and answers for the applied guide as printed", async () => {
    await mkdir(join(ws().dir, 'envs'));
    await ws().write('envs/accounts.yaml', 'version: 1\nenvironments:\n  staging: {}\n');
    await ws().write('envs/guides.yaml', ALICE_ALONE);
    const plan = await runCli(['plan', 'envs/', '--env', 'staging', '--out', 'p.json'], { cwd: ws().dir });
    expect(plan.code, plan.stderr).toBe(0);
    const apply = await runCli(['apply', 'p.json'], { cwd: ws().dir });
    expect(apply.code, apply.stderr).toBe(0);
    const hint = hintOf(apply.stdout);
    expect(hint).toBe(`guidectl api getguideacct '{"guide_account":"alice_wx"}' --env staging --files envs`);
    const status = await pasted(hint, ws().dir, {});
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ errcode: 0, guide_account: 'alice_wx' });
    expect(existsSync(join(ws().dir, '.guidectl', 'local.db'))).toBe(false);
  });
});
