import { getEventListeners } from 'node:events';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { EnvHttpProxyAgent } from 'undici';
import { describe, expect, test } from 'vitest';
import { errmsgDetail, GuideApiError, TransportError } from '../../src/client/call-errors.js';
import { createDispatcher } from '../../src/client/http-transport.js';
import { createGuideClient } from '../../src/client/index.js';
import { RateLimiter, Semaphore } from '../../src/client/limiter.js';
import { redactUrl, SecretSet } from '../../src/client/redact.js';
import { DEFAULT_RETRY_POLICY, RetryBudget } from '../../src/client/retry.js';
import type { Clock } from '../../src/core/clock.js';
import { proxyFromEnv, resolveTarget } from '../../src/target/index.js';
import { parseJson, stringifyJson, stringifyJsonPretty } from '../../src/wire/json.js';
import { decodeAnswer, encodeRequest } from '../../src/wire/messages.js';
import { guide, startService } from './helpers.js';

class FakeClock implements Clock {
  constructor(public ms = 1_000_000) {}
  now(): number {
    return this.ms;
  }
}

describe('error messages', () => {
  test('errmsg detail: kept when it names the field, dropped when it only restates the code', () => {
    expect(errmsgDetail(9300810, 'guide_nickname is 23 characters; the limit is 16')).toBe(
      'guide_nickname is 23 characters; the limit is 16',
    );
    expect(errmsgDetail(40097, 'invalid args: push_time is in the past rid: 65f0-1a2b')).toBe(
      'push_time is in the past',
    );
    expect(errmsgDetail(40101, 'missing parameter: group_id')).toBe('group_id');
    expect(errmsgDetail(9300803, 'already a guide')).toBeUndefined();
    expect(errmsgDetail(40125, 'invalid appsecret rid: x')).toBeUndefined();
    expect(errmsgDetail(-1, 'system error')).toBeUndefined();
    expect(errmsgDetail(-1, 'system error rid: 65f0-1a2b')).toBeUndefined();
    // A service that knows why it failed says so: that is kept.
    expect(errmsgDetail(-1, "system error: the service's database cannot be written: the disk is full")).toBe(
      "the service's database cannot be written: the disk is full",
    );
    expect(errmsgDetail(9300812, 'guide count limit reached (100)')).toBe('100');
    expect(errmsgDetail(40003, '无效的 openid')).toBe('无效的 openid');
  });

  test('the message names the operation, the code and its meaning', () => {
    const error = new GuideApiError({
      operation: 'addguideacct',
      errcode: 9300810,
      errmsg: 'nickname too long',
    });
    expect(error.message).toBe(
      'addguideacct failed: 9300810 — nickname longer than 16 characters: nickname too long',
    );
    expect(new GuideApiError({ operation: 'getguideacct', errcode: 12345, errmsg: '' }).message).toBe(
      'getguideacct failed: 12345 — unknown error code',
    );
  });

  test('the quota codes of the service have a meaning of their own', () => {
    const said = (errcode: number): string =>
      new GuideApiError({ operation: 'addguideacct', errcode, errmsg: '' }).message;
    expect(said(45009)).toBe('addguideacct failed: 45009 — daily quota reached');
    expect(said(45011)).toBe('addguideacct failed: 45011 — per-minute quota reached');
    expect(said(48006)).toBe(
      'addguideacct failed: 48006 — the quota resets of this month (clear_quota, 10 a month) are used up',
    );
    expect(said(76021)).toBe('addguideacct failed: 76021 — unknown cgi_path: no quota is kept for that path');
  });
});

