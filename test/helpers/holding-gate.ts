import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A gate in front of the service: it forwards every request, except the `operation` calls (after
 * the first `after` of them), which it holds unanswered (`held` resolves at the first) and sends
 * on only at `release` — as a server may apply a write whose client has given up on it.
 */
export async function holdingGate(service: string, operation: string, after = 0) {
  let passed = 0;
  const held: (() => Promise<unknown>)[] = [];
  let arrived: () => void = () => {};
  const first = new Promise<void>((resolve) => (arrived = resolve));
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const forward = () =>
      fetch(`${service}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers: { 'content-type': 'application/json' },
        ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
      });
    if (req.url?.startsWith(`/cgi-bin/guide/${operation}?`) && ++passed > after) {
      held.push(forward);
      arrived();
      return;
    }
    const answer = await forward();
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    held: first,
    release: () => Promise.all(held.map((send) => send())),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
