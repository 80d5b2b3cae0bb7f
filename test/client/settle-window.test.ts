import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { ClientEvent } from '../../src/client/index.js';
import { type GuideService, parseFaults } from '../../src/service/index.js';
import { type GatewayGivesUp, startGateway } from '../helpers/gateway.js';
import { clientOf, closeClients, guide, sim, startService, successes } from './helpers.js';

// A gateway that gives up on a request (nginx's 504 after its timeout, a 502, or a reset of the
// client's connection) says nothing of the request behind it, which the service may still apply
// a moment later. A create or an append is then watched for by reads for the settle window before
// it is ever sent again: it is done once, when the late original lands.

let service: GuideService;
beforeAll(async () => {
  service = await startService();
});
afterAll(() => service.close());
afterEach(async () => {
  service.setFaults(parseFaults(''));
  await closeClients();
});

/** The service holds the next call 600 ms; the gateway gives up on it after 200 ms. */
const HOLD = parseFaults('hold=1,hold_time=600ms');
const GATEWAY_MS = 200;

type Append = 'newguidegroup' | 'setguideconfig' | 'addguidemassendjob';

const APPENDS: ReadonlyArray<{ op: Append; givesUp: GatewayGivesUp }> = [
  { op: 'newguidegroup', givesUp: '504' },
  { op: 'setguideconfig', givesUp: '502' },
  { op: 'addguidemassendjob', givesUp: 'reset' },
];

describe('a create or an append behind a gateway that gave up on it', () => {
  test.each(APPENDS)(
    '$op, gateway $givesUp: watched for until the late original lands; sent once, done once',
    async ({ op, givesUp }) => {
      await sim(service, 'reset');
      service.resetCalls();
      const gateway = await startGateway(service.url, { timeoutMs: GATEWAY_MS, givesUp });
      try {
        const { client, events } = clientOf(service, { baseUrl: gateway.url });
        const g = guide(1);
        await client.addguideacct(g);
        const now = Number((await sim(service, 'clock'))['now']);
        await sim(service, 'follow', { openid: 'oBuyer1' });
        const { qrcode_url } = await client.guidecreateqrcode({ guide_account: g.guide_account });
        await sim(service, 'scan', { openid: 'oBuyer1', qrcode_url });
        const bodies: Record<Append, Record<string, unknown>> = {
          newguidegroup: { group_name: 'Once' },
          setguideconfig: {
            guide_account: g.guide_account,
            is_delete: false,
            guide_fast_reply_list: [{ content: 'Hello' }],
          },
          addguidemassendjob: {
            guide_account: g.guide_account,
            task_name: 'Once',
            push_time: now + 3600,
            openid: ['oBuyer1'],
            material: [{ type: 1, word: 'hi' }],
          },
        };
        // Only the append is held: the service draws its hold as it arrives, and the reads after
        // the gateway gave up on it are answered at once.
        service.setFaults(HOLD);
        void gateway.givesUpOn(op).then(() => service.setFaults(parseFaults('')));
        const answer = await client.call(op, bodies[op], { before: [] });
        expect(answer['errcode']).toBe(0);
        expect(gateway.gaveUp).toBe(1);
        // Sent once: the reads after the loss saw nothing at first, then the original landed.
        expect(service.calls().filter((c) => c.operation === op)).toHaveLength(1);
        expect(successes(service, op)).toBe(1);
        const confirms = events.filter(
          (e): e is Extract<ClientEvent, { type: 'confirm' }> => e.type === 'confirm',
        );
        expect(confirms.map((e) => e.outcome)).toEqual(['applied']);
        if (op === 'newguidegroup') expect((await client.getguidegrouplist()).group_list).toHaveLength(1);
        if (op === 'setguideconfig') {
          const config = await client.getguideconfig({ guide_account: g.guide_account });
          expect(config.guide_fast_reply_list.map((r) => r.content)).toEqual(['Hello']);
        }
        if (op === 'addguidemassendjob') {
          const list = await client.getguidemassendjoblist({
            guide_account: g.guide_account,
            task_status: [1],
            offset: 0,
            limit: 10,
          });
          expect(list.total_count).toBe(1);
        }
      } finally {
        gateway.close();
      }
    },
    20_000,
  );

  test('an append that never lands is sent again once the settle window (the injected clock) has passed', async () => {
    await sim(service, 'reset');
    service.resetCalls();
    // A gateway that answers the first newguidegroup 502 without passing it on.
    let seen = 0;
    const front = await startDroppingGateway(service.url, () => seen++ === 0);
    let now = 1_000_000;
    const slept: number[] = [];
    try {
      const { client, events } = clientOf(service, {
        baseUrl: front.url,
        settleWindowMs: 5_000,
        clock: { now: () => now },
        sleep: async (ms: number) => {
          slept.push(ms);
          now += ms;
        },
      });
      const answer = await client.call('newguidegroup', { group_name: 'Late' }, { before: [] });
      expect(answer['errcode']).toBe(0);
      expect(seen).toBe(2);
      expect(successes(service, 'newguidegroup')).toBe(1);
      // Read again and again until the window had passed on the client's clock, not beyond it.
      const watched = slept.filter((ms) => ms >= 250);
      expect(watched.reduce((a, b) => a + b, 0)).toBe(5_000);
      expect(Math.max(...watched)).toBeLessThanOrEqual(2_000);
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'confirm',
          outcome: 'not-applied',
          detail: 'no new group of that name, after watching for it 5 s',
        }),
      );
    } finally {
      front.close();
    }
  });
});

/** A gateway that answers 502 to the newguidegroup calls `drop` picks, unsent; the rest it passes on. */
async function startDroppingGateway(serviceUrl: string, drop: () => boolean) {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.url?.startsWith('/cgi-bin/guide/newguidegroup?') === true && drop()) {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
      return;
    }
    const answer = await fetch(`${serviceUrl}${req.url ?? '/'}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.concat(chunks),
    });
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
