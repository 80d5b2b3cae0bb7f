import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const QUOTA_GET = '/cgi-bin/openapi/quota/get';

/**
 * A gateway on 127.0.0.1 in front of `service` that forwards the token and guide calls and
 * answers every other path itself, as one that serves the guide API alone does: with an HTTP 404
 * page, or (`errcode`) a JSON answer of that errcode, as a service older than quotas does (40066).
 */
export async function startQuotaBlindGateway(
  service: string,
  refusal: { readonly status: 404 } | { readonly errcode: number },
): Promise<{ url: string; close(): Promise<void> }> {
  return listen(async (req, res, body) => {
    const path = pathOf(req);
    if (path.startsWith('/cgi-bin/guide/') || path.startsWith('/cgi-bin/stable_token'))
      return forward(service, req, res, body);
    if ('status' in refusal) {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body><h1>404 Not Found</h1></body></html>');
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errcode: refusal.errcode, errmsg: `invalid url: no such endpoint ${path}` }));
    }
  });
}

/**
 * A gateway on 127.0.0.1 in front of `service` that forwards every call and counts the `quota/get`
 * calls, which the service does not record in `/__sim/calls`.
 */
export async function startQuotaCountingGateway(
  service: string,
): Promise<{ url: string; quotaReads(): number; close(): Promise<void> }> {
  let reads = 0;
  const gateway = await listen(async (req, res, body) => {
    if (pathOf(req) === QUOTA_GET) reads += 1;
    await forward(service, req, res, body);
  });
  return { ...gateway, quotaReads: () => reads };
}

function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0] ?? '/';
}

async function forward(service: string, req: IncomingMessage, res: ServerResponse, body: Buffer) {
  const answer = await fetch(`${service}${req.url ?? '/'}`, {
    method: req.method ?? 'GET',
    headers: { 'content-type': 'application/json' },
    ...(req.method === 'POST' ? { body } : {}),
  });
  res.writeHead(answer.status, { 'content-type': 'application/json' });
  res.end(Buffer.from(await answer.arrayBuffer()));
}

async function listen(
  handle: (req: IncomingMessage, res: ServerResponse, body: Buffer) => Promise<void>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    await handle(req, res, Buffer.concat(chunks));
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
