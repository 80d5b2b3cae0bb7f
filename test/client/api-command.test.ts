import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runProgram } from '../../src/cli/program.js';
import type { GuideService } from '../../src/service/index.js';
import { parseJson } from '../../src/wire/json.js';
import { fetchToken, frozenClock, rawRequest, simCall } from '../helpers/service.js';
import { fakeIo, guide, startService } from './helpers.js';

// `guidectl api OPERATION [JSON]`, run in-process against the service over real HTTP.

let service: GuideService;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  service = await startService();
  dir = await mkdtemp(join(tmpdir(), 'guidectl-api-'));
  env = { WECHAT_APPID: service.credentials.appid, WECHAT_SECRET: service.credentials.secret };
});

afterAll(async () => {
  await service.close();
  await rm(dir, { recursive: true, force: true });
});

async function api(args: string[], environment: Record<string, string | undefined> = env, cwd = dir) {
  const io = fakeIo(environment, cwd);
  const status = await runProgram(['api', ...args], io);
  return { status, out: io.out(), err: io.err() };
}

describe('guidectl api against --base-url', () => {
  test('a wait forced by the token throttle (45011) is told on stderr without --verbose, then the call is made', async () => {
    // One wrong secret blocks the appid for a minute of the service's clock (frozen): the right
    // one is refused 45011 until the test moves the clock on, once the wait was told.
    const throttled = await startService({
      tokenThrottle: { limit: 1, windowMs: 60_000 },
      clock: frozenClock(),
    });
    try {
      const { appid, secret } = throttled.credentials;
      await rawRequest(`${throttled.url}/cgi-bin/stable_token`, {
        method: 'POST',
        body: JSON.stringify({
          grant_type: 'client_credential',
          appid,
          secret: 'wrong',
          force_refresh: false,
        }),
      });
      const io = fakeIo({ WECHAT_APPID: appid, WECHAT_SECRET: secret }, dir, {
        onStderr: (text) => {
          if (text.includes('token requests are throttled'))
            void simCall(throttled.url, 'clock', { advance: 61 });
        },
      });
      // A few seconds of retries at most: without the line, the clock never moves on.
      const args = ['api', 'getguidegrouplist', '--base-url', throttled.url, '--read-retry', '8'];
      const status = await runProgram(args, io);
      expect(status, io.err()).toBe(0);
      expect(io.err()).toMatch(
        /^(guidectl: waiting [0-9]+\.[0-9] s: token requests are throttled \(45011, after repeated failed token requests\)\n)+$/,
      );
    } finally {
      await throttled.close();
    }
  }, 30_000);

  test('prints the answer as JSON; 64-bit ids stay exact, as bare numbers, through create → list → use', async () => {
    const add = await api(['addguideacct', JSON.stringify(guide(1)), '--base-url', service.url]);
    expect(add).toEqual({ status: 0, out: '{\n  "errcode": 0,\n  "errmsg": "ok"\n}\n', err: '' });

    const created = await api(['newguidegroup', '{"group_name": "Flagship"}', '--base-url', service.url]);
    expect(created.status).toBe(0);
    const id = /"group_id": ([0-9]+)/.exec(created.out)?.[1];
    expect(id).toMatch(/^[0-9]{19}$/);
    expect(BigInt(id ?? '0') > 2n ** 53n).toBe(true);

    const listed = await api(['getguidegrouplist', '--base-url', service.url]);
    expect(listed.out).toContain(`"id": ${id},`);
    const member = await api([
      'addguide2guidegroup',
      `{"group_id": ${id}, "guide_account": "guide_0001"}`,
      '--base-url',
      service.url,
    ]);
    expect(member.status).toBe(0);
    const info = await api([
      'getgroupinfo',
      `{"group_id": ${id}, "page": 0, "num": 10}`,
      '--base-url',
      service.url,
    ]);
    expect(info.status).toBe(0);
    expect(parseJson(info.out)).toMatchObject({
      total_num: 1,
      guide_list: [{ guide_account: 'guide_0001' }],
    });
  });

  test('an API error: the answer as JSON on stdout, one line on stderr, exit 1', async () => {
    const result = await api(['getguideacct', '{"guide_account": "nobody_here"}', '--base-url', service.url]);
    expect(result.status).toBe(1);
    expect(parseJson(result.out)).toEqual({
      errcode: 9300804,
      errmsg: expect.stringContaining('nobody_here'),
    });
    expect(result.out).toMatch(/^\{\n {2}"errcode": 9300804,\n {2}"errmsg": "[^\n]*"\n\}\n$/);
    expect(result.err).toBe(
      'guidectl: getguideacct failed: 9300804 — guide does not exist: guide_account nobody_here\n',
    );
  });

  test('an unknown operation lists the valid ones', async () => {
    const result = await api(['getguide', '{}', '--base-url', service.url]);
    expect(result.status).toBe(1);
    expect(result.err).toMatch(
      /^guidectl: unknown operation "getguide"; the guide operations are:\nreads: getguideacct, /,
    );
    expect(result.err).toContain('writes: addguideacct,');
  });

  test('a body that is not JSON, or not an object, is refused before any call', async () => {
    const before = service.calls().length;
    const bad = await api(['getguideacct', '{guide_account: x}', '--base-url', service.url]);
    expect(bad.status).toBe(1);
    expect(bad.err).toMatch(/^guidectl: the request body is not valid JSON: /);
    const array = await api(['getguideacct', '[1]', '--base-url', service.url]);
    expect(array.err).toMatch(/^guidectl: the request body must be a JSON object/);
    expect(service.calls().length).toBe(before);
  });

  test('a number that would be sent with other digits (a 64-bit id with a fraction or exponent) is refused before any call', async () => {
    const before = service.calls().length;
    for (const written of ['2125033751215493121.0', '2.125033751215493121e18']) {
      const result = await api(['getguidemassendjob', `{"task_id": ${written}}`, '--base-url', service.url]);
      expect(result).toEqual({
        status: 1,
        out: '',
        err:
          `guidectl: the request body's task_id is ${written}, a number that cannot be held exactly (it would be sent as 2125033751215493000); ` +
          'write it as a whole number, 2125033751215493121, or as a decimal string, "2125033751215493121" (as 64-bit ids such as task_id and group_id may be)\n',
      });
    }
    const deep = await api([
      'getguideacct',
      '{"a": [{"b": 1.00000000000000000001}]}',
      '--base-url',
      service.url,
    ]);
    expect(deep.err).toBe(
      "guidectl: the request body's a[0].b is 1.00000000000000000001, a number that cannot be held exactly (it would be sent as 1); write it with fewer digits, or as a decimal string if it is a 64-bit id\n",
    );
    expect(service.calls().length).toBe(before);
  });

  test('the service itself still refuses such a number with 40097 (its parsing is unchanged)', async () => {
    const raw = await rawRequest(
      `${service.url}/cgi-bin/guide/getguidemassendjob?access_token=${await fetchToken(service.url, service.credentials.appid, service.credentials.secret)}`,
      { method: 'POST', body: '{"task_id": 2125033751215493121.0}' },
    );
    expect(raw.json).toMatchObject({ errcode: 40097 });
  });

  test('--verbose logs each exchange with the token redacted; a planted token appears nowhere', async () => {
    const planted = 'PLANTED-cli-token-5ab3e0c9';
    const result = await api(['getguidegrouplist', '--verbose', '--base-url', service.url], {
      WECHAT_ACCESS_TOKEN: planted,
    });
    expect(result.status).toBe(1);
    expect(result.err).toContain('/cgi-bin/guide/getguidegrouplist?access_token=REDACTED → 200');
    expect(result.err).toMatch(
      /guidectl: getguidegrouplist failed: 40001 — access token invalid; the fixed access token/,
    );
    expect(result.err + result.out).not.toContain(planted);

    const ok = await api(['getguidegrouplist', '--verbose', '--base-url', service.url]);
    expect(ok.status).toBe(0);
    expect(ok.err).toContain(`POST ${service.url}/cgi-bin/stable_token → 200`);
    expect(ok.err).toContain('(credentials, not shown)');
    expect(ok.err).toContain('(access token, not shown)');
    expect(ok.err).not.toContain(service.credentials.secret);
    const token = await fetch(`${service.url}/cgi-bin/stable_token`, {
      method: 'POST',
      body: JSON.stringify({ grant_type: 'client_credential', ...service.credentials }),
    }).then((r) => r.json() as Promise<{ access_token: string }>);
    expect(ok.err).not.toContain(token.access_token);
  });

  test('target errors: a base URL without credentials, half the app credentials', async () => {
    const noCredentials = await api(['getguidegrouplist', '--base-url', service.url], {});
    expect(noCredentials.status).toBe(1);
    expect(noCredentials.err).toMatch(/--base-url is given but no credentials are/);
    const half = await api(['getguidegrouplist'], { WECHAT_APPID: 'wx1' });
    expect(half.err).toMatch(/WECHAT_APPID is set but WECHAT_SECRET is not/);
  });
});

