import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CallAbortedError, type ClientEvent, createGuideClient } from '../../src/client/index.js';
import * as library from '../../src/index.js';

// Concurrency, rate limit and abort, against a small server that counts the requests in flight.

let url: string;
let inFlight = 0;
let peak = 0;
let starts: number[] = [];
let delayMs = 20;
let close: () => Promise<void>;

beforeAll(async () => {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if ((req.url ?? '').startsWith('/cgi-bin/stable_token')) {
        res.end(JSON.stringify({ access_token: 'limits-token-123456', expires_in: 7200 }));
        return;
      }
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      starts.push(performance.now());
      setTimeout(() => {
        inFlight -= 1;
        res.end(JSON.stringify({ errcode: 0, errmsg: 'ok', group_list: [] }));
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
});

afterAll(async () => {
  await close();
});

function reset(delay: number): void {
  inFlight = 0;
  peak = 0;
  starts = [];
  delayMs = delay;
}

describe('limits', () => {
  test('parallelism bounds the calls in flight (default 8)', async () => {
    reset(20);
    const client = createGuideClient({ baseUrl: url, auth: { appid: 'wxlimits', secret: 'limits-secret' } });
    await Promise.all(Array.from({ length: 40 }, () => client.getguidegrouplist()));
    expect(peak).toBe(8);
    await client.close();

    reset(20);
    const three = createGuideClient({
      baseUrl: url,
      auth: { accessToken: 'limits-token-123456' },
      parallelism: 3,
    });
    await Promise.all(Array.from({ length: 12 }, () => three.getguidegrouplist()));
    expect(peak).toBe(3);
    await three.close();
  });

  test('the rate limit spaces the requests', async () => {
    reset(0);
    const client = createGuideClient({
      baseUrl: url,
      auth: { accessToken: 'limits-token-123456' },
      parallelism: 16,
      rateLimit: 50,
    });
    await Promise.all(Array.from({ length: 11 }, () => client.getguidegrouplist()));
    const span = (starts.at(-1) ?? 0) - (starts[0] ?? 0);
    // 11 requests at 50/s: 10 intervals of 20 ms.
    expect(span).toBeGreaterThanOrEqual(190);
    await client.close();
  });

  test('many calls waiting on one abort signal raise no listener-leak warning', async () => {
    reset(5);
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w.name);
    };
    process.on('warning', onWarning);
    const client = createGuideClient({
      baseUrl: url,
      auth: { accessToken: 'limits-token-123456' },
      parallelism: 2,
      signal: new AbortController().signal,
    });
    await Promise.all(Array.from({ length: 40 }, () => client.getguidegrouplist()));
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    await client.close();
  });

  test('the abort signal stops calls in flight and refuses new ones', async () => {
    reset(2_000);
    const stop = new AbortController();
    const client = createGuideClient({
      baseUrl: url,
      auth: { accessToken: 'limits-token-123456' },
      signal: stop.signal,
    });
    // The fake API answers after 2 s: only an abort makes the call end with CallAbortedError.
    const pending = client.getguidegrouplist().catch((e: unknown) => e);
    setTimeout(() => stop.abort(), 30);
    const error = await pending;
    expect(error).toBeInstanceOf(CallAbortedError);
    expect(error).toMatchObject({ code: 'GUIDE_ABORTED', operation: 'getguidegrouplist' });
    await expect(client.getguidegrouplist()).rejects.toBeInstanceOf(CallAbortedError);
    await client.close();

    // A write stopped on the wire may have taken effect: its outcome is unknown.
    const stopWrite = new AbortController();
    const writer = createGuideClient({
      baseUrl: url,
      auth: { accessToken: 'limits-token-123456' },
      signal: stopWrite.signal,
    });
    const write = writer
      .updateguideacct({ guide_account: 'alice_wx', guide_nickname: 'A' })
      .catch((e: unknown) => e);
    setTimeout(() => stopWrite.abort(), 30);
    expect(await write).toMatchObject({
      code: 'GUIDE_OUTCOME_UNKNOWN',
      message: expect.stringMatching(
        /stopped while the request was on the wire; the call may have taken effect/,
      ),
    });
    await writer.close();
    await expect(client.getguidegrouplist()).rejects.toMatchObject({ message: /the client was closed/ });
  });
});

test('the public library API', () => {
  expect(typeof library.createGuideClient).toBe('function');
  expect(typeof library.GuideService.start).toBe('function');
  expect(typeof library.parseJson).toBe('function');
  expect(typeof library.stringifyJson).toBe('function');
  const errors = [
    library.GuideApiError,
    library.QuotaExhaustedError,
    library.CredentialsError,
    library.TokenRejectedError,
    library.ApiUnauthorizedError,
    library.TransportError,
    library.CallOutcomeUnknownError,
    library.CallAbortedError,
    library.MalformedAnswerError,
    library.InvalidRequestError,
  ];
  expect(errors.every((e) => e.prototype instanceof library.GuidectlError)).toBe(true);
  expect(library.parseJson('{"id":18446744073709551615}')).toEqual({ id: 18446744073709551615n });
});

describe('injected effects', () => {
  test('a dispatcher and a clock drive the client: tokens renew ahead of their end on that clock', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get('http://guide.test');
    let issued = 0;
    pool
      .intercept({ path: '/cgi-bin/stable_token', method: 'POST' })
      .reply(200, () => ({ access_token: `mock-token-${++issued}-abcdef`, expires_in: 7200 }))
      .times(2);
    const seen: string[] = [];
    pool
      .intercept({ path: (p) => p.startsWith('/cgi-bin/guide/getguidegrouplist'), method: 'POST' })
      .reply(200, (options) => {
        seen.push(String(options.path));
        return {
          errcode: 0,
          errmsg: 'ok',
          group_list: [{ id: '1860131524965138433', name: 'g', create_time: 1 }],
        };
      })
      .times(4);
    let now = 1_700_000_000_000;
    const events: ClientEvent[] = [];
    const client = createGuideClient({
      baseUrl: 'http://guide.test',
      auth: { appid: 'wxmock', secret: 'mock-secret' },
      dispatcher: agent,
      clock: { now: () => now },
      onEvent: (e) => events.push(e),
    });
    expect((await client.getguidegrouplist()).group_list[0]?.id).toBe('1860131524965138433');
    now += 3_600_000; // an hour: the token is still good
    await client.getguidegrouplist();
    now += 3_400_000; // 6 800 s of 7 200: within the last 300 s, renewed before use
    await client.getguidegrouplist();
    expect(seen.map((p) => p.replace(/^.*access_token=/, ''))).toEqual([
      'mock-token-1-abcdef',
      'mock-token-1-abcdef',
      'mock-token-2-abcdef',
    ]);
    expect(
      events.filter((e) => e.type === 'token-refresh').map((e) => e.type === 'token-refresh' && e.reason),
    ).toEqual(['initial', 'expiring']);
    // The client does not close a dispatcher it was given.
    await client.close();
    const again = createGuideClient({
      baseUrl: 'http://guide.test',
      auth: { accessToken: 'fixed-abcdef' },
      dispatcher: agent,
    });
    await again.getguidegrouplist();
    await again.close();
    await agent.close();
  });
});
