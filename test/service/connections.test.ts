import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionLimitsFor } from '../../src/service/index.js';
import { type RawAnswer, startTestService, type TestService } from '../helpers/service.js';

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
