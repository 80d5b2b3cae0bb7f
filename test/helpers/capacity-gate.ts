import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

export interface CapacityGate {
  readonly url: string;
  /** Guide calls answered -1 for load. */
  readonly refused: number;
  /** Guide calls answered 45011 (see `minuteQuota`). */
  readonly quotaRefused: number;
  /** Guide calls passed to the service. */
  readonly passed: number;
  /** Most guide calls passed and not yet answered at once. */
  readonly peak: number;
  /** The operations answered 45011 without effect while they are in it, as past a per-minute limit. */
  readonly minuteQuota: Set<string>;
  close(): Promise<void>;
}

/**
 * A service at its capacity, as `guidectl serve --capacity N` is: an HTTP proxy on 127.0.0.1 in
 * front of `service` that holds at most `capacity` guide calls in service at once (from their
 * arrival to their answer) and answers one more `{"errcode":-1,"errmsg":"system busy"}` at once,
 * without passing it on. Without a capacity it only counts. The calls of an operation in
 * `minuteQuota` are answered 45011 without effect.
 */
export async function startCapacityGate(
  service: string,
  options: { readonly capacity?: number } = {},
): Promise<CapacityGate> {
  const capacity = options.capacity ?? Number.POSITIVE_INFINITY;
  const upstream = new Pool(service, { connections: 256 });
  const minuteQuota = new Set<string>();
  let inService = 0;
  let refused = 0;
  let quotaRefused = 0;
  let passed = 0;
  let peak = 0;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const op = /^\/cgi-bin\/guide\/([a-z0-9_]+)\?/.exec(req.url ?? '')?.[1];
    const answer = (text: string): void => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(text);
    };
    if (op !== undefined && minuteQuota.has(op)) {
      quotaRefused++;
      answer('{"errcode":45011,"errmsg":"api minute-quota reach limit mustslower retry next minute"}');
      return;
    }
    if (op !== undefined && inService >= capacity) {
      refused++;
      answer('{"errcode":-1,"errmsg":"system busy"}');
      return;
    }
    if (op !== undefined) {
      inService++;
      passed++;
      peak = Math.max(peak, inService);
    }
    try {
      const forwarded = await upstream.request({
        path: req.url ?? '/',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      });
      const text = await forwarded.body.text();
      res.writeHead(forwarded.statusCode, { 'content-type': 'application/json' });
      res.end(text);
    } catch {
      res.writeHead(502);
      res.end();
    } finally {
      if (op !== undefined) inService--;
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get refused() {
      return refused;
    },
    get quotaRefused() {
      return quotaRefused;
    },
    get passed() {
      return passed;
    },
    get peak() {
      return peak;
    },
    minuteQuota,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await upstream.close();
    },
  };
}
