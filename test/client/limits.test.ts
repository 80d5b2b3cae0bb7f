import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, type Dispatcher, MockAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CallAbortedError, type ClientEvent, createGuideClient, type Sleep } from '../../src/client/index.js';
import type { Clock } from '../../src/core/clock.js';
import * as library from '../../src/index.js';

// Concurrency, rate limit and abort, against a small server that holds the guide calls it receives
// until a rule of the test releases them: what is asserted is how many calls were in flight and in
// which order things happened, never how long anything took (a busy machine stretches every wait).

let url: string;
/** Answers of the guide calls received and not yet released. */
let held: Array<() => void> = [];
let peak = 0;
let released = 0;
/** The held calls are answered, all at once, as soon as this many are held. */
let releaseAt = 1;
/** Called with the number held after each guide call arrives (before any release). */
let onArrival: (heldNow: number) => void = () => {};
let close: () => Promise<void>;

beforeAll(async () => {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if ((req.url ?? '').startsWith('/cgi-bin/stable_token')) {
        res.end(JSON.stringify({ access_token: 'limits-token-123456', expires_in: 7200 }));
        return;
      }
      held.push(() => res.end(JSON.stringify({ errcode: 0, errmsg: 'ok', group_list: [] })));
      peak = Math.max(peak, held.length);
      onArrival(held.length);
      if (held.length >= releaseAt) {
        const batch = held;
        held = [];
        released += batch.length;
        for (const answer of batch) answer();
      }
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

function reset(options: { releaseAt: number; onArrival?: (heldNow: number) => void }): void {
  held = [];
  peak = 0;
  released = 0;
  releaseAt = options.releaseAt;
  onArrival = options.onArrival ?? (() => {});
}

/** An undici agent that counts the guide calls the client sends and notes the clock at each. */
function countingAgent(clock: Clock = { now: () => 0 }): { agent: Dispatcher; sentAt: number[] } {
  const sentAt: number[] = [];
  const agent = new Agent().compose((dispatch) => (options, handler) => {
    if (options.path.includes('/cgi-bin/guide/')) sentAt.push(clock.now());
    return dispatch(options, handler);
  });
  return { agent, sentAt };
}

/**
 * Virtual time for the client's clock and sleep: a sleep ends when the clock reaches its end, and
 * the clock jumps to the earliest end once the event loop has nothing else to do (setImmediate).
 * No real time passes, so a loaded machine cannot change what the client sees.
 */
function virtualTime(): { clock: Clock; sleep: Sleep } {
  let now = 0;
  const sleepers: Array<{ end: number; wake: () => void }> = [];
  let ticking = false;
  const tick = (): void => {
    sleepers.sort((a, b) => a.end - b.end);
    const next = sleepers.shift();
    if (next === undefined) {
      ticking = false;
      return;
    }
    now = Math.max(now, next.end);
    next.wake();
    setImmediate(tick);
  };
  const sleep: Sleep = (ms) =>
    new Promise<void>((wake) => {
      sleepers.push({ end: now + ms, wake });
      if (!ticking) {
        ticking = true;
        setImmediate(tick);
      }
    });
  return { clock: { now: () => now }, sleep };
}

describe('limits', () => {
  test('parallelism bounds the calls in flight (default 8)', async () => {
    // The server answers only once `limit` calls are held, so the calls finish only if the client
    // keeps `limit` in flight; when it answers, the client must have sent no more than those held.
    async function run(limit: number, calls: number, options: { parallelism?: number }): Promise<void> {
      const { agent, sentAt } = countingAgent();
      const sentAhead: number[] = [];
      reset({
        releaseAt: limit,
        onArrival: (n) => {
          if (n === limit) sentAhead.push(sentAt.length - released - n);
        },
      });
      const client = createGuideClient({
        baseUrl: url,
        auth: { appid: 'wxlimits', secret: 'limits-secret' },
        dispatcher: agent,
        ...options,
      });
      await Promise.all(Array.from({ length: calls }, () => client.getguidegrouplist()));
      expect(peak).toBe(limit);
      expect(sentAhead).toEqual(Array.from({ length: calls / limit }, () => 0));
      expect(sentAt).toHaveLength(calls);
      await client.close();
      await agent.close();
    }
    await run(8, 40, {});
    await run(3, 12, { parallelism: 3 });
  });

  test('the rate limit spaces the requests on the client clock', async () => {
    reset({ releaseAt: 1 });
    const time = virtualTime();
    const { agent, sentAt } = countingAgent(time.clock);
    const client = createGuideClient({
      baseUrl: url,
      auth: { accessToken: 'limits-token-123456' },
      parallelism: 16,
      rateLimit: 50,
      clock: time.clock,
      sleep: time.sleep,
      dispatcher: agent,
    });
    await Promise.all(Array.from({ length: 11 }, () => client.getguidegrouplist()));
    // 50 a second: the first at once, then one every 20 ms of the client's clock.
    expect(sentAt).toEqual(Array.from({ length: 11 }, (_, i) => i * 20));
    expect(released).toBe(11);
    await client.close();
    await agent.close();
  });

  test('many calls waiting on one abort signal raise no listener-leak warning', async () => {
    reset({ releaseAt: 1 });
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

  test('the calls waiting and in flight listen to the abort signal through two listeners, not one each', async () => {
    // Node scans a signal's listener list on every add: a listener per waiting call costs O(N²).
    const stop = new AbortController();
    const listening: number[] = [];
    reset({
      releaseAt: 4,
      onArrival: (n) => n === 4 && listening.push(getEventListeners(stop.signal, 'abort').length),
    });
    const client = createGuideClient({
      baseUrl: url,
      auth: { accessToken: 'limits-token-123456' },
      parallelism: 4,
      signal: stop.signal,
    });
    await Promise.all(Array.from({ length: 200 }, () => client.getguidegrouplist()));
    expect(listening).toHaveLength(50);
    // One of the semaphore (while calls wait), one of the transport (for the calls in flight).
    expect(Math.max(...listening)).toBeLessThanOrEqual(2);
    await client.close();
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });

  test('the abort signal stops calls in flight and refuses new ones', async () => {
    // The server never answers: the call ends only because the signal aborts once it has arrived.
    const stop = new AbortController();
    reset({ releaseAt: Number.POSITIVE_INFINITY, onArrival: () => stop.abort() });
    const client = createGuideClient({
      baseUrl: url,
      auth: { accessToken: 'limits-token-123456' },
      signal: stop.signal,
    });
    const error = await client.getguidegrouplist().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallAbortedError);
    expect(error).toMatchObject({ code: 'GUIDE_ABORTED', operation: 'getguidegrouplist' });
    await expect(client.getguidegrouplist()).rejects.toBeInstanceOf(CallAbortedError);
    await client.close();

    // A write stopped on the wire may have taken effect: its outcome is unknown.
    const stopWrite = new AbortController();
    reset({ releaseAt: Number.POSITIVE_INFINITY, onArrival: () => stopWrite.abort() });
    const writer = createGuideClient({
      baseUrl: url,
      auth: { accessToken: 'limits-token-123456' },
      signal: stopWrite.signal,
    });
    const write = writer
      .updateguideacct({ guide_account: 'alice_wx', guide_nickname: 'A' })
      .catch((e: unknown) => e);
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
