import { connect } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { createGuideClient, TransportError } from '../../src/client/index.js';
import { parseFaults } from '../../src/service/faults.js';
import { GuideService, ServiceClosedError } from '../../src/service/index.js';
import type { ServiceAnswer, ServiceRequest } from '../../src/wire/exchange.js';
import { parseJson } from '../../src/wire/json.js';
import { frozenClock, startTestService } from '../helpers/service.js';

// Closing the service while a request comes in: the request is answered (it came in before the
// service closed) or refused with ServiceClosedError (a closed server's ECONNREFUSED) — never let
// in to find the store closed under it (a -1 answer and an internal error in the log).

const CREDENTIALS = { appid: 'wx0123456789abcdef', secret: 'close-test-secret-0123456789' };

function request(target: string, body: object): ServiceRequest {
  return { method: 'POST', target, caller: '127.0.0.1', body: Buffer.from(JSON.stringify(body), 'utf8') };
}

/** A field of an answer's JSON body (undefined for a dropped answer). */
function fieldOf(answer: ServiceAnswer | undefined, name: string): unknown {
  const parsed = parseJson(answer?.body.toString('utf8') ?? '{}');
  return typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, name) : undefined;
}

/** What a request came to: its errcode, or `refused` (ServiceClosedError). */
function outcome(answer: Promise<ServiceAnswer | undefined>): Promise<unknown> {
  return answer.then(
    (answered) => fieldOf(answered, 'errcode'),
    (error: unknown) => (error instanceof ServiceClosedError ? 'refused' : `failed: ${String(error)}`),
  );
}

describe('a request that arrives while the service closes', () => {
  it('is answered or refused, whatever turn it arrives in, and never reaches a closed store', async () => {
    // The first request is answered at once and is all there is in flight when close is called;
    // the second comes `turns` microtasks later and waits 5 ms (latency) before its transaction:
    // arriving just as the first ends, it was let in, then the store was closed under it.
    const seen = new Set<unknown>();
    for (let turns = 0; turns <= 12; turns++) {
      const logged: string[] = [];
      const service = GuideService.open({ ...CREDENTIALS, clock: frozenClock(), log: (l) => logged.push(l) });
      const tokenAnswer = await service.handle(
        request('/cgi-bin/stable_token', { grant_type: 'client_credential', ...CREDENTIALS }),
      );
      const token = String(fieldOf(tokenAnswer, 'access_token'));
      const list = (): ServiceRequest =>
        request(`/cgi-bin/guide/getguidegrouplist?access_token=${token}`, {});
      const first = outcome(service.handle(list()));
      const closing = service.close();
      service.setFaults(parseFaults('latency=5ms'));
      const second = (async () => {
        for (let i = 0; i < turns; i++) await null;
        return outcome(service.handle(list()));
      })();
      expect(await first).toBe(0);
      const late = await second;
      seen.add(late);
      expect([0, 'refused'], `${turns} turns after close`).toContain(late);
      await closing;
      expect(logged, `${turns} turns after close`).toEqual([]);
    }
    expect(seen).toContain('refused');
  });
});

/**
 * A frozen clock that counts how often the service reads it: a guide call reads it when the
 * service takes it in (its token is checked), before the latency holds it.
 */
function countingClock(): { now(): number; readonly reads: number } {
  const frozen = frozenClock();
  let reads = 0;
  return {
    now: () => {
      reads += 1;
      return frozen.now();
    },
    get reads() {
      return reads;
    },
  };
}

/** Resolves once the service has taken in a request since `before` clock reads. */
async function takenIn(clock: { readonly reads: number }, before: number): Promise<void> {
  while (clock.reads === before) await nextTurn();
}

