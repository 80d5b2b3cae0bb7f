import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGuideClient, QuotaExhaustedError } from '../../src/client/index.js';
import { GuideService, type GuideServiceOptions } from '../../src/service/index.js';
import { type CallLimitSpec, parsePerMinute, parseQuota } from '../../src/service/limits.js';
import { stringifyJson } from '../../src/wire/json.js';
import { type Workspace, workspace } from '../helpers/cli.js';
import {
  fetchToken,
  frozenClock,
  guideBody,
  type RawAnswer,
  rawRequest,
  startTestService,
  type TestService,
} from '../helpers/service.js';

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace();
});
afterAll(() => ws.remove());

/** `--quota`, `--per-minute` and `--capacity` as the service takes them. */
function limits(quota?: string, perMinute?: string, capacity?: number): CallLimitSpec {
  return {
    daily: quota === undefined ? { operations: {} } : parseQuota(quota),
    perMinute: perMinute === undefined ? { operations: {} } : parsePerMinute(perMinute),
    ...(capacity === undefined ? {} : { capacity }),
  };
}

/** POST `path` (below the service) with the token and a JSON body. */
function post(s: TestService, path: string, body: unknown, token = s.token): Promise<RawAnswer> {
  return rawRequest(`${s.url}${path}?access_token=${encodeURIComponent(token)}`, {
    method: 'POST',
    body: stringifyJson(body),
  });
}

async function quotaOf(s: TestService, op: string): Promise<unknown> {
  const answer = await post(s, '/cgi-bin/openapi/quota/get', { cgi_path: `/cgi-bin/guide/${op}` });
  expect(answer.json['errcode'], answer.text).toBe(0);
  expect(answer.json['errmsg']).toBe('ok');
  return answer.json['quota'];
}

async function add(s: TestService, account: string): Promise<number> {
  return Number((await s.call('addguideacct', guideBody(`guide_${account}`))).json['errcode']);
}

async function guideCount(s: TestService): Promise<number> {
  return Number((await s.ok('getguideacctlist', { page: 0, num: 100 }))['total_num']);
}

/** The frozen clock is 16:00 in UTC+8: midnight there is 8 hours on. */
const TO_MIDNIGHT_UTC8 = 8 * 3600;

async function withTestService(
  options: GuideServiceOptions,
  fn: (s: TestService) => Promise<void>,
): Promise<void> {
  const s = await startTestService(options);
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}

