import { errorCode, errorMessage } from '../core/errors.js';
import { ifDefined } from '../core/records.js';
import { parseJson } from '../wire/json.js';
import { CallAbortedError, type CallName, TransportError, type TransportErrorKind } from './call-errors.js';
import type { HttpEvent } from './events.js';
import { redactUrl, type SecretSet } from './redact.js';
import {
  type AnswerHeaders,
  SERVICE_FAILED,
  TRANSPORT_CLOSED,
  type Transport,
  type TransportExchange,
} from './transport.js';

export interface SenderOptions {
  /**
   * Where the requests go, for messages and log lines: the base URL's origin (`https://host`), or
   * a name for a service in this process.
   */
  readonly origin: string;
  /** The base URL's path prefix (e.g. a gateway's `/wechat`), or empty. */
  readonly prefix: string;
  /** The proxy the requests go through, in words (`proxyInWords`), when one does. */
  readonly proxy?: string;
  /** What carries the requests; a promise while it loads (undici, on first use). */
  readonly transport: Transport | Promise<Transport>;
  /** Timeout of one attempt, for the whole exchange. */
  readonly timeoutMs: number;
  /**
   * How long a write whose attempt timed out is still waited for (see `postWrite`), beyond
   * `timeoutMs`; 0 ends it at the timeout like a read.
   */
  readonly settleMs: number;
  readonly userAgent: string;
  readonly secrets: SecretSet;
  /** Stops every exchange in flight (the caller's abort signal). */
  readonly signal?: AbortSignal;
  readonly onHttp?: (event: HttpEvent) => void;
}

