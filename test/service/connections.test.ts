import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectionLimitsFor, type GuideServiceOptions } from '../../src/service/index.js';
import { type RawAnswer, startTestService, type TestService } from '../helpers/service.js';
import { openSlowBodies } from '../helpers/slow-bodies.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ connections: { total: 50, perAddress: 40 } });
});
afterAll(() => t.close());

/** Opens `n` connections from `localAddress` that send nothing; resolves when all are connected. */
async function idleSockets(
  n: number,
  localAddress: string,
): Promise<{ sockets: Socket[]; closed(): number }> {
  const { hostname, port } = new URL(t.url);
  let closed = 0;
  const sockets = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect({ host: hostname, port: Number(port), localAddress });
          socket.once('connect', () => resolve(socket));
          socket.once('error', reject);
          socket.on('error', () => {});
          socket.once('close', () => {
            closed++;
          });
        }),
    ),
  );
  return { sockets, closed: () => closed };
}

/**
 * A guide call on a connection of its own from `localAddress`, held in flight: resolves once the
 * service has taken the request (it answered `100 Continue` to the headers); `send()` sends the
 * body and resolves with the answer, or with an empty one when the connection was closed instead.
 */
async function heldCall(localAddress: string): Promise<{ send(): Promise<RawAnswer> }> {
  const { hostname, port } = new URL(t.url);
  const socket = connect({ host: hostname, port: Number(port), localAddress });
  socket.setEncoding('utf8');
  socket.on('error', () => {});
  let text = '';
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(
    `POST /cgi-bin/guide/getguidegrouplist?access_token=${encodeURIComponent(t.token)} HTTP/1.1\r\n` +
      'host: service\r\ncontent-type: application/json\r\ncontent-length: 2\r\n' +
      'expect: 100-continue\r\nconnection: close\r\n\r\n',
  );
  await new Promise<void>((resolve, reject) => {
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('100 Continue')) resolve();
    });
    closed.then(() => reject(new Error('closed before the service took the request')));
  });
  return {
    async send() {
      socket.write('{}');
      await closed;
      const final = text.slice(text.lastIndexOf('HTTP/1.1 '));
      const body = final.slice(final.indexOf('\r\n\r\n') + 4);
      const status = Number(final.split(' ')[1]);
      return { status, text: body, json: body === '' ? {} : (JSON.parse(body) as Record<string, unknown>) };
    },
  };
}

describe('connection caps', () => {
  it('holds hundreds of idle connections under the caps, closing the idle ones, and keeps answering', async () => {
    const flood = await idleSockets(300, '127.0.0.1');
    // A client making requests still gets its answer: an idle connection made room for it.
    await t.ok('getguidegrouplist', {});
    expect(t.service.openConnections).toBeLessThanOrEqual(40);
    const other = await idleSockets(300, '127.0.0.2');
    await t.ok('getguidegrouplist', {});
    expect(t.service.openConnections).toBeLessThanOrEqual(50);
    for (const s of [...flood.sockets, ...other.sockets]) s.destroy();
  });

  it('never closes a connection with a request in flight', async () => {
    // Five requests in flight from the flood's own address: each has sent its headers (the service
    // answered 100 Continue, so it holds the request) and holds back its body until the end.
    const inFlight = await Promise.all(Array.from({ length: 5 }, () => heldCall('127.0.0.1')));
    const flood = await idleSockets(200, '127.0.0.1');
    // A call on a connection made after the flood: once answered, every flood connection was admitted.
    expect((await (await heldCall('127.0.0.1')).send()).json['errcode']).toBe(0);
    expect(t.service.openConnections).toBeLessThanOrEqual(40);
    const answers = await Promise.all(inFlight.map((call) => call.send()));
    expect(answers.map((a) => a.json['errcode'])).toEqual([0, 0, 0, 0, 0]);
    expect(flood.sockets.length).toBe(200);
    for (const s of flood.sockets) s.destroy();
  });

  it('derives the caps from the open-file limit, below it', () => {
    expect(connectionLimitsFor(1024)).toEqual({ total: 787, perAddress: 393 });
    expect(connectionLimitsFor(65_536).total).toBe(10_000);
    expect(connectionLimitsFor(20)).toEqual({ total: 8, perAddress: 4 });
  });
});

