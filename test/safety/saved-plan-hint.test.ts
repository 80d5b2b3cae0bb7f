import { describe, expect, it } from 'vitest';
import { ONE_GUIDE, runCli, useServiceTarget } from '../helpers/cli.js';
import { fetchToken } from '../helpers/service.js';

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
    expect(told(plan.stdout)).toBe(`apply p.json --plan-id ${id}`);
    const shown = await runCli(['show', 'p.json'], { cwd: target.ws.dir });
    expect(told(shown.stdout)).toBe(`apply p.json --plan-id ${id}`);

    const apply = await withToken([...(told(plan.stdout) ?? '').split(' '), '--auto-approve'], accessToken);
    expect(apply.code, apply.stderr).toBe(0);
  });

  it('made with the appid and secret: no plan id needed', async () => {
    await target.ws.write('a.yaml', ONE_GUIDE);
    const plan = await target.cli(['plan', 'a.yaml', '--out', 'p.json']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(told(plan.stdout)).toBe('apply p.json');
  });
});