/** The parsed body of an answer that was JSON, with its HTTP status. */
export interface HttpAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** Largest answer the client reads (the guide API's answers are a few kilobytes). */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
/** How much of a body a verbose log line shows. */
const MAX_LOGGED_BODY = 8_192;

const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const CLOSED = new Set(['UND_ERR_DESTROYED', 'UND_ERR_CLOSED', TRANSPORT_CLOSED]);

/** What a failed exchange is told by: its `code` (`ECONNRESET`, `UND_ERR_SOCKET`), else its class (`TypeError`). */
function failureReason(error: unknown): string {
  return errorCode(error) || (error instanceof Error && error.name) || 'unknown error';
}

function clip(text: string): string {
  return text.length <= MAX_LOGGED_BODY
    ? text
    : `${text.slice(0, MAX_LOGGED_BODY)}… (${text.length} characters)`;
}

function queryString(query: Readonly<Record<string, string>>): string {
  let out = '';
  for (const [key, value] of Object.entries(query)) {
    out += `${out === '' ? '?' : '&'}${encodeURIComponent(key)}=${encodeURIComponent(value)}`;
  }
  return out;
}

/**
 * One exchange at a time per call: POST a JSON body, read a JSON answer, through a `Transport`
 * (HTTP, or a service in this process: the same bytes either way). Failures become
 * `TransportError`s whose messages hold no URL query and no low-level error (those can hold the
 * access token); the caller's abort becomes `CallAbortedError`.
 */
export class Sender {
  /**
   * Write attempts given up on while the server may still apply them: held past the settling
   * time, or stopped by the caller's signal while on the wire.
   */
  abandonedWrites = 0;
  /** Whether an exchange has had an answer (of any HTTP status): the target was reached. */
  reached = false;
  private readonly origin: string;
  private readonly prefix: string;
  private readonly headers: Readonly<Record<string, string>>;
  /**
   * The exchanges in flight. The caller's signal reaches them through one listener of the
   * transport, not a signal composed per request (`AbortSignal.any` for every request cost 3–4%
   * of a large read, plus its garbage).
   */
  private readonly inFlight = new Set<TransportExchange>();
  /** The transport once loaded. */
  private transport: Transport | undefined;
  private readonly onOuterAbort = (): void => {
    for (const exchange of this.inFlight) exchange.abort(new Error('stopped by the caller'));
  };

  constructor(private readonly options: SenderOptions) {
    this.headers = {
      'content-type': 'application/json; charset=utf-8',
      accept: 'application/json',
      'user-agent': options.userAgent,
    };
    this.origin = options.origin;
    this.prefix = options.prefix;
    if (!(options.transport instanceof Promise)) this.transport = options.transport;
    options.signal?.addEventListener('abort', this.onOuterAbort, { once: true });
  }

  /** Stops listening to the caller's signal (the client is closed). */
  dispose(): void {
    this.options.signal?.removeEventListener('abort', this.onOuterAbort);
  }

  private async loadTransport(): Promise<Transport> {
    this.transport = await this.options.transport;
    return this.transport;
  }

  /** `origin + prefix + path`, for messages (no query). */
  describe(path: string): string {
    return redactUrl(`${this.origin}${this.prefix}${path}`);
  }

  /**
   * POSTs `body` to `path` with the query `query`. `secretBodies` keeps both bodies out of the
   * verbose log (token exchanges). Resolves with the parsed answer if it is JSON, whatever its
   * HTTP status; rejects with `TransportError` otherwise.
   */
  post(
    call: CallName,
    path: string,
    query: Readonly<Record<string, string>>,
    body: string,
    secretBodies = false,
  ): Promise<HttpAnswer> {
    return this.send(call, path, query, body, secretBodies, this.options.timeoutMs);
  }

  /**
   * POSTs a write. Like `post`, except at the timeout: a write that timed out may still be
   * applied by the server later, so instead of abandoning it (and letting a resend, or the call
   * after it, race the late original) the exchange is kept open for up to `settleMs` more, and
   * `onHeld` is told; its late answer, or how it fails, settles what the attempt did.
   */
  async postWrite(
    call: CallName,
    path: string,
    query: Readonly<Record<string, string>>,
    body: string,
    onHeld: () => void,
  ): Promise<HttpAnswer> {
    try {
      return await this.send(call, path, query, body, false, this.options.timeoutMs, onHeld);
    } catch (error) {
      // Given up while the server may still act on it: held past the settling time, or stopped.
      const givenUp =
        (error instanceof TransportError && error.kind === 'timeout') ||
        (error instanceof CallAbortedError && error.inFlight);
      if (givenUp) this.abandonedWrites += 1;
      throw error;
    }
  }

  /**
   * One exchange, bounded by `timeoutMs`; with `onHeld` (a write), a timeout while the request is
   * on the wire calls it and extends the bound by `settleMs`.
   */
  private async send(
    call: CallName,
    path: string,
    query: Readonly<Record<string, string>>,
    body: string,
    secretBodies: boolean,
    timeoutMs: number,
    onHeld?: () => void,
  ): Promise<HttpAnswer> {
    const transport = this.transport ?? (await this.loadTransport());
    const settleMs = onHeld === undefined ? 0 : this.options.settleMs;
    const limitMs = timeoutMs + settleMs;
    const exchange = transport.send(
      { path: `${this.prefix}${path}${queryString(query)}`, headers: this.headers, body, limitMs },
      (status, headers) => this.checkHeaders(call, path, status, headers),
    );
    // One timer per attempt bounds the whole exchange (a transport's own bounds are a backstop);
    // a held write re-arms it once for the settling time.
    let timedOut = false;
    let timer = setTimeout(() => {
      if (onHeld !== undefined && settleMs > 0) {
        timer = setTimeout(() => {
          timedOut = true;
          exchange.abort(new Error('timeout'));
        }, settleMs);
        onHeld();
        return;
      }
      timedOut = true;
      exchange.abort(new Error('timeout'));
    }, timeoutMs);
    const outer = this.options.signal;
    if (outer?.aborted === true) exchange.abort(new Error('stopped by the caller'));
    this.inFlight.add(exchange);
    const started = performance.now();
    let status: number | undefined;
    let text: string | undefined;
    try {
      ({ status, text } = await exchange.done);
      this.reached = true;
    } catch (error) {
      status = exchange.status;
      if (error instanceof TransportError) {
        this.log(path, query, started, secretBodies, body, status, undefined, error.reason);
        throw error;
      }
      const failure = this.classify(call, error, timedOut, outer, limitMs);
      this.log(path, query, started, secretBodies, body, status, undefined, failure.message);
      throw failure;
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(exchange);
    }
    this.log(path, query, started, secretBodies, body, status, text, undefined);
    let parsed: unknown;
    try {
      parsed = parseJson(text);
    } catch {
      const retryable = status === 429 || status >= 500;
      throw this.failure(call, {
        kind: status === 200 ? 'invalid-answer' : 'http',
        description:
          status === 200
            ? `the answer from ${this.describe(path)} is not JSON`
            : `HTTP ${status} from ${this.describe(path)}, not a guide API answer${retryable ? '' : '; check the base URL and any proxy'}`,
        reason: `HTTP ${status}`,
        sent: true,
        status,
      });
    }
    return { status, body: parsed };
  }

  /** The failure that an answer's status and headers already show, if any (a body too large). */
  private checkHeaders(
    call: CallName,
    path: string,
    status: number,
    headers: AnswerHeaders,
  ): TransportError | undefined {
    const declared = Number(headers['content-length'] ?? 0);
    if (declared <= MAX_ANSWER_BYTES) return undefined;
    return this.failure(call, {
      kind: 'http',
      description: `the answer from ${this.describe(path)} is ${declared} bytes, more than any guide API answer`,
      reason: `HTTP ${status}`,
      sent: true,
      status,
    });
  }

  private failure(
    call: CallName,
    init: {
      kind: TransportErrorKind;
      description: string;
      reason: string;
      sent: boolean;
      status?: number;
      cause?: unknown;
    },
  ): TransportError {
    return new TransportError({
      operation: call,
      kind: init.kind,
      description: this.options.secrets.scrub(init.description),
      reason: init.reason,
      sent: init.sent,
      ...ifDefined('status', init.status),
      ...ifDefined('cause', init.cause),
    });
  }

  private classify(
    call: CallName,
    error: unknown,
    timedOut: boolean,
    outer: AbortSignal | undefined,
    limitMs: number,
  ): TransportError | CallAbortedError {
    if (outer?.aborted === true) return new CallAbortedError(call, 'stopped before the answer arrived', true);
    if (timedOut) {
      return this.failure(call, {
        kind: 'timeout',
        description: `no answer within ${(limitMs / 1000).toFixed(1)} s`,
        reason: 'timeout',
        sent: true,
      });
    }
    const code = failureReason(error);
    if (CLOSED.has(code)) return new CallAbortedError(call, 'the client was closed');
    if (code === SERVICE_FAILED) {
      const cause: unknown = error instanceof Error ? error.cause : undefined;
      return this.failure(call, {
        kind: 'service',
        description: `the service failed while answering: ${errorMessage(cause)}`,
        reason: SERVICE_FAILED,
        sent: true,
        cause,
      });
    }
    if (NOT_CONNECTED.has(code)) {
      // Through a proxy, the connection that fails is the proxy's: the target is not reached.
      const { proxy } = this.options;
      return this.failure(call, {
        kind: 'refused',
        description:
          proxy === undefined
            ? `cannot connect to ${this.describe('')}`
            : `cannot connect to the proxy ${proxy}, which requests to ${this.describe('')} go through: check that it runs and is the right one, or name the host in NO_PROXY to go direct`,
        reason: code,
        sent: false,
      });
    }
    if (TIMEOUTS.has(code)) {
      return this.failure(call, {
        kind: 'timeout',
        description: `no answer within ${(limitMs / 1000).toFixed(1)} s`,
        reason: code,
        sent: true,
      });
    }
    if (/CERT|TLS|SSL/i.test(code)) {
      return this.failure(call, {
        kind: 'refused',
        description: `the TLS connection to ${this.describe('')} failed`,
        reason: code,
        sent: false,
      });
    }
    return this.failure(call, {
      kind: 'connection',
      description: 'the connection broke before the answer arrived',
      reason: code,
      sent: true,
    });
  }

  private log(
    path: string,
    query: Readonly<Record<string, string>>,
    started: number,
    secretBodies: boolean,
    requestBody: string,
    status: number | undefined,
    responseBody: string | undefined,
    error: string | undefined,
  ): void {
    const onHttp = this.options.onHttp;
    if (onHttp === undefined) return;
    const scrub = (text: string): string => this.options.secrets.scrub(text);
    onHttp({
      type: 'http',
      method: 'POST',
      url: scrub(`${this.origin}${this.prefix}${path}${queryString(query)}`),
      durationMs: Math.round(performance.now() - started),
      ...ifDefined('status', status),
      ...(secretBodies ? {} : { requestBody: clip(scrub(requestBody)) }),
      ...(secretBodies || responseBody === undefined ? {} : { responseBody: clip(scrub(responseBody)) }),
      ...(error === undefined ? {} : { error: scrub(error) }),
    });
  }
}
