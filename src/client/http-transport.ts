import type { IncomingHttpHeaders } from 'node:http';
import { Agent, type Dispatcher, EnvHttpProxyAgent } from 'undici';
import {
  type AnswerCheck,
  answerText,
  type Transport,
  type TransportExchange,
  type TransportRequest,
} from './transport.js';

// The guide API over HTTP, through undici. Loaded by a client only when it sends over HTTP (see
// `guide-client.ts`): a client of the embedded local service, in this process, never loads undici.

/**
 * Proxy settings as other command-line tools read them from `HTTPS_PROXY`, `HTTP_PROXY` and
 * `NO_PROXY` (the CLI reads the environment; the client only gets the values).
 */
export interface ProxySettings {
  /** Proxy for `https:` targets, e.g. `http://proxy.corp:3128`. */
  readonly httpsProxy?: string;
  /** Proxy for `http:` targets. */
  readonly httpProxy?: string;
  /** Hosts reached directly: comma- or space-separated names, `.suffix`es, `host:port`s, or `*`. */
  readonly noProxy?: string;
}

export interface DispatcherSettings {
  /** Connections kept per origin; at least the client's parallelism. */
  readonly connections: number;
  readonly connectTimeoutMs: number;
  /** The protocol of the target (`https:` or `http:`), which picks the proxy. */
  readonly protocol: string;
  readonly proxy?: ProxySettings;
}

/**
 * The keep-alive connection pool of a client: an undici `Agent` (one pool per origin, at most
 * `connections` sockets each), or, when a proxy applies, an `EnvHttpProxyAgent` (which also keeps
 * `NO_PROXY` hosts direct). As curl and Go do, an `https:` target uses only the HTTPS proxy and an
 * `http:` target only the HTTP proxy. Every setting is passed explicitly, so undici never reads
 * the environment behind the caller's back.
 */
export function createDispatcher(settings: DispatcherSettings): Dispatcher {
  const agentOptions = {
    connections: settings.connections,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    connect: { timeout: settings.connectTimeoutMs },
  };
  const proxy = settings.protocol === 'https:' ? settings.proxy?.httpsProxy : settings.proxy?.httpProxy;
  if (proxy === undefined || proxy === '') return new Agent(agentOptions);
  return new EnvHttpProxyAgent({
    ...agentOptions,
    httpProxy: proxy,
    httpsProxy: proxy,
    noProxy: settings.proxy?.noProxy ?? '',
  });
}

/**
 * Requests to one origin through an undici dispatcher: the client's own pool (closed with the
 * transport), or one the caller gave (left open).
 */
export class HttpTransport implements Transport {
  constructor(
    private readonly origin: string,
    private readonly dispatcher: Dispatcher,
    private readonly ownsDispatcher: boolean,
  ) {}

  send(request: TransportRequest, check: AnswerCheck): TransportExchange {
    const exchange = new HttpExchange(check);
    try {
      this.dispatcher.dispatch(
        {
          origin: this.origin,
          path: request.path,
          method: 'POST',
          headers: request.headers,
          body: request.body,
          // undici's own header/body timeouts tick in half-seconds: only a backstop.
          headersTimeout: request.limitMs + 1_000,
          bodyTimeout: request.limitMs + 1_000,
        },
        exchange,
      );
    } catch (error) {
      exchange.onResponseError(undefined, error instanceof Error ? error : new Error(String(error)));
    }
    return exchange;
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

/**
 * One request as an undici dispatch handler: the answer's status and text, or the error that
 * ended it. `Dispatcher.request` would add a body stream, an abort signal and their listeners to
 * every request; a read of 20,000 guides spent 10% of its time on them.
 */
class HttpExchange implements Dispatcher.DispatchHandler, TransportExchange {
  readonly done: Promise<{ status: number; text: string }>;
  status: number | undefined;
  private resolve: (answer: { status: number; text: string }) => void = () => {};
  private reject: (error: unknown) => void = () => {};
  private controller: Dispatcher.DispatchController | undefined;
  private reason: Error | undefined;
  private chunks: Buffer[] = [];

  /** `check` sees the status and headers; a failure it returns ends the exchange with it. */
  constructor(private readonly check: AnswerCheck) {
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  abort(reason: Error): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.controller?.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    this.chunks = [];
    if (this.reason !== undefined) controller.abort(this.reason);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: IncomingHttpHeaders,
  ): void {
    this.status = status;
    const failure = this.check(status, headers);
    if (failure !== undefined) controller.abort(failure);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    const bytes = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    this.resolve({ status: this.status ?? 0, text: answerText(bytes) });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.reject(error);
  }
}
