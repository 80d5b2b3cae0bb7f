import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionLimitsFor } from '../../src/service/index.js';
import { startTestService, type TestService } from '../helpers/service.js';

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
    await t.sim('faults', { faults: 'latency=300ms' });
    const inFlight = Array.from({ length: 5 }, () => t.call('getguidegrouplist', {}));
    const flood = await idleSockets(200, '127.0.0.3');
    await t.sim('faults', { faults: '' });
    const answers = await Promise.all(inFlight);
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