describe('daily quotas (--quota)', () => {
  it('answers 45009 without effect past an operation’s quota, until midnight UTC+8 on the service clock', async () => {
    await withTestService({ limits: limits('addguideacct=3') }, async (s) => {
      for (const account of ['q1', 'q2', 'q3']) expect(await add(s, account)).toBe(0);
      const refused = await s.call('addguideacct', guideBody('guide_q4'));
      expect(refused.json['errcode']).toBe(45009);
      expect(refused.json['errmsg']).toMatch(/^reach max api daily quota limit/);
      expect(await guideCount(s)).toBe(3);
      // Other operations have no quota.
      expect((await s.call('getguideacct', { guide_account: 'guide_q1' })).json['errcode']).toBe(0);
      expect(await quotaOf(s, 'addguideacct')).toEqual({ daily_limit: 3, used: 3, remain: 0 });

      await s.sim('clock', { advance: TO_MIDNIGHT_UTC8 - 1 });
      await s.renewToken();
      expect(await add(s, 'q4')).toBe(45009);
      await s.sim('clock', { advance: 1 });
      expect(await quotaOf(s, 'addguideacct')).toEqual({ daily_limit: 3, used: 0, remain: 3 });
      expect(await add(s, 'q4')).toBe(0);
      expect(await quotaOf(s, 'addguideacct')).toEqual({ daily_limit: 3, used: 1, remain: 2 });
      expect(await guideCount(s)).toBe(4);
    });
  });

  it('counts every call admitted, whatever it answers; not those refused, nor those with a bad token', async () => {
    await withTestService({ limits: limits('addguideacct=2') }, async (s) => {
      // 9300810: the call was made, and counts, as the platform counts calls made.
      expect((await s.call('addguideacct', guideBody('guide_long', 'x'.repeat(20)))).json['errcode']).toBe(
        9300810,
      );
      expect((await s.call('addguideacct', '{not json')).json['errcode']).toBe(47001);
      expect(await quotaOf(s, 'addguideacct')).toEqual({ daily_limit: 2, used: 2, remain: 0 });
      expect(await add(s, 'fits')).toBe(45009);
      const badToken = await post(s, '/cgi-bin/guide/addguideacct', guideBody('guide_other'), 'not-a-token');
      expect(badToken.json['errcode']).toBe(40001);
      expect(await quotaOf(s, 'addguideacct')).toEqual({ daily_limit: 2, used: 2, remain: 0 });
      expect(await guideCount(s)).toBe(0);
    });
  });

  it('gives default=N to the operations not named', async () => {
    await withTestService({ limits: limits('default=1,addguideacct=5') }, async (s) => {
      expect(await add(s, 'd1')).toBe(0);
      expect(await add(s, 'd2')).toBe(0);
      expect((await s.call('getguideacct', { guide_account: 'guide_d1' })).json['errcode']).toBe(0);
      expect((await s.call('getguideacct', { guide_account: 'guide_d1' })).json['errcode']).toBe(45009);
      expect(await quotaOf(s, 'getguideacct')).toEqual({ daily_limit: 1, used: 1, remain: 0 });
      expect(await quotaOf(s, 'addguideacct')).toEqual({ daily_limit: 5, used: 2, remain: 3 });
    });
  });

  it('without --quota limits nothing, and quota/get answers a daily limit of 10,000,000 with the calls made', async () => {
    await withTestService({}, async (s) => {
      for (let i = 0; i < 5; i++) expect(await add(s, `n${i}`)).toBe(0);
      expect(await quotaOf(s, 'addguideacct')).toEqual({
        daily_limit: 10_000_000,
        used: 5,
        remain: 9_999_995,
      });
      expect(await quotaOf(s, 'delguideacct')).toEqual({
        daily_limit: 10_000_000,
        used: 0,
        remain: 10_000_000,
      });
    });
  });

  it('answers quota/get for a path it does not know with 76021, and checks the request as the API does', async () => {
    await withTestService({}, async (s) => {
      for (const cgi_path of ['/cgi-bin/guide/nosuch', '/cgi-bin/stable_token', 'addguideacct', '']) {
        const answer = await post(s, '/cgi-bin/openapi/quota/get', { cgi_path });
        expect(answer.json['errcode'], cgi_path).toBe(cgi_path === '' ? 40097 : 76021);
      }
      expect((await post(s, '/cgi-bin/openapi/quota/get', {})).json['errcode']).toBe(40101);
      const bad = await post(
        s,
        '/cgi-bin/openapi/quota/get',
        { cgi_path: '/cgi-bin/guide/addguideacct' },
        'x',
      );
      expect(bad.json['errcode']).toBe(40001);
      const get = await rawRequest(`${s.url}/cgi-bin/openapi/quota/get?access_token=${s.token}`);
      expect(get.json['errcode']).toBe(43002);
    });
  });
});

describe('a client of the service', () => {
  it('is told past a daily quota that retrying today will not help, after one attempt', async () => {
    await withTestService({ limits: limits('addguideacct=0') }, async (s) => {
      const client = createGuideClient({ baseUrl: s.url, auth: s.service.credentials });
      try {
        const error = await client
          .addguideacct({
            guide_account: 'guide_none',
            guide_nickname: 'None',
            guide_headimgurl: 'https://mmbiz.qpic.cn/x/0',
          })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(QuotaExhaustedError);
        expect(String(error)).toContain(
          'addguideacct failed: 45009 — daily quota reached; the daily call quota',
        );
      } finally {
        await client.close();
      }
      expect(s.service.calls().map((c) => [c.operation, c.errcode])).toEqual([['addguideacct', 45009]]);
      expect(await guideCount(s)).toBe(0);
    });
  });
});

