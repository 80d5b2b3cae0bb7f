import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type Workspace, workspace } from '../helpers/cli.js';
import { startServeProcess } from '../helpers/serve-process.js';
import { fetchToken, guideBody, rawRequest, simCall } from '../helpers/service.js';

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace();
});
afterAll(() => ws.remove());

const creds = { appid: 'wx00000000000000e1', secret: 'serve-quota-secret-01' };

async function post(
  url: string,
  token: string,
  path: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  return (
    await rawRequest(`${url}${path}?access_token=${token}`, { method: 'POST', body: JSON.stringify(body) })
  ).json;
}

describe('guidectl serve --quota, --per-minute, --capacity', () => {
  it('says the limits in its banner, and keeps the day’s counts across a kill', async () => {
    const db = join(ws.dir, 'quotas.db');
    const args = [
      '--db',
      db,
      '--appid',
      creds.appid,
      '--secret',
      creds.secret,
      '--simulation',
      '--quota',
      'addguideacct=2,default=1000',
      '--per-minute',
      'all=100',
      '--capacity',
      '8',
    ];
    const first = await startServeProcess(args);
    let token: string;
    try {
      token = await fetchToken(first.url, creds.appid, creds.secret);
      for (const account of ['guide_k1', 'guide_k2']) {
        expect(
          (await post(first.url, token, '/cgi-bin/guide/addguideacct', guideBody(account)))['errcode'],
        ).toBe(0);
      }
      expect(
        (await post(first.url, token, '/cgi-bin/guide/addguideacct', guideBody('guide_k3')))['errcode'],
      ).toBe(45009);
    } finally {
      await first.stop('SIGKILL');
    }
    expect((await first.spawned.ended).stdout).toContain(
      '\n  quotas     daily addguideacct=2, default=1000; per minute all=100; capacity 8 calls at once\n  limits ',
    );
    const again = await startServeProcess(args);
    try {
      expect(
        (await post(again.url, token, '/cgi-bin/guide/addguideacct', guideBody('guide_k3')))['errcode'],
      ).toBe(45009);
      const quota = await post(again.url, token, '/cgi-bin/openapi/quota/get', {
        cgi_path: '/cgi-bin/guide/addguideacct',
      });
      expect(quota).toEqual({ errcode: 0, errmsg: 'ok', quota: { daily_limit: 2, used: 2, remain: 0 } });
      // A day on, whatever the hour: past midnight UTC+8.
      await simCall(again.url, 'clock', { advance: 86_400 });
      const renewed = await fetchToken(again.url, creds.appid, creds.secret);
      expect(
        (await post(again.url, renewed, '/cgi-bin/guide/addguideacct', guideBody('guide_k3')))['errcode'],
      ).toBe(0);
    } finally {
      await again.stop();
    }
  });

  it('refuses a bad --quota, --per-minute or --capacity, naming it and the fix', async () => {
    const cases: [string[], string][] = [
      [
        ['--quota', 'addguide=1'],
        `option '--quota <spec>' argument 'addguide=1' is invalid. --quota: "addguide" is not a guide operation; name one as in /cgi-bin/guide/NAME (e.g. addguideacct), or default`,
      ],
      [
        ['--per-minute', 'all=many'],
        `option '--per-minute <spec>' argument 'all=many' is invalid. --per-minute: all=many must be a whole number of calls`,
      ],
      [
        ['--capacity', '0'],
        `option '--capacity <n>' argument '0' is invalid. --capacity takes a whole number from 1 to 1000000.`,
      ],
    ];
    for (const [flags, message] of cases) {
      const run = await runCli(['serve', '--port', '0', '--db', ':memory:', ...flags], { cwd: ws.dir });
      expect(run.code, message).toBe(1);
      expect(run.stderr).toContain(message);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(run.stdout).toBe('');
    }
  });
});
