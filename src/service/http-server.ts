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
  /**
   * Request bodies held at once, in bytes, all requests together: past it a body is refused, so
   * that many bodies arriving at once (slowly, or never ending) cannot take the machine's memory.
   */
  readonly maxBufferedBytes: number;
  /** Time a request body may take to arrive, from its headers; past it the body is refused. */
  readonly bodyTimeoutMs: number;
  /** The answer to a body refused for `why` (over `maxBodyBytes`: the same the handler gives). */
  refusedBody(why: RefusedBody): ServiceAnswer;
  /** Logs a failure of the adapter itself and gives the `-1` answer for it. */
  internalError(error: unknown): ServiceAnswer;
  /** While the service closes, every answer ends its connection, so no keep-alive socket holds it up. */
  isClosing(): boolean;
}

/**
 * Why a request body was refused before it was read whole: over the size limit (`too-large`),
 * too slow (`slow`: not whole within the body timeout), or over the memory all bodies may hold
 * at once (`busy`). The rest is not read: the connection ends after the answer.
 */
export type RefusedBody = 'too-large' | 'slow' | 'busy';

class BodyRefused extends Error {
  constructor(readonly why: RefusedBody) {
    super(`request body refused: ${why}`);
  }
}

/** Bytes of request bodies held, all requests together, against the budget. */
class BodyBudget {
  private used = 0;

  constructor(private readonly max: number) {}

  /** Counts `bytes` more, or says false (counting nothing) when they would pass the budget. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.max) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used -= bytes;
  }
}

/** A listening guide service's HTTP server. */
export interface HttpListener {
  readonly server: Server;
  /** Requests whose body is still arriving (a client uploading slowly): a stop waits for them. */
  unreadRequests(): number;
  /**
   * Closes the connections read on after a refused body (see `closeLingering`): their answer is
   * sent, and a stop does not wait for their clients.
   */
  endLingering(): void;
}

/** An HTTP server (keep-alive, connections held under the guard's caps) over `host.handle`. */
export function createHttpServer(host: HttpHost): HttpListener {
  const reading = new Set<IncomingMessage>();
  const lingering = new Set<Socket>();
  const budget = new BodyBudget(host.maxBufferedBytes);
  const server = createServer({ keepAlive: true }, (req, res) => {
    const socket = req.socket;
    host.guard.requestStarted(socket);
    res.once('close', () => host.guard.requestEnded(socket));
    serveRequest(host, req, res, { reading, lingering, budget }).catch((error: unknown) =>
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
    endLingering() {
      for (const socket of lingering) socket.destroy();
    },
  };
}

/** Listens on `host:port` (rejects with the system's error: see `GuideService.start`). */
export async function listenHttp(server: Server, host: string, port: number): Promise<AddressInfo> {
  server.listen(port, host);
  await once(server, 'listening');
  return server.address() as AddressInfo;
}

/**
 * What the requests of one server share: those whose body is arriving, the connections read on
 * after a refused body, and the bodies' budget.
 */
interface Bodies {
  readonly reading: Set<IncomingMessage>;
  readonly lingering: Set<Socket>;
  readonly budget: BodyBudget;
}

async function serveRequest(
  host: HttpHost,
  req: IncomingMessage,
  res: ServerResponse,
  bodies: Bodies,
): Promise<void> {
  bodies.reading.add(req);
  const body = await readRequestBody(host, req, res, bodies).finally(() => bodies.reading.delete(req));
  if (body === undefined) return;
  // Counted until the answer is sent: the body is held while it is handled.
  if (res.closed) bodies.budget.release(body.length);
  else res.once('close', () => bodies.budget.release(body.length));
  host.guard.bodyReceived(req.socket);
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

/** The whole request body, or undefined when it was refused (too large, slow, over budget) or cut off. */
async function readRequestBody(
  host: HttpHost,
  req: IncomingMessage,
  res: ServerResponse,
  bodies: Bodies,
): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  try {
    if (declared > host.maxBodyBytes) throw new BodyRefused('too-large');
    return await readWhole(req, host, bodies.budget);
  } catch (error) {
    if (error instanceof BodyRefused) {
      // The rest of the body is not kept: the connection ends after the answer.
      res.setHeader('connection', 'close');
      closeLingering(req, bodies.lingering);
      write(host, res, host.refusedBody(error.why));
    } else {
      req.destroy();
    }
    return undefined;
  }
}

/** How long a connection whose request body was refused is read on after its answer, at most. */
const LINGER_MS = 5_000;
/** How much of such a body is read and dropped, at most. */
const LINGER_BYTES = 16 * 1024 * 1024;

/**
 * Ends the connection of `req`, whose body is refused unread, as nginx's lingering close does.
 * Closing a socket with unread bytes makes the kernel send a reset, and a client still sending
 * its body then loses the answer. So once the answer is sent, the service half-closes (the
 * client reads the answer, then the end), reads on and drops what still arrives, and closes
 * when the client does, or after `LINGER_MS` or `LINGER_BYTES`.
 */
function closeLingering(req: IncomingMessage, lingering: Set<Socket>): void {
  const socket = req.socket;
  let dropped = 0;
  req.on('data', (chunk: Buffer | string) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) socket.destroy();
  });
  req.resume();
  // Node ends a `connection: close` answer with destroySoon, which would destroy the socket as
  // soon as the answer is written, unread bytes or not.
  socket.destroySoon = () => {
    if (socket.destroyed) return;
    socket.end();
    lingering.add(socket);
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => {
      clearTimeout(timer);
      lingering.delete(socket);
    });
  };
}

function write(host: HttpHost, res: ServerResponse, answer: ServiceAnswer): void {
  if (res.headersSent || res.destroyed) return;
  if (host.isClosing()) res.setHeader('connection', 'close');
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

/**
 * The body of `req`, taken from `budget` as it arrives (and given back if it is refused; else the
 * caller gives it back once answered); rejecting with `BodyRefused` past `host.maxBodyBytes`, past
 * the budget or past `host.bodyTimeoutMs`, or with the stream's error.
 * Listeners, not `for await`: an async iterator per request was 2% of the service's time.
 */
function readWhole(req: IncomingMessage, host: HttpHost, budget: BodyBudget): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const refuse = (error: Error): void => {
      clearTimeout(deadline);
      req.off('data', onData);
      req.pause();
      chunks.length = 0;
      budget.release(size);
      size = 0;
      reject(error);
    };
    const onData = (chunk: Buffer | string): void => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (size + buffer.length > host.maxBodyBytes) refuse(new BodyRefused('too-large'));
      else if (!budget.take(buffer.length)) refuse(new BodyRefused('busy'));
      else {
        size += buffer.length;
        chunks.push(buffer);
      }
    };
    const deadline = setTimeout(() => refuse(new BodyRefused('slow')), host.bodyTimeoutMs);
    deadline.unref();
    req.on('data', onData);
    req.once('end', () => {
      clearTimeout(deadline);
      resolve(chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks));
    });
    req.once('error', refuse);
    req.once('close', () => {
      if (!req.complete) refuse(new Error('the request was cut off'));
    });
  });
}