describe('redaction', () => {
  test('URLs lose their secrets', () => {
    expect(redactUrl('https://api.weixin.qq.com/cgi-bin/guide/x?access_token=abc.DEF-123&x=1')).toBe(
      'https://api.weixin.qq.com/cgi-bin/guide/x?access_token=REDACTED&x=1',
    );
    expect(redactUrl('GET /cgi-bin/token?grant_type=client_credential&appid=wx1&secret=s3cr3t')).toBe(
      'GET /cgi-bin/token?grant_type=client_credential&appid=wx1&secret=REDACTED',
    );
    expect(redactUrl('http://user:p4ss@proxy:3128')).toBe('http://user:REDACTED@proxy:3128');
  });

  test('known secrets are scrubbed from any text', () => {
    const secrets = new SecretSet();
    secrets.add('token/with+chars');
    expect(secrets.scrub('x token/with+chars y token%2Fwith%2Bchars')).toBe('x REDACTED y REDACTED');
  });
});

describe('retry budget', () => {
  test('full jitter under an exponential cap; lost answers of a write are counted', () => {
    const clock = new FakeClock();
    const budget = new RetryBudget({ ...DEFAULT_RETRY_POLICY, maxAttempts: 3 }, clock, () => 0.999, 'write');
    budget.countAttempt();
    expect(budget.nextDelay('lost')).toBe(249);
    budget.countAttempt();
    expect(budget.nextDelay('lost')).toBe(499);
    budget.countAttempt();
    expect(budget.nextDelay('lost')).toBeUndefined();
  });

  test('answers without effect are not counted: a write retries them within its time budget', () => {
    const clock = new FakeClock();
    const budget = new RetryBudget({ ...DEFAULT_RETRY_POLICY, maxAttempts: 2 }, clock, () => 0, 'write');
    for (let i = 0; i < 50; i++) {
      budget.countAttempt();
      expect(budget.nextDelay(i % 2 === 0 ? 'busy' : 'quota')).toBe(0);
    }
    clock.ms += DEFAULT_RETRY_POLICY.budgetMs + 1;
    expect(budget.nextDelay('busy')).toBeUndefined();
  });

  test('a read is retried until its time budget is spent, whatever the count; 45011 backs off apart', () => {
    const clock = new FakeClock();
    const budget = new RetryBudget(DEFAULT_RETRY_POLICY, clock, () => 0.999, 'read');
    for (let i = 0; i < 20; i++) {
      budget.countAttempt();
      expect(budget.nextDelay('lost')).toBeGreaterThanOrEqual(0);
    }
    // The first 45011 waits under its own base, whatever came before it.
    expect(budget.nextDelay('quota')).toBe(Math.floor(0.999 * DEFAULT_RETRY_POLICY.quotaBaseDelayMs));
    expect(budget.nextDelay('quota')).toBe(Math.floor(0.999 * 2 * DEFAULT_RETRY_POLICY.quotaBaseDelayMs));
    clock.ms += DEFAULT_RETRY_POLICY.readBudgetMs - 1_000;
    expect(budget.nextDelay('busy')).toBeUndefined();
  });

  test('an unreachable service is counted for reads too, so it is reported in seconds', () => {
    const clock = new FakeClock();
    const budget = new RetryBudget({ ...DEFAULT_RETRY_POLICY, maxAttempts: 2 }, clock, () => 0, 'read');
    budget.countAttempt();
    expect(budget.nextDelay('unreachable')).toBe(0);
    budget.countAttempt();
    expect(budget.nextDelay('unreachable')).toBeUndefined();
  });

  test('bounded time: no wait that would end past the budget', () => {
    const clock = new FakeClock();
    const budget = new RetryBudget({ ...DEFAULT_RETRY_POLICY, budgetMs: 1_000 }, clock, () => 0.5, 'write');
    budget.countAttempt();
    clock.ms += 900;
    expect(budget.nextDelay('busy')).toBeUndefined();
  });
});