/** A guide call on a connection of its own from `localAddress`: the answer, or an empty one when the connection was closed. */
async function callFrom(service: TestService, localAddress: string, op: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(service.url);
  const socket = connect({ host: hostname, port: Number(port), localAddress });
  socket.setEncoding('utf8');
  socket.on('error', () => {});
  let text = '';
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  socket.write(
    `POST /cgi-bin/guide/${op}?access_token=${encodeURIComponent(service.token)} HTTP/1.1\r\n` +
      'host: service\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}',
  );
  await new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const body = text.slice(text.indexOf('\r\n\r\n') + 4);
  const status = Number(text.split(' ')[1]);
  return { status, text: body, json: body === '' ? {} : (JSON.parse(body) as Record<string, unknown>) };
}

describe('request bodies that trickle in', () => {
  const started: TestService[] = [];
  const stops: (() => void)[] = [];
  const service = async (options: GuideServiceOptions): Promise<TestService> => {
    const s = await startTestService(options);
    started.push(s);
    return s;
  };
  afterAll(async () => {
    for (const stop of stops) stop();
    // Closed once the service has seen every trickling connection go: a stop would wait for their bodies.
    for (const s of started) await vi.waitFor(() => expect(s.service.receivingRequests).toBe(0));
    await Promise.all(started.map((s) => s.close()));
  });

  it('cannot lock others out: at the cap, the body arriving the longest is closed to make room', async () => {
    // Two addresses hold every connection (50 each, the per-address cap of 100), each a request
    // whose body never ends; the body timeout (10 s) is far off.
    const s = await service({ connections: { total: 100, perAddress: 50 } });
    const first = await openSlowBodies(s.url, s.token, 50, { localAddress: '127.0.0.1' });
    const second = await openSlowBodies(s.url, s.token, 50, { localAddress: '127.0.0.2' });
    stops.push(first.stop, second.stop);
    expect(first.open() + second.open()).toBe(100);
    for (const address of ['127.0.0.3', '127.0.0.4', '127.0.0.1']) {
      expect((await callFrom(s, address, 'getguidegrouplist')).json['errcode'], address).toBe(0);
    }
    expect(s.service.openConnections).toBeLessThanOrEqual(100);
    // A trickling request made room, the oldest first, unanswered (nothing was done for it).
    await vi.waitFor(() => expect(first.bodies[0]?.socket.destroyed).toBe(true));
    expect(first.bodies[0]?.answer()).toBe('');
    expect(first.open() + second.open()).toBeGreaterThanOrEqual(97);
  });

  it('a body not whole within the body timeout is answered -1 and its connection closed', async () => {
    const s = await service({ bodyTimeoutMs: 300 });
    const slow = await openSlowBodies(s.url, s.token, 5, { first: 1000 });
    stops.push(slow.stop);
    await Promise.all(slow.bodies.map((b) => b.closed));
    for (const body of slow.bodies) {
      expect(body.answer()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(body.answer()).toContain(
        '{"errcode":-1,"errmsg":"system error: the request body did not arrive within 0.3 s; the call was not made"}',
      );
    }
    await s.ok('getguidegrouplist', {});
  });

  it('the bodies held at once are capped: past the budget a body is answered -1 (busy) and closed', async () => {
    // Each body may be 100,000 bytes, and all together 250,000: two of five 90,000-byte bodies fit.
    const s = await service({ maxBodyBytes: 100_000, maxBufferedBodyBytes: 250_000 });
    const slow = await openSlowBodies(s.url, s.token, 5, { first: 90_000 });
    stops.push(slow.stop);
    await vi.waitFor(() => expect(slow.open()).toBe(2), { timeout: 10_000, interval: 20 });
    const refused = slow.bodies.filter((b) => b.socket.destroyed);
    expect(refused).toHaveLength(3);
    for (const body of refused) {
      expect(body.answer()).toContain(
        '{"errcode":-1,"errmsg":"system error: too many request bodies are arriving at once; the call was not made, try again"}',
      );
    }
    // Room is left for the calls of other clients, whose bodies come whole.
    await s.ok('getguidegrouplist', {});
  });
});
