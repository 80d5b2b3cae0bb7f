import { request } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import { InProcessTransport } from '../../src/client/in-process-transport.js';
import {
  CallAbortedError,
  type ClientEvent,
  createGuideClient,
  GuideApiError,
  type GuideClient,
  type GuideClientOptions,
  type RetryPolicy,
  TransportError,
} from '../../src/client/index.js';
import { TRANSPORT_CLOSED } from '../../src/client/transport.js';
import { GuideService, type GuideServiceOptions } from '../../src/service/index.js';
import type { ServiceAnswer } from '../../src/wire/exchange.js';
import { parseJson, stringifyJson } from '../../src/wire/json.js';
import { frozenClock } from '../helpers/service.js';
import { closeClients, FAST_RETRY, tracked } from './helpers.js';

// The embedded local service answers in-process (no HTTP, no undici): the client hands the
// service's handler the bytes an HTTP request would carry. Both paths must answer alike, byte for
// byte: here the same requests go to two services in the same state (same credentials, same frozen
// clock, so the same 64-bit ids), one over real HTTP on 127.0.0.1, one in-process.

const CREDENTIALS = { appid: 'wx0123456789abcdef', secret: 'in-process-test-secret-0123456789' };

const services: GuideService[] = [];
afterEach(async () => {
  await closeClients();
  await Promise.all(services.splice(0).map((s) => s.close()));
});

/** The same service twice: listening on 127.0.0.1, and answering only in-process. */
async function twins(
  options: GuideServiceOptions = {},
): Promise<{ http: GuideService; local: GuideService }> {
  const common = { db: ':memory:', clock: frozenClock(), ...CREDENTIALS, ...options };
  const http = await GuideService.start({ ...common, host: '127.0.0.1', port: 0 });
  const local = GuideService.open(common);
  services.push(http, local);
  return { http, local };
}

interface Exchange {
  readonly method: string;
  /** The path and query; `TOKEN` stands for each service's own access token. */
  readonly target: string;
  readonly body: string;
}

/** The answer as bytes (text), status and content type; a token in it is masked (each service has its own). */
interface Seen {
  readonly status: number;
  readonly type: string | undefined;
  readonly length: string | undefined;
  readonly text: string;
}

function masked(seen: Seen, token: string): Seen {
  return token === '' ? seen : { ...seen, text: seen.text.split(token).join('TOKEN') };
}

