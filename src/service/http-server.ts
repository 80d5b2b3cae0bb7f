import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ServiceAnswer, ServiceHandler } from '../wire/exchange.js';
import type { ConnectionGuard } from './connections.js';

// The guide service over HTTP: a thin adapter that reads a request off a socket, hands its bytes
// to the service's handler (the same one an in-process client calls), and writes the answer back.
// Loaded only by a service that listens, so that the embedded local service does not load
// node:http.

/** What the HTTP adapter needs from the service. */
export interface HttpHost {
  readonly handle: ServiceHandler;
  readonly guard: ConnectionGuard;
  /** Largest request body read; past it the body is refused without reading the rest. */
  readonly maxBodyBytes: number;
  /** The answer to a body over `maxBodyBytes` (the same the handler gives). */
  tooLarge(): ServiceAnswer;
  /** Logs a failure of the adapter itself and gives the `-1` answer for it. */
  internalError(error: unknown): ServiceAnswer;
  /** While the service closes, every answer ends its connection, so no keep-alive socket holds it up. */
  isClosing(): boolean;
}

class BodyTooLarge extends Error {}

/** A listening guide service's HTTP server. */
export interface HttpListener {
  readonly server: Server;
  /** Requests whose body is still arriving (a client uploading slowly): a stop waits for them. */
  unreadRequests(): number;
}

/** An HTTP server (keep-alive, connections held under the guard's caps) over `host.handle`. */
export function createHttpServer(host: HttpHost): HttpListener {
  const reading = new Set<IncomingMessage>();
  const server = createServer({ keepAlive: true }, (req, res) => {
    const socket = req.socket;
    host.guard.requestStarted(socket);
    res.once('close', () => host.guard.requestEnded(socket));
    serveRequest(host, req, res, reading).catch((error: unknown) =>
      write(host, res, host.internalError(error)),
    );
  });
  server.on('connection', (socket: Socket) => host.guard.admit(socket));
  server.keepAliveTimeout = 30_000;
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  return {
    server,
    unreadRequests: () => reading.size,
  };
}

/** Listens on `host:port` (rejects with the system's error: see `GuideService.start`). */
export async function listenHttp(server: Server, host: string, port: number): Promise<AddressInfo> {
  server.listen(port, host);
  await once(server, 'listening');
  return server.address() as AddressInfo;
}

async function serveRequest(
  host: HttpHost,
  req: IncomingMessage,
  res: ServerResponse,
  reading: Set<IncomingMessage>,
): Promise<void> {
  reading.add(req);
  const body = await readRequestBody(host, req, res).finally(() => reading.delete(req));
  if (body === undefined) return;
  const answer = await host.handle({
    method: req.method ?? 'GET',
    target: req.url ?? '/',
    caller: req.socket.remoteAddress ?? '',
    body,
  });
  if (answer === undefined) {
    // The service acted on the call and drops its answer: the caller sees the connection reset.
    res.socket?.destroy();
    return;
  }
  write(host, res, answer);
}

/** The whole request body, or undefined when it was refused (over the size limit) or cut off. */
async function readRequestBody(
  host: HttpHost,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  try {
    if (declared > host.maxBodyBytes) throw new BodyTooLarge();
    return await readWhole(req, host.maxBodyBytes);
  } catch (error) {
    if (error instanceof BodyTooLarge) {
      // The rest of the body is not read: the connection ends after the answer.
      res.setHeader('connection', 'close');
      write(host, res, host.tooLarge());
      res.once('finish', () => req.destroy());
    } else {
      req.destroy();
    }
    return undefined;
  }
}

function write(host: HttpHost, res: ServerResponse, answer: ServiceAnswer): void {
  if (res.headersSent || res.destroyed) return;
  if (host.isClosing()) res.setHeader('connection', 'close');
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

/**
 * The body of `req`, rejecting with `BodyTooLarge` past `max` bytes, or with the stream's error.
 * Listeners, not `for await`: an async iterator per request was 2% of the service's time.
 */
function readWhole(req: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer | string): void => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.length;
      if (size > max) {
        req.off('data', onData);
        req.pause();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(buffer);
    };
    req.on('data', onData);
    req.once('end', () =>
      resolve(chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks)),
    );
    req.once('error', reject);
    req.once('close', () => {
      if (!req.complete) reject(new Error('the request was cut off'));
    });
  });
}