describe('limits', () => {
  test('the semaphore holds concurrency at its limit, first come first served', async () => {
    const semaphore = new Semaphore(2);
    const order: number[] = [];
    let active = 0;
    let peak = 0;
    await Promise.all(
      [0, 1, 2, 3, 4].map(async (i) => {
        const release = await semaphore.acquire();
        order.push(i);
        active += 1;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 5));
        active -= 1;
        release();
      }),
    );
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  test('a waiter leaves the queue when its signal aborts', async () => {
    const semaphore = new Semaphore(1);
    const release = await semaphore.acquire();
    const stop = new AbortController();
    const waiting = semaphore.acquire(stop.signal);
    stop.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    release();
    const again = await semaphore.acquire();
    again();
  });

  test('many waiters on one signal: one abort listener, gone once they are served', async () => {
    const semaphore = new Semaphore(1);
    const release = await semaphore.acquire();
    const stop = new AbortController();
    const releases = Array.from({ length: 500 }, () => semaphore.acquire(stop.signal));
    expect(semaphore.waiting).toBe(500);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
    release();
    for (const waiting of releases) (await waiting)();
    expect(semaphore.waiting).toBe(0);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });

  test('an aborted waiter releases nothing it did not hold; the others keep their turn', async () => {
    const semaphore = new Semaphore(1);
    const release = await semaphore.acquire();
    const stop = new AbortController();
    const order: string[] = [];
    const first = semaphore.acquire().then((r) => {
      order.push('first');
      return r;
    });
    const aborted = semaphore.acquire(stop.signal);
    const last = semaphore.acquire().then((r) => {
      order.push('last');
      return r;
    });
    stop.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
    // The holder still holds the one place: nobody was let in by the abort.
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([]);
    expect(semaphore.waiting).toBe(2);
    release();
    const releaseFirst = await first;
    expect(order).toEqual(['first']);
    releaseFirst();
    (await last)();
    expect(order).toEqual(['first', 'last']);
    // All places are free again: exactly `limit` can be taken at once, no more.
    const again = await semaphore.acquire();
    let extra = false;
    void semaphore.acquire().then((r) => {
      extra = true;
      r();
    });
    await new Promise((r) => setImmediate(r));
    expect(extra).toBe(false);
    again();
  });

  test('the rate limiter spaces starts evenly, on the injected clock', async () => {
    const clock = new FakeClock();
    const waits: number[] = [];
    const limiter = new RateLimiter(10, clock, async (ms) => {
      waits.push(ms);
    });
    await Promise.all([0, 1, 2, 3].map(() => limiter.acquire()));
    expect(waits).toEqual([100, 200, 300]);
    clock.ms += 1_000;
    await limiter.acquire();
    expect(waits).toHaveLength(3);
  });
});

describe('wire', () => {
  test('requests: ids become bare numbers, empty guide keys are left out, bad ids refused', () => {
    const body = encodeRequest('getgroupinfo', { group_id: '18446744073709551615', page: 0, num: 10 });
    expect(stringifyJson(body)).toBe('{"group_id":18446744073709551615,"page":0,"num":10}');
    expect(() => encodeRequest('delguidegroup', { group_id: '18446744073709551616' })).toThrow(
      /group_id must be an unsigned 64-bit integer/,
    );
    expect(() => encodeRequest('delguidegroup', { group_id: '-1' })).toThrow(
      /GUIDE_INVALID_REQUEST|unsigned/,
    );
    const loose: Record<string, unknown> = { guide_account: 'a_wx1234', guide_openid: '' };
    expect(encodeRequest('getguideacct', loose as { guide_account: string })).toEqual({
      guide_account: 'a_wx1234',
    });
    const both: Record<string, unknown> = { guide_account: 'a_wx1234', guide_openid: 'o1' };
    expect(() => encodeRequest('getguideacct', both as { guide_account: string })).toThrow(/not both/);
  });

  test('answers are checked; a malformed one names the field', () => {
    const answer = parseJson(
      '{"errcode":0,"group_list":[{"id":1860131524965138433,"name":"a","create_time":1}]}',
    );
    expect(decodeAnswer('getguidegrouplist', answer).group_list[0]?.id).toBe('1860131524965138433');
    expect(() =>
      decodeAnswer(
        'getguidegrouplist',
        parseJson('{"group_list":[{"id":1,"name":"a","create_time":1},{"id":-2}]}'),
      ),
    ).toThrow(
      'getguidegrouplist failed: the answer is malformed: group_list[1].id must be an unsigned 64-bit integer',
    );
    expect(() =>
      decodeAnswer('getguideacct', { guide_nickname: 'x', guide_headimgurl: 'y', status: 9 }),
    ).toThrow('status is 9; expected one of 1, 2, 3, 4');
    // Absent lists are empty lists.
    expect(decodeAnswer('getgroupbyguide', { errcode: 0 })).toEqual({ group_id_list: [] });
  });

  test('the pretty printer keeps big ids as bare numbers', () => {
    expect(stringifyJsonPretty({ a: [1n << 63n] })).toBe('{\n  "a": [\n    9223372036854775808\n  ]\n}');
  });
});

