import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the gateway does when the service has not answered within its timeout. */
export type GatewayGivesUp = '504' | '502' | 'reset';

export interface GatewayOptions {
  /** How long the gateway waits for the service before it gives up on the client's side. */
  readonly timeoutMs: number;
  /** `504` (nginx's answer after `proxy_read_timeout`), `502`, or a reset of the client's connection. */
  readonly givesUp?: GatewayGivesUp;
}

/**
 * A gateway on 127.0.0.1 in front of `service`, as nginx or a corporate proxy is: it forwards each
 * request, and when the service has not answered within `timeoutMs` it gives up on the client —
 * answers 504 (or 502, or resets the connection) — while the request carries on upstream and may
 * still take effect. `arrived(op)` resolves when a call of `op` reaches the gateway, `givesUpOn(op)`
 * when the gateway gives up on one; `gaveUp` counts the requests it gave up on.
 */
export async function startGateway(service: string, options: GatewayOptions) {
  const givesUp = options.givesUp ?? '504';
  const waiting = new Map<string, Array<() => void>>();
  const givingUp = new Map<string, Array<() => void>>();
  const wait = (on: Map<string, Array<() => void>>, op: string) =>
    new Promise<void>((resolve) => on.set(op, [...(on.get(op) ?? []), resolve]));
  let gaveUp = 0;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const op = /^\/cgi-bin\/guide\/([a-z0-9_]+)\?/.exec(req.url ?? '')?.[1];
    if (op !== undefined) for (const wake of waiting.get(op)?.splice(0) ?? []) wake();
    // The request goes on upstream whatever happens to the client's side.
    const upstream = fetch(`${service}${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers: { 'content-type': 'application/json' },
      ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
    }).then(async (answer) => ({ status: answer.status, body: Buffer.from(await answer.arrayBuffer()) }));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), options.timeoutMs);
    });
    const first = await Promise.race([upstream, late]).catch(() => 'failed' as const);
    clearTimeout(timer);
    if (first === 'late' || first === 'failed') {
      gaveUp += 1;
      // Told before the client is: a test can change the service's faults before the client reads.
      if (op !== undefined) for (const wake of givingUp.get(op)?.splice(0) ?? []) wake();
      // The late answer is dropped; the request itself is not stopped.
      upstream.catch(() => undefined);
      if (givesUp === 'reset') {
        req.socket.destroy();
        return;
      }
      const status = first === 'failed' || givesUp === '502' ? 502 : 504;
      res.writeHead(status, { 'content-type': 'text/html' });
      res.end(
        `<html><body><h1>${status} Gateway ${status === 504 ? 'Time-out' : 'Error'}</h1></body></html>`,
      );
      return;
    }
    res.writeHead(first.status, { 'content-type': 'application/json' });
    res.end(first.body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    /** Resolves when the next call of `op` reaches the gateway. */
    arrived: (op: string) => wait(waiting, op),
    /** Resolves when the gateway next gives up on a call of `op`, before the client is told. */
    givesUpOn: (op: string) => wait(givingUp, op),
    get gaveUp() {
      return gaveUp;
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