function overHttp(service: GuideService, exchange: Exchange, token: string): Promise<Seen> {
  const target = exchange.target.replace('TOKEN', encodeURIComponent(token));
  return new Promise((resolve, reject) => {
    const req = request(`${service.url}${target}`, { method: exchange.method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers['content-type'],
          length: res.headers['content-length'],
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end(exchange.method === 'GET' ? undefined : exchange.body);
  });
}

async function inProcess(service: GuideService, exchange: Exchange, token: string): Promise<Seen> {
  const answer = await service.handle({
    method: exchange.method,
    target: exchange.target.replace('TOKEN', encodeURIComponent(token)),
    caller: '127.0.0.1',
    body: Buffer.from(exchange.body, 'utf8'),
  });
  if (answer === undefined) throw new Error('dropped');
  expect(answer.headers['content-length']).toBe(String(answer.body.length));
  return {
    status: answer.status,
    type: answer.headers['content-type'],
    length: answer.headers['content-length'],
    text: answer.body.toString('utf8'),
  };
}

function tokenOf(seen: Seen, token: string): string {
  if (token !== '') return token;
  const parsed = parseJson(seen.text);
  const value =
    typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, 'access_token') : undefined;
  return typeof value === 'string' ? value : '';
}

const GROUP_ID_PLACEHOLDER = '"GROUP"';

describe('the service in-process answers as it does over HTTP', () => {
  test('the same bytes for a sequence of calls: tokens, writes, 64-bit ids, API errors, bad requests', async () => {
    const { http, local } = await twins();
    const guide = { guide_account: 'alice_wx', guide_nickname: 'Alice', guide_headimgurl: 'https://x/a' };
    const steps: Exchange[] = [
      { method: 'POST', target: '/cgi-bin/guide/getguidegrouplist?access_token=TOKEN', body: '{}' },
      {
        method: 'POST',
        target: '/cgi-bin/stable_token',
        body: JSON.stringify({ grant_type: 'client_credential', ...CREDENTIALS }),
      },
      {
        method: 'POST',
        target: '/cgi-bin/guide/addguideacct?access_token=TOKEN',
        body: JSON.stringify(guide),
      },
      {
        method: 'POST',
        target: '/cgi-bin/guide/addguideacct?access_token=TOKEN',
        body: JSON.stringify(guide),
      },
      {
        method: 'POST',
        target: '/cgi-bin/guide/newguidegroup?access_token=TOKEN',
        body: '{"group_name":"Harbour 港"}',
      },
      {
        method: 'POST',
        target: '/cgi-bin/guide/newguidegroup?access_token=TOKEN',
        body: '{"group_name":"Two"}',
      },
      { method: 'POST', target: '/cgi-bin/guide/getguidegrouplist?access_token=TOKEN', body: '{}' },
      {
        method: 'POST',
        target: '/cgi-bin/guide/addguide2guidegroup?access_token=TOKEN',
        body: `{"group_id":${GROUP_ID_PLACEHOLDER},"guide_account":"alice_wx"}`,
      },
      {
        method: 'POST',
        target: '/cgi-bin/guide/getgroupinfo?access_token=TOKEN',
        body: `{"group_id":${GROUP_ID_PLACEHOLDER},"page":0,"num":10}`,
      },
      {
        method: 'POST',
        target: '/cgi-bin/guide/getgroupbyguide?access_token=TOKEN',
        body: '{"guide_account":"alice_wx"}',
      },
      {
        method: 'POST',
        target: '/cgi-bin/guide/getgroupinfo?access_token=TOKEN',
        body: '{"group_id":1,"page":0,"num":10}',
      },
      { method: 'POST', target: '/cgi-bin/guide/getguideacct?access_token=TOKEN', body: '{"guide_account":' },
      { method: 'POST', target: '/cgi-bin/guide/getguideacct?access_token=TOKEN', body: '[]' },
      {
        method: 'POST',
        target: '/cgi-bin/guide/getguideacct?access_token=wrong',
        body: '{"guide_account":"alice_wx"}',
      },
      { method: 'POST', target: '/cgi-bin/guide/getguidenothing?access_token=TOKEN', body: '{}' },
      { method: 'GET', target: '/cgi-bin/guide/getguideacctlist?access_token=TOKEN', body: '' },
      { method: 'POST', target: '/elsewhere', body: '{}' },
      {
        method: 'POST',
        target: '/cgi-bin/stable_token',
        body: '{"grant_type":"client_credential","appid":"wx0","secret":"s"}',
      },
      {
        method: 'POST',
        target: '/cgi-bin/guide/getguideacctlist?access_token=TOKEN',
        body: '{"page":0,"num":10}',
      },
      {
        method: 'POST',
        target: '/cgi-bin/guide/delguideacct?access_token=TOKEN',
        body: '{"guide_account":"alice_wx"}',
      },
      {
        method: 'POST',
        target: '/cgi-bin/guide/getguideacct?access_token=TOKEN',
        body: '{"guide_account":"alice_wx"}',
      },
    ];
    let httpToken = '';
    let localToken = '';
    let groupId = '';
    for (const [i, step] of steps.entries()) {
      const exchange = { ...step, body: step.body.replace(GROUP_ID_PLACEHOLDER, groupId) };
      const overHttpSeen = await overHttp(http, exchange, httpToken);
      const inProcessSeen = await inProcess(local, exchange, localToken);
      httpToken = tokenOf(overHttpSeen, httpToken);
      localToken = tokenOf(inProcessSeen, localToken);
      expect(
        masked(inProcessSeen, localToken),
        `step ${i}: ${exchange.method} ${exchange.target} ${exchange.body}`,
      ).toEqual(masked(overHttpSeen, httpToken));
      expect(overHttpSeen.status).toBe(200);
      const id = /"group_id":(\d+)/.exec(overHttpSeen.text)?.[1];
      if (groupId === '' && id !== undefined) groupId = id;
    }
    // The sequence did what it says: a token, a 64-bit id beyond 2^53 used again, errors answered.
    expect(httpToken).not.toBe('');
    expect(BigInt(groupId)).toBeGreaterThan(2n ** 53n);
    expect(http.calls().map((c) => c.errcode)).toEqual(local.calls().map((c) => c.errcode));
    expect(new Set(local.calls().map((c) => c.errcode))).toEqual(
      new Set([0, 41001, 40001, 9300803, 40097, 47001, 9300804]),
    );
  });

  test('a body over the limit is refused alike (45002)', async () => {
    const { http, local } = await twins({ maxBodyBytes: 1024 });
    const big = {
      method: 'POST',
      target: '/cgi-bin/guide/getguideacct?access_token=x',
      body: `{"pad":"${'x'.repeat(2048)}"}`,
    };
    const seen = await inProcess(local, big, '');
    expect(seen).toEqual(await overHttp(http, big, ''));
    expect(seen.text).toContain('45002');
  });
});

/**
 * Two clients of twin services, one over HTTP, one in-process, each recording its events; `each`
 * gives what is each client's own (a clock and its sleep).
 */
async function twinClients(
  options: GuideServiceOptions = {},
  retry: Partial<RetryPolicy> = {},
  each: () => Partial<GuideClientOptions> = () => ({}),
): Promise<{
  http: GuideService;
  local: GuideService;
  clients: [GuideClient, GuideClient];
  events: [ClientEvent[], ClientEvent[]];
}> {
  const { http, local } = await twins(options);
  const events: [ClientEvent[], ClientEvent[]] = [[], []];
  const common = { auth: CREDENTIALS, retry: { ...FAST_RETRY, ...retry } };
  const overHttp = tracked(
    createGuideClient({ ...common, ...each(), baseUrl: http.url, onEvent: (e) => events[0].push(e) }),
  );
  const inProcessClient = tracked(
    createGuideClient({
      ...common,
      ...each(),
      inProcess: { handle: local.handle, name: 'embedded(test.db)' },
      onEvent: (e) => events[1].push(e),
    }),
  );
  return { http, local, clients: [overHttp, inProcessClient], events };
}

/** What a call came to: its answer (serialised losslessly), or its error's class, code and message. */
async function outcome(run: () => Promise<unknown>): Promise<string> {
  try {
    return stringifyJson(await run());
  } catch (error) {
    if (error instanceof GuideApiError) return `${error.code} ${error.errcode} ${error.message}`;
    if (error instanceof Error) return `${error.name} ${Reflect.get(error, 'code')} ${error.message}`;
    throw error;
  }
}

/** The `http` events as the `--verbose` log shows them, the base URL and durations left out. */
function exchanges(events: readonly ClientEvent[], origin: string): string[] {
  return events.flatMap((e) =>
    e.type === 'http'
      ? [
          `${e.method} ${e.url.replace(origin, 'ORIGIN')} ${e.status} > ${e.requestBody} < ${e.responseBody} ${e.error}`,
        ]
      : [],
  );
}

describe('a client in-process behaves as one over HTTP', () => {
  test('the same answers, errors and verbose exchanges, 64-bit ids kept exact', async () => {
    const { http, clients, events } = await twinClients();
    const results: [string[], string[]] = [[], []];
    for (const [i, client] of clients.entries()) {
      const out = results[i] ?? [];
      const group = await client.call('newguidegroup', { group_name: 'Harbour' });
      out.push(stringifyJson(group));
      const groupId = group['group_id'];
      expect(typeof groupId).toBe('bigint');
      // Twice: the second is the API's error for a guide that exists.
      for (const _ of [1, 2]) {
        out.push(
          await outcome(() =>
            client.addguideacct({
              guide_account: 'bob_wx',
              guide_nickname: 'Bob',
              guide_headimgurl: 'https://x/b',
            }),
          ),
        );
      }
      out.push(
        await outcome(() =>
          client.call('addguide2guidegroup', { group_id: groupId, guide_account: 'bob_wx' }),
        ),
      );
      out.push(await outcome(() => client.getgroupinfo({ group_id: String(groupId), page: 0, num: 10 })));
      out.push(await outcome(() => client.call('getgroupinfo', { group_id: 1, page: 0, num: 10 })));
      out.push(
        await outcome(() =>
          client.updateguideacct({ guide_account: 'bob_wx', guide_nickname: 'x'.repeat(17) }),
        ),
      );
      out.push(await outcome(() => client.getguideacct({ guide_account: 'nobody_wx' })));
      out.push(await outcome(async () => (await client.getguidegrouplist()).group_list));
    }
    expect(results[1]).toEqual(results[0]);
    expect(exchanges(events[1], 'embedded(test.db)')).toEqual(exchanges(events[0], http.url));
    expect(events[1].filter((e) => e.type === 'http')[0]?.url).toBe('embedded(test.db)/cgi-bin/stable_token');
  });

  test('an answer the service drops fails as a broken connection, retried as over HTTP until the read budget is spent', async () => {
    // A read is safe to repeat: one whose answer is lost is retried until readBudgetMs is spent,
    // however many attempts that takes (maxAttempts does not count them). The budget is spent on
    // each client's own clock, which only its waits move, and the jitter is fixed: waits of 50,
    // 100, 200, 400, then 500 ms, so that 13 attempts fit in 5 s, however slowly the machine answers.
    const virtualTime = (): Partial<GuideClientOptions> => {
      let now = 0;
      return {
        clock: { now: () => now },
        sleep: async (ms) => {
          now += ms;
        },
        random: () => 0.5,
      };
    };
    const retry = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1_000, readBudgetMs: 5_000 };
    const { clients, events } = await twinClients({ faults: 'lost_answer=1' }, retry, virtualTime);
    const failures = [];
    for (const client of clients) {
      const error: unknown = await client.getguidegrouplist().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TransportError);
      if (!(error instanceof TransportError)) return;
      failures.push({ code: error.code, kind: error.kind, sent: error.sent, attempts: error.attempts });
    }
    expect(failures[1]).toEqual(failures[0]);
    expect(failures[0]).toMatchObject({ kind: 'connection', attempts: 13 });
    for (const seen of events) expect(seen.filter((e) => e.type === 'retry')).toHaveLength(12);
  });

  test('the caller’s abort stops a call under way; a closed client refuses more', async () => {
    const { local } = await twins({ faults: 'latency=300ms' });
    const stop = new AbortController();
    const client = createGuideClient({
      auth: CREDENTIALS,
      inProcess: { handle: local.handle, name: 'embedded(test.db)' },
      signal: stop.signal,
      onEvent: (e) => {
        // The token is fetched: the call itself is now with the service, held by the latency.
        if (e.type === 'token-refresh') setImmediate(() => stop.abort());
      },
    });
    const error: unknown = await client.getguidegrouplist().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallAbortedError);
    await client.close();
    const after = createGuideClient({ auth: CREDENTIALS, inProcess: { handle: local.handle, name: 'x' } });
    await after.close();
    const closed: unknown = await after.getguidegrouplist().catch((e: unknown) => e);
    expect(closed).toBeInstanceOf(CallAbortedError);
  });
});