describe('target selection', () => {
  const cwd = '/work/project';
  test('the table of PRODUCT.md', () => {
    expect(resolveTarget({}, {}, cwd)).toEqual({
      kind: 'embedded',
      dbFile: '/work/project/.guidectl/local.db',
      defaulted: true,
    });
    expect(resolveTarget({ GUIDECTL_LOCAL_DB: 'x.db' }, {}, cwd)).toMatchObject({
      dbFile: '/work/project/x.db',
      defaulted: false,
    });
    expect(resolveTarget({ GUIDECTL_LOCAL_DB: 'x.db' }, { localDb: '/tmp/y.db' }, cwd)).toMatchObject({
      dbFile: '/tmp/y.db',
    });
    expect(resolveTarget({ WECHAT_ACCESS_TOKEN: 't' }, {}, cwd)).toEqual({
      kind: 'remote',
      baseUrl: 'https://api.weixin.qq.com',
      auth: { accessToken: 't' },
      authSource: 'WECHAT_ACCESS_TOKEN',
      variables: { accessToken: 'WECHAT_ACCESS_TOKEN', appid: 'WECHAT_APPID', secret: 'WECHAT_SECRET' },
    });
    expect(
      resolveTarget({ WECHAT_APPID: 'wx1', WECHAT_SECRET: 's', GUIDECTL_BASE_URL: 'http://a/' }, {}, cwd),
    ).toMatchObject({ baseUrl: 'http://a', auth: { appid: 'wx1', secret: 's' } });
    expect(
      resolveTarget(
        { WECHAT_APPID: 'wx1', WECHAT_SECRET: 's', GUIDECTL_BASE_URL: 'http://a' },
        { baseUrl: 'http://b' },
        cwd,
      ),
    ).toMatchObject({ baseUrl: 'http://b' });
    expect(() => resolveTarget({}, { baseUrl: 'http://b' }, cwd)).toThrow(/no credentials/);
    expect(() => resolveTarget({ WECHAT_SECRET: 's' }, {}, cwd)).toThrow(
      /WECHAT_SECRET is set but WECHAT_APPID is not/,
    );
    expect(() => resolveTarget({ WECHAT_ACCESS_TOKEN: 't' }, { localDb: 'x' }, cwd)).toThrow(/--local-db/);
    expect(() => resolveTarget({ WECHAT_ACCESS_TOKEN: 't' }, { baseUrl: 'ftp://x' }, cwd)).toThrow(/http/);
    expect(() =>
      resolveTarget({ WECHAT_ACCESS_TOKEN: 't' }, { baseUrl: 'http://x/?access_token=1' }, cwd),
    ).toThrow(/query/);
  });

  test('one base URL rule for the command line and the library client, each in its own words', () => {
    const env = { WECHAT_ACCESS_TOKEN: 't' };
    const refused = [
      ['not a url', /--base-url "not a url" is not a URL; give e\.g\./, /baseUrl "not a url" is not a URL/],
      [
        'ftp://x',
        /--base-url must be an http:\/\/ or https:\/\/ URL, not ftp:/,
        /baseUrl must be an http or https URL, not ftp:/,
      ],
      [
        'http://x/?a=1',
        /--base-url must not hold a query or fragment/,
        /baseUrl must not hold a query or fragment/,
      ],
      [
        'http://x/#top',
        /--base-url must not hold a query or fragment/,
        /baseUrl must not hold a query or fragment/,
      ],
    ] as const;
    for (const [baseUrl, cli, library] of refused) {
      expect(() => resolveTarget(env, { baseUrl }, cwd)).toThrow(cli);
      expect(() => createGuideClient({ auth: { accessToken: 't' }, baseUrl })).toThrow(library);
    }
    expect(resolveTarget(env, { baseUrl: 'http://x/wechat/' }, cwd)).toMatchObject({
      baseUrl: 'http://x/wechat',
    });
    const client = createGuideClient({ auth: { accessToken: 't' }, baseUrl: 'http://x/wechat/' });
    expect(client.baseUrl).toBe('http://x/wechat');
    return client.close();
  });

  test('proxies as other tools read them', () => {
    expect(proxyFromEnv({})).toBeUndefined();
    expect(proxyFromEnv({ https_proxy: 'http://p:1', NO_PROXY: 'localhost' })).toEqual({
      httpsProxy: 'http://p:1',
      noProxy: 'localhost',
    });
    expect(proxyFromEnv({ HTTP_PROXY: 'http://P:1', http_proxy: 'http://p:1' })).toEqual({
      httpProxy: 'http://P:1',
    });
  });
});