describe('clear_quota', () => {
  it('resets every quota of the account, ten times a month (48006 past them), and refuses another appid (40013)', async () => {
    await withTestService({ limits: limits('addguideacct=1,getguideacct=1') }, async (s) => {
      const { appid } = s.service.credentials;
      const clear = (body: unknown = { appid }): Promise<RawAnswer> => post(s, '/cgi-bin/clear_quota', body);
      expect(await add(s, 'c0')).toBe(0);
      expect((await s.call('getguideacct', { guide_account: 'guide_c0' })).json['errcode']).toBe(0);
      expect(await add(s, 'c1')).toBe(45009);

      expect((await clear({ appid: 'wx00000000000000ff' })).json['errcode']).toBe(40013);
      expect((await clear({})).json['errcode']).toBe(40101);
      expect(await add(s, 'c1')).toBe(45009);

      for (let i = 1; i <= 10; i++) {
        const answer = await clear();
        expect(answer.json, `clear ${i}`).toEqual({ errcode: 0, errmsg: 'ok' });
        expect(await quotaOf(s, 'getguideacct')).toEqual({ daily_limit: 1, used: 0, remain: 1 });
        expect(await add(s, `c${i}`)).toBe(0);
        expect(await add(s, `c${i}x`)).toBe(45009);
      }
      const eleventh = await clear();
      expect(eleventh.json['errcode']).toBe(48006);
      expect(await add(s, 'c11')).toBe(45009);
      expect(await guideCount(s)).toBe(11);

      // 2026-12-01 00:00 in UTC+8: a new month, ten new resets.
      await s.sim('clock', { set: Date.UTC(2026, 10, 30, 16, 0, 0) / 1000 });
      await s.renewToken();
      expect(await add(s, 'c11')).toBe(0);
      expect((await clear()).json['errcode']).toBe(0);
      expect(await add(s, 'c12')).toBe(0);
    });
  });
});

describe('per-minute limits (--per-minute)', () => {
  it('answers 45011 without effect past an operation’s limit, until the minute turns on the service clock', async () => {
    // The frozen clock is at the start of a minute.
    await withTestService({ limits: limits(undefined, 'addguideacct=2') }, async (s) => {
      expect(await add(s, 'm1')).toBe(0);
      expect(await add(s, 'm2')).toBe(0);
      const refused = await s.call('addguideacct', guideBody('guide_m3'));
      expect(refused.json['errcode']).toBe(45011);
      expect(refused.json['errmsg']).toMatch(/^api minute-quota reach limit/);
      expect((await s.call('getguideacct', { guide_account: 'guide_m1' })).json['errcode']).toBe(0);
      await s.sim('clock', { advance: 59 });
      expect(await add(s, 'm3')).toBe(45011);
      await s.sim('clock', { advance: 1 });
      expect(await add(s, 'm3')).toBe(0);
      expect(await guideCount(s)).toBe(3);
      // Refused calls are not counted toward the day.
      expect(await quotaOf(s, 'addguideacct')).toMatchObject({ used: 3 });
    });
  });

  it('limits all guide calls together with all=N', async () => {
    await withTestService({ limits: limits(undefined, 'all=3') }, async (s) => {
      expect(await add(s, 'a1')).toBe(0);
      expect((await s.call('getguideacct', { guide_account: 'guide_a1' })).json['errcode']).toBe(0);
      expect((await s.call('getguideacctlist', { page: 0, num: 10 })).json['errcode']).toBe(0);
      expect(await add(s, 'a2')).toBe(45011);
      expect((await s.call('getguideacct', { guide_account: 'guide_a1' })).json['errcode']).toBe(45011);
      await s.sim('clock', { advance: 60 });
      expect(await add(s, 'a2')).toBe(0);
    });
  });
});

describe('capacity (--capacity)', () => {
  it('answers -1 at once, without effect, to a call beyond the calls in service', async () => {
    await withTestService({ limits: limits(undefined, undefined, 2), faults: 'latency=1s' }, async (s) => {
      const order: string[] = [];
      const send = (account: string): Promise<number> =>
        add(s, account).then((errcode) => {
          order.push(`${account} ${errcode}`);
          return errcode;
        });
      const first = [send('k1'), send('k2')];
      // Both are in service (waiting their latency) before the third is sent.
      await vi.waitFor(() => expect(s.service.callsInService).toBe(2), { timeout: 20_000, interval: 5 });
      const third = await send('k3');
      expect(third).toBe(-1);
      expect(await Promise.all(first)).toEqual([0, 0]);
      expect(s.service.callsInService).toBe(0);
      expect(order[0]).toBe('k3 -1');
      expect(await guideCount(s)).toBe(2);
      const calls = s.service.calls().filter((c) => c.operation === 'addguideacct');
      expect(calls.map((c) => c.errcode)).toEqual([-1, 0, 0]);
      // Once they are answered, there is room again.
      expect(await add(s, 'k3')).toBe(0);
    });
  });
});