describe('the in-process transport itself', () => {
  test('once closed, it refuses an exchange without handing it to the service', async () => {
    let handled = 0;
    const transport = new InProcessTransport(() => {
      handled += 1;
      return Promise.resolve({ status: 200, headers: {}, body: Buffer.from('{}') });
    }, 'test');
    await transport.close();
    const exchange = transport.send(
      { path: '/cgi-bin/x', headers: {}, body: '{}', limitMs: 1_000 },
      () => undefined,
    );
    const failure: unknown = await exchange.done.catch((e: unknown) => e);
    expect((failure as { code?: string }).code).toBe(TRANSPORT_CLOSED);
    expect(handled).toBe(0);
  });

  test('closed twice while an exchange is under way: both closings end once it ends', async () => {
    let answer: (value: ServiceAnswer) => void = () => {};
    let handed = false;
    const transport = new InProcessTransport(
      () =>
        new Promise<ServiceAnswer>((resolve) => {
          handed = true;
          answer = resolve;
        }),
      'test',
    );
    const exchange = transport.send(
      { path: '/cgi-bin/x', headers: {}, body: '{}', limitMs: 1_000 },
      () => undefined,
    );
    while (!handed) await new Promise((resolve) => setImmediate(resolve));
    const closings = [transport.close(), transport.close()];
    let ended = 0;
    for (const closing of closings) void closing.then(() => ended++);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toBe(0);
    answer({ status: 200, headers: {}, body: Buffer.from('{}') });
    await exchange.done;
    await Promise.all(closings);
    expect(ended).toBe(2);
  });
});