/** A forward proxy that tunnels CONNECT and forwards absolute-form requests, counting both. */
async function startProxy(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '');
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  server.on('connect', (req, socket, head) => {
    seen.push(`CONNECT ${req.url}`);
    const [host = '', port = '80'] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('proxies', () => {
  test('HTTP_PROXY is used, and NO_PROXY bypasses it', async () => {
    const service = await startService();
    const proxy = await startProxy();
    try {
      const via = createGuideClient({
        baseUrl: service.url,
        auth: service.credentials,
        proxy: { httpProxy: proxy.url },
      });
      await via.addguideacct(guide(1));
      await via.close();
      expect(proxy.seen.length).toBeGreaterThan(0);
      expect(proxy.seen.join('\n')).toContain(new URL(service.url).host);

      proxy.seen.length = 0;
      const direct = createGuideClient({
        baseUrl: service.url,
        auth: service.credentials,
        proxy: { httpProxy: proxy.url, noProxy: '127.0.0.1' },
      });
      expect((await direct.getguideacct({ guide_account: guide(1).guide_account })).status).toBe(2);
      await direct.close();
      expect(proxy.seen).toEqual([]);
    } finally {
      await proxy.close();
      await service.close();
    }
  });

  test('as curl does: https targets use only HTTPS_PROXY, http targets only HTTP_PROXY', async () => {
    const base = { connections: 2, connectTimeoutMs: 1_000 };
    const cases = [
      { protocol: 'https:', proxy: { httpProxy: 'http://p:1' }, proxied: false },
      { protocol: 'https:', proxy: { httpsProxy: 'http://p:1' }, proxied: true },
      { protocol: 'http:', proxy: { httpsProxy: 'http://p:1' }, proxied: false },
      { protocol: 'http:', proxy: { httpProxy: 'http://p:1' }, proxied: true },
    ];
    for (const { protocol, proxy, proxied } of cases) {
      const dispatcher = createDispatcher({ ...base, protocol, proxy });
      expect(dispatcher instanceof EnvHttpProxyAgent).toBe(proxied);
      await dispatcher.close();
    }
  });

  test('an unreachable proxy is a transport error, without the proxy password', async () => {
    const client = createGuideClient({
      baseUrl: 'http://example.invalid',
      auth: { accessToken: 'token-abcdef' },
      proxy: { httpProxy: 'http://user:pr0xy-pass@127.0.0.1:9' },
      retry: { maxAttempts: 1 },
    });
    const error = await client.getguidegrouplist().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(String((error as Error).message)).not.toContain('pr0xy-pass');
    await client.close();
  });
});