describe('closing against a new request, end to end', () => {
  it('over HTTP: the call in flight is answered; one sent as the service closes is answered or refused', async () => {
    for (let turns = 0; turns <= 6; turns++) {
      const clock = countingClock();
      const running = await startTestService({ clock, faults: 'latency=20ms' });
      const before = clock.reads;
      const first = running.call('getguidegrouplist');
      await takenIn(clock, before);
      const closing = running.close();
      for (let i = 0; i < turns; i++) await nextTurn();
      const late = await running.call('getguidegrouplist').then(
        (answer) => answer.json['errcode'],
        () => 'refused',
      );
      expect((await first).json['errcode']).toBe(0);
      expect([0, 'refused'], `${turns} turns after close`).toContain(late);
      // close() throws when the service logged an internal error (a closed store reached).
      await closing;
    }
  });

  it('in-process: the call in flight is answered; one made as the service closes is answered or refused', async () => {
    for (let turns = 0; turns <= 6; turns++) {
      const clock = countingClock();
      const logged: string[] = [];
      const service = GuideService.open({ ...CREDENTIALS, clock, log: (l) => logged.push(l) });
      const client = createGuideClient({
        auth: CREDENTIALS,
        retry: { maxAttempts: 1 },
        inProcess: { handle: service.handle, name: 'embedded(close)' },
      });
      await client.getguidegrouplist();
      service.setFaults(parseFaults('latency=20ms'));
      const before = clock.reads;
      const first = client.getguidegrouplist();
      await takenIn(clock, before);
      const closing = service.close();
      for (let i = 0; i < turns; i++) await nextTurn();
      const late = await client.getguidegrouplist().then(
        () => 0,
        (error: unknown) => (error instanceof TransportError ? error.kind : String(error)),
      );
      expect((await first).group_list).toEqual([]);
      expect([0, 'refused'], `${turns} turns after close`).toContain(late);
      await closing;
      await client.close();
      expect(logged).toEqual([]);
    }
  });
});

describe('calls waiting on an injected latency', () => {
  it('do not each add a listener to one signal: a dozen at once set off no MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning.name);
    };
    process.on('warning', onWarning);
    const service = GuideService.open({ ...CREDENTIALS, clock: frozenClock() });
    try {
      const tokenAnswer = await service.handle(
        request('/cgi-bin/stable_token', { grant_type: 'client_credential', ...CREDENTIALS }),
      );
      const token = String(fieldOf(tokenAnswer, 'access_token'));
      service.setFaults(parseFaults('latency=30ms'));
      const calls = Array.from({ length: 12 }, () =>
        outcome(service.handle(request(`/cgi-bin/guide/getguidegrouplist?access_token=${token}`, {}))),
      );
      expect(await Promise.all(calls)).toEqual(Array(12).fill(0));
      await nextTurn(); // a warning is emitted on a later tick
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
      await service.close();
    }
  });

  it('are ended by a stop at once: the waiting call goes unanswered then, not after its delay', async () => {
    const service = GuideService.open({ ...CREDENTIALS, clock: frozenClock() });
    const tokenAnswer = await service.handle(
      request('/cgi-bin/stable_token', { grant_type: 'client_credential', ...CREDENTIALS }),
    );
    const token = String(fieldOf(tokenAnswer, 'access_token'));
    service.setFaults(parseFaults('latency=60s'));
    const waiting = service.handle(
      request(`/cgi-bin/guide/newguidegroup?access_token=${token}`, { group_name: 'Never made' }),
    );
    await nextTurn();
    // Without the delay ended, the call would wait its 60 s, past the test's timeout.
    await service.abandon();
    expect(await waiting).toBeUndefined();
  });
});

describe('a connection read on after a refused body', () => {
  it('is closed by a stop at once, its answer sent, not after the 5 s it may be read on', async () => {
    const running = await startTestService({ maxBodyBytes: 1000 });
    const { hostname, port } = new URL(running.url);
    // Half-open allowed: the client reads the answer and the service's end, and sends on.
    const socket = connect({ host: hostname, port: Number(port), allowHalfOpen: true });
    socket.on('error', () => {});
    let text = '';
    let ended = false;
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    socket.once('end', () => {
      ended = true;
    });
    socket.write(
      `POST /cgi-bin/guide/getguideacct?access_token=${encodeURIComponent(running.token)} HTTP/1.1\r\n` +
        'host: service\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{',
    );
    await vi.waitFor(() => expect(ended).toBe(true));
    expect(text).toContain('"errcode":45002');
    expect(running.service.openConnections).toBeGreaterThan(0);
    const closing = running.close();
    await vi.waitFor(() => expect(running.service.openConnections).toBe(0), { timeout: 2_000 });
    await closing;
    socket.destroy();
  });
});