describe('a handler in-process that fails', () => {
  // `inProcess: { handle }` takes any handler: one that throws or rejects is a failure of the
  // service, told with what it threw, and not retried (a lost answer would be, for minutes).
  const failing = {
    throws: (error: Error) => () => {
      throw error;
    },
    rejects: (error: Error) => () => Promise.reject(error),
  };
  for (const [how, make] of Object.entries(failing)) {
    test(`one that ${how}: the call fails once, kind service, the error kept as its cause`, async () => {
      const thrown = new Error('the store is gone');
      let calls = 0;
      const handler = make(thrown);
      const events: ClientEvent[] = [];
      const client = tracked(
        createGuideClient({
          auth: CREDENTIALS,
          retry: FAST_RETRY,
          inProcess: {
            handle: () => {
              calls += 1;
              return handler();
            },
            name: 'embedded(broken)',
          },
          onEvent: (e) => events.push(e),
        }),
      );
      const error: unknown = await client.getguidegrouplist().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TransportError);
      if (!(error instanceof TransportError)) return;
      expect(error.kind).toBe('service');
      expect(error.cause).toBe(thrown);
      expect(error.message).toContain('the service failed while answering: the store is gone');
      expect(calls).toBe(1);
      expect(events.filter((e) => e.type === 'retry')).toEqual([]);
    });
  }

  test('the token fetched, a write the service fails on: fails once, neither retried nor settled by a read', async () => {
    // The cases above fail the token exchange (the first request); this one fails a call.
    const { local } = await twins();
    const paths: string[] = [];
    const thrown = new Error('the disk is full');
    const client = tracked(
      createGuideClient({
        auth: CREDENTIALS,
        retry: FAST_RETRY,
        inProcess: {
          handle: (request) => {
            const path = request.target.split('?')[0] ?? '';
            paths.push(path);
            if (path.endsWith('/newguidegroup')) throw thrown;
            return local.handle(request);
          },
          name: 'embedded(half broken)',
        },
      }),
    );
    const error: unknown = await client.newguidegroup({ group_name: 'North' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    if (!(error instanceof TransportError)) return;
    expect(error.kind).toBe('service');
    expect(error.cause).toBe(thrown);
    // Sent once, after the read of the groups that would settle a lost answer; no retry, and no
    // read after it to settle whether it was done.
    expect(paths).toEqual([
      '/cgi-bin/stable_token',
      '/cgi-bin/guide/getguidegrouplist',
      '/cgi-bin/guide/newguidegroup',
    ]);
  });

  test('a closed service refuses as a closed server does', async () => {
    const { local } = await twins();
    await local.close();
    const client = tracked(
      createGuideClient({
        auth: CREDENTIALS,
        retry: { ...FAST_RETRY, maxAttempts: 1 },
        inProcess: { handle: local.handle, name: 'x' },
      }),
    );
    const error: unknown = await client.getguidegrouplist().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    if (error instanceof TransportError) expect(error.kind).toBe('refused');
  });
});