describe('durability of the counts', () => {
  const creds = { appid: 'wx00000000000000d1', secret: 'quota-secret-000001' };

  async function withFileService(
    db: string,
    spec: CallLimitSpec,
    fn: (s: GuideService, token: string) => Promise<void>,
  ): Promise<void> {
    const service = await GuideService.start({
      db,
      ...creds,
      clock: frozenClock(),
      simulation: true,
      limits: spec,
    });
    try {
      await fn(service, await fetchToken(service.url, creds.appid, creds.secret));
    } finally {
      await service.close();
    }
  }

  const call = async (
    s: GuideService,
    token: string,
    path: string,
    body: unknown,
  ): Promise<Record<string, unknown>> =>
    (
      await rawRequest(`${s.url}${path}?access_token=${token}`, {
        method: 'POST',
        body: stringifyJson(body),
      })
    ).json;

  it('keeps the day’s counts and the month’s resets across a restart', async () => {
    const db = join(ws.dir, 'counts.db');
    const spec = limits('addguideacct=2');
    await withFileService(db, spec, async (s, token) => {
      for (const account of ['r1', 'r2'])
        expect(
          (await call(s, token, '/cgi-bin/guide/addguideacct', guideBody(`guide_${account}`)))['errcode'],
        ).toBe(0);
      expect((await call(s, token, '/cgi-bin/clear_quota', { appid: creds.appid }))['errcode']).toBe(0);
      for (const account of ['r3', 'r4'])
        expect(
          (await call(s, token, '/cgi-bin/guide/addguideacct', guideBody(`guide_${account}`)))['errcode'],
        ).toBe(0);
      expect(
        (await call(s, token, '/cgi-bin/guide/getguideacct', { guide_account: 'guide_r1' }))['errcode'],
      ).toBe(0);
    });
    await withFileService(db, spec, async (s, token) => {
      expect((await call(s, token, '/cgi-bin/guide/addguideacct', guideBody('guide_r5')))['errcode']).toBe(
        45009,
      );
      const quota = (op: string): Promise<Record<string, unknown>> =>
        call(s, token, '/cgi-bin/openapi/quota/get', { cgi_path: `/cgi-bin/guide/${op}` });
      expect((await quota('addguideacct'))['quota']).toEqual({ daily_limit: 2, used: 2, remain: 0 });
      // An operation without a quota: its count is written when the service stops.
      expect((await quota('getguideacct'))['quota']).toMatchObject({ used: 1 });
      for (let i = 2; i <= 10; i++)
        expect((await call(s, token, '/cgi-bin/clear_quota', { appid: creds.appid }))['errcode']).toBe(0);
    });
    await withFileService(db, spec, async (s, token) => {
      expect((await call(s, token, '/cgi-bin/clear_quota', { appid: creds.appid }))['errcode']).toBe(48006);
    });
  });

  it('starts afresh for another appid on the same database', async () => {
    const db = join(ws.dir, 'other-appid.db');
    const spec = limits('addguideacct=1');
    await withFileService(db, spec, async (s, token) => {
      expect((await call(s, token, '/cgi-bin/guide/addguideacct', guideBody('guide_o1')))['errcode']).toBe(0);
      expect((await call(s, token, '/cgi-bin/guide/addguideacct', guideBody('guide_o2')))['errcode']).toBe(
        45009,
      );
    });
    const other = { appid: 'wx00000000000000d2', secret: 'quota-secret-000002' };
    const service = await GuideService.start({ db, ...other, clock: frozenClock(), limits: spec });
    try {
      const token = await fetchToken(service.url, other.appid, other.secret);
      expect(
        (await call(service, token, '/cgi-bin/guide/addguideacct', guideBody('guide_o2')))['errcode'],
      ).toBe(0);
    } finally {
      await service.close();
    }
  });

  it('brings a database of schema 2 up to the quota tables, its data kept', async () => {
    const db = join(ws.dir, 'v2.db');
    await withFileService(db, limits(), async (s, token) => {
      expect((await call(s, token, '/cgi-bin/guide/addguideacct', guideBody('guide_v1')))['errcode']).toBe(0);
    });
    const old = new Database(db);
    old.exec('DROP TABLE quota_used; DROP TABLE quota_clears; PRAGMA user_version = 2;');
    old.close();
    await withFileService(db, limits('addguideacct=1'), async (s, token) => {
      expect(
        (await call(s, token, '/cgi-bin/guide/getguideacct', { guide_account: 'guide_v1' }))['errcode'],
      ).toBe(0);
      expect((await call(s, token, '/cgi-bin/guide/addguideacct', guideBody('guide_v2')))['errcode']).toBe(0);
      expect((await call(s, token, '/cgi-bin/guide/addguideacct', guideBody('guide_v3')))['errcode']).toBe(
        45009,
      );
    });
    const upgraded = new Database(db, { readonly: true });
    try {
      expect(upgraded.pragma('user_version', { simple: true })).toBe(3);
    } finally {
      upgraded.close();
    }
  });
});

