import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ClientEvent,
  createGuideClient,
  type GuideClient,
  type GuideClientOptions,
} from '../../src/client/index.js';
import { GuideService, type GuideServiceOptions } from '../../src/service/index.js';
import { simCall } from '../helpers/service.js';

/** Retry timings small enough that tests never wait for real backoff. */
export const FAST_RETRY = {
  maxAttempts: 8,
  baseDelayMs: 1,
  quotaBaseDelayMs: 1,
  maxDelayMs: 4,
  budgetMs: 10_000,
  readBudgetMs: 10_000,
} as const;

export function startService(options: GuideServiceOptions = {}): Promise<GuideService> {
  return GuideService.start({ db: ':memory:', simulation: true, host: '127.0.0.1', port: 0, ...options });
}

const open: GuideClient[] = [];

/** A client whose closing is left to `closeClients` (so that a failed test leaves no socket open). */
export function tracked(client: GuideClient): GuideClient {
  open.push(client);
  return client;
}

/** Closes every client made by `clientOf` or passed to `tracked` since the last call. */
export async function closeClients(): Promise<void> {
  await Promise.all(open.splice(0).map((c) => c.close()));
}

/** A client of the service with app credentials, fast retries, and every event recorded. */
export function clientOf(
  service: GuideService,
  options: Partial<GuideClientOptions> = {},
): { client: GuideClient; events: ClientEvent[] } {
  const events: ClientEvent[] = [];
  const client = createGuideClient({
    baseUrl: service.url,
    auth: service.credentials,
    retry: FAST_RETRY,
    onEvent: (e) => events.push(e),
    ...options,
  });
  open.push(client);
  return { client, events };
}

/** POSTs to the simulation interface. */
export function sim(
  service: GuideService,
  verb: string,
  body: object = {},
): Promise<Record<string, unknown>> {
  return simCall(service.url, verb, body);
}

export function guide(n: number): {
  guide_account: string;
  guide_nickname: string;
  guide_headimgurl: string;
} {
  return {
    guide_account: `guide_${String(n).padStart(4, '0')}`,
    guide_nickname: `Guide ${n}`,
    guide_headimgurl: `https://mmbiz.qpic.cn/mmbiz_jpg/g${n}/0`,
  };
}

/** Successful calls of an operation in the service's call record. */
export function successes(service: GuideService, operation: string): number {
  return service.calls().filter((c) => c.operation === operation && c.errcode === 0).length;
}

/**
 * A throwaway HTTP server on 127.0.0.1 answering every request with `answer(path)`: a body, a
 * broken connection (`destroy`), or no answer at all until the server closes (`hold`), which
 * times a call out for certain however slow the machine is.
 */
export async function startFakeApi(
  answer: (path: string, body: string) => { status?: number; body: object } | 'destroy' | 'hold',
): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      requests.push(req.url ?? '');
      const reply = answer(req.url ?? '', body);
      if (reply === 'hold') return;
      if (reply === 'destroy') {
        req.socket.destroy();
        return;
      }
      const text = JSON.stringify(reply.body);
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export { captureIo as fakeIo } from '../helpers/cli.js';
