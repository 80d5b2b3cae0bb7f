import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A gateway on 127.0.0.1 in front of `service` that forwards the token and guide calls and
 * answers every other path itself, as one that serves the guide API alone does: with an HTTP 404
 * page, or (`errcode`) a JSON answer of that errcode, as a service older than quotas does (40066).
 */
export async function startQuotaBlindGateway(
  service: string,
  refusal: { readonly status: 404 } | { readonly errcode: number },
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (!path.startsWith('/cgi-bin/guide/') && !path.startsWith('/cgi-bin/stable_token')) {
      if ('status' in refusal) {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<html><body><h1>404 Not Found</h1></body></html>');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ errcode: refusal.errcode, errmsg: `invalid url: no such endpoint ${path}` }),
        );
      }
      return;
    }
    const answer = await fetch(`${service}${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers: { 'content-type': 'application/json' },
      ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
    });
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
