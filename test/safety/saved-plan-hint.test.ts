import { existsSync, realpathSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellWord } from '../../src/core/shell-word.js';
import { ONE_GUIDE, runCli, useServiceTarget, useWorkspace } from '../helpers/cli.js';
import { fetchToken } from '../helpers/service.js';
import { pasted } from '../helpers/spawn.js';

// `plan --out` ends with the command that applies the saved plan. Made with an access token, which
// names no account, the plan is applied only with its id: the command carries `--plan-id ID`, and
// runs as printed.

const target = useServiceTarget({ reset: true });
const token = async (): Promise<string> => {
  const { url, credentials } = target.service;
  return fetchToken(url, credentials.appid, credentials.secret);
};
const withToken = (args: readonly string[], token: string) =>
  runCli([...args, '--base-url', target.service.url], {
    cwd: target.ws.dir,
    env: { WECHAT_ACCESS_TOKEN: token },
  });
const told = (stdout: string): string | undefined =>
  /apply exactly these calls with: guidectl (apply .*)\n/.exec(stdout)?.[1];

describe('the command plan --out prints to apply its saved plan', () => {
  it('made with an access token: carries the plan id, and applies as printed', async () => {
    await target.ws.write('a.yaml', ONE_GUIDE);
    const accessToken = await token();
    const plan = await withToken(['plan', 'a.yaml', '--out', 'p.json'], accessToken);
    expect(plan.code, plan.stderr).toBe(0);
    const id = /^Plan id: ([0-9a-f]{12})$/m.exec(plan.stdout)?.[1] ?? '';
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    const url = target.service.url;
    expect(told(plan.stdout)).toBe(`apply p.json --base-url ${url} --plan-id ${id}`);
    const shown = await runCli(['show', 'p.json'], { cwd: target.ws.dir });
    expect(told(shown.stdout)).toBe(`apply p.json --base-url ${url} --plan-id ${id}`);

    const printed = [...(told(plan.stdout) ?? '').split(' '), '--auto-approve'];
    const apply = await runCli(printed, { cwd: target.ws.dir, env: { WECHAT_ACCESS_TOKEN: accessToken } });
    expect(apply.code, apply.stderr).toBe(0);
  });

  it('made with the appid and secret: no plan id needed', async () => {
    await target.ws.write('a.yaml', ONE_GUIDE);
    const plan = await target.cli(['plan', 'a.yaml', '--out', 'p.json']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(told(plan.stdout)).toBe(`apply p.json --base-url ${target.service.url}`);
  });
});

describe('the command plan --out prints, made with --local-db', () => {
  const ws = useWorkspace();

  it('names the database, shell-quoted, and applies to it as printed', async () => {
    await ws().write('a.yaml', ONE_GUIDE);
    await mkdir(join(ws().dir, 'my plans'), { recursive: true });
    const args = ['plan', 'a.yaml', '--local-db', "it's here.db", '--out', "my plans/bob's plan.json"];
    const plan = await runCli(args, { cwd: ws().dir });
    expect(plan.code, plan.stderr).toBe(0);
    const line = /apply exactly these calls with: (guidectl apply .*)\n/.exec(plan.stdout)?.[1] ?? '';
    expect(line).toBe(`guidectl apply 'my plans/bob'\\''s plan.json' --local-db 'it'\\''s here.db'`);
    const shown = await runCli(['show', "my plans/bob's plan.json"], { cwd: ws().dir });
    const again = /apply exactly these calls with: (guidectl apply .*)\n/.exec(shown.stdout)?.[1] ?? '';
    const database = shellWord(join(realpathSync(ws().dir), "it's here.db"));
    expect(again).toBe(`guidectl apply 'my plans/bob'\\''s plan.json' --local-db ${database}`);
    const apply = await pasted(again, ws().dir);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('Converged: the account matches the files.');
    expect(existsSync(join(ws().dir, '.guidectl', 'local.db'))).toBe(false);
  });
});