describe('the simulation’s reset', () => {
  it('gives the emptied account fresh quotas', async () => {
    await withTestService({ limits: limits('addguideacct=1') }, async (s) => {
      expect(await add(s, 's1')).toBe(0);
      expect(await add(s, 's2')).toBe(45009);
      await s.sim('reset');
      expect(await quotaOf(s, 'addguideacct')).toEqual({ daily_limit: 1, used: 0, remain: 1 });
      expect(await add(s, 's2')).toBe(0);
    });
  });
});

describe('limits given to the library', () => {
  it('are refused when no flag could give them, naming the field, before the database opens', () => {
    const db = join(ws.dir, 'never.db');
    expect(() => GuideService.open({ db, limits: { ...limits(), capacity: 0 } })).toThrow(
      'limits: capacity must be a whole number from 1 to 1000000000000; it is 0',
    );
    expect(() =>
      GuideService.open({ db, limits: { ...limits(), daily: { operations: {}, default: 1.5 } } }),
    ).toThrow('limits: daily.default must be a whole number from 0 to 1000000000000; it is 1.5');
    const unknown = { operations: Object.fromEntries([['addguide', 1]]) };
    expect(() => GuideService.open({ db, limits: { ...limits(), perMinute: unknown } })).toThrow(
      'limits: perMinute.operations.addguide is not a guide operation',
    );
    expect(existsSync(db)).toBe(false);
  });
});

describe('parsing --quota and --per-minute', () => {
  it('reads OP=N lists, default and all', () => {
    expect(parseQuota('addguideacct=1500, default=100000')).toEqual({
      operations: { addguideacct: 1500 },
      default: 100000,
    });
    expect(parsePerMinute('all=3000,getguideacct=10')).toEqual({
      operations: { getguideacct: 10 },
      all: 3000,
    });
  });

  it('refuses what is not a list of OP=N, naming the part and the fix', () => {
    expect(() => parseQuota('addguide=5')).toThrow(
      '--quota: "addguide" is not a guide operation; name one as in /cgi-bin/guide/NAME (e.g. addguideacct), or default',
    );
    expect(() => parseQuota('all=5')).toThrow('--quota: "all" is not a guide operation');
    expect(() => parseQuota('addguideacct=1.5')).toThrow(
      '--quota: addguideacct=1.5 must be a whole number of calls from 0 to 1000000000000, e.g. addguideacct=1500',
    );
    expect(() => parseQuota('addguideacct')).toThrow(
      '--quota: "addguideacct" is not OP=N; e.g. addguideacct=1500',
    );
    expect(() => parseQuota('default=1,default=2')).toThrow(
      '--quota: default is given twice; give each once',
    );
    expect(() => parsePerMinute(' ')).toThrow('--per-minute takes OP=N[,OP=N…]');
  });
});