describe('guidectl api with no target: the embedded local service', () => {
  test('--local-db: a write creates the database in an existing folder; it is kept between runs', async () => {
    const db = join(dir, 'nested', 'local.db');
    const missing = await api(['addguideacct', JSON.stringify(guide(5)), '--local-db', db], {});
    expect(missing.status).toBe(1);
    expect(missing.err).toContain(`the folder ${join(dir, 'nested')} of --local-db does not exist`);
    expect(existsSync(join(dir, 'nested'))).toBe(false);
    await mkdir(join(dir, 'nested'));
    const add = await api(['addguideacct', JSON.stringify(guide(5)), '--local-db', db], {});
    expect(add.status).toBe(0);
    expect(add.err).toBe(`guidectl: using the embedded local service (database nested/local.db)\n`);
    expect(existsSync(db)).toBe(true);
    const get = await api(['getguideacct', '{"guide_account": "guide_0005"}', '--local-db', db], {});
    expect(get.status).toBe(0);
    expect(parseJson(get.out)).toMatchObject({ guide_account: 'guide_0005', status: 2 });
  });

  test('nothing given: .guidectl/local.db in the working directory, with one notice line', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'guidectl-default-'));
    try {
      const result = await api(['getguideacctlist', '{"page": 0, "num": 10}'], {}, cwd);
      expect(result.status).toBe(0);
      expect(result.err).toBe(
        'guidectl: no target given; using the embedded local service (database .guidectl/local.db)\n',
      );
      expect(parseJson(result.out)).toEqual({ errcode: 0, errmsg: 'ok', total_num: 0, list: [] });
      expect(existsSync(join(cwd, '.guidectl', 'local.db'))).toBe(true);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
