import { isUtf8 } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type Clock, systemClock } from '../core/clock.js';
import { errorCode, errorStack, GuidectlError, UsageError } from '../core/errors.js';
import { LONE_SURROGATE, MAX_REQUEST_BODY_BYTES } from '../core/guide-rules.js';
import { InFlight } from '../core/in-flight.js';
import { isRecord } from '../core/records.js';
import { ERRCODE } from '../wire/errcodes.js';
import type { ServiceAnswer, ServiceHandler, ServiceRequest } from '../wire/exchange.js';
import { parseJson, stringifyJson } from '../wire/json.js';
import { isOperationName, OPERATIONS, type OperationName } from '../wire/operations.js';
import { ApiError } from './api-error.js';
import {
  ConnectionGuard,
  type ConnectionLimits,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_CONNECTION_LIMITS,
} from './connections.js';
import { DEFAULT_SETTINGS, type OpContext, type ServiceSettings } from './context.js';
import {
  type AppCredentials,
  isBlankSecret,
  sameSecret,
  settleCredentials,
  verifySecret,
} from './credentials.js';
import { FaultInjector, type FaultSpec, NO_FAULTS, parseFaults } from './faults.js';
import { type Body, requireString } from './fields.js';
import type { HttpHost, HttpListener, RefusedBody } from './http-server.js';
import { type CallLimitSpec, CallLimits, checkLimits, NO_LIMITS } from './limits.js';
import { lockMode, OPERATION_HANDLERS } from './ops/index.js';
import { ServiceClock } from './service-clock.js';
import { SIM_VERBS, type SimHost } from './sim.js';
import { type Durability, Store, storeFailure } from './store.js';
import { DEFAULT_THROTTLE, FailureThrottle, type ThrottleSettings } from './throttle.js';
import {
  INVALID_APPID,
  INVALID_SECRET,
  readStableTokenBody,
  readTokenQuery,
  TokenDesk,
  type TokenRequest,
} from './token-desk.js';

export interface GuideServiceOptions {
  /** SQLite file, or `:memory:` (the default). */
  readonly db?: string;
  /** How messages name the database (as the user gave it); `db` by default. */
  readonly dbName?: string;
  readonly durability?: Durability;
  readonly host?: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /**
   * App credentials; the stored ones when not given, generated on first start (the database keeps
   * the appid and a hash of the secret). A secret other than the stored one revokes every token
   * issued under the old one; tokens are valid only for the appid that got them.
   */
  readonly appid?: string;
  readonly secret?: string;
  /** Caps on open connections, in all and per client address (768 and 384). */
  readonly connections?: ConnectionLimits;
  /** Failed token requests allowed per client address and per appid (10 a minute). */
  readonly tokenThrottle?: ThrottleSettings;
  readonly settings?: Partial<ServiceSettings>;
  readonly faults?: FaultSpec | string;
  /** Daily quotas, per-minute limits and the capacity of guide calls (none by default). */
  readonly limits?: CallLimitSpec;
  /** Enables the `/__sim/` interface. */
  readonly simulation?: boolean;
  /** The base clock (the system clock by default); the simulation moves time on top of it. */
  readonly clock?: Clock;
  /** Largest request body accepted, in bytes (1 MiB). */
  readonly maxBodyBytes?: number;
  /**
   * Request bodies held at once over HTTP, all requests together, in bytes (32 MiB, and at least
   * `maxBodyBytes`): past it a body is answered -1 (busy) and its connection closed.
   */
  readonly maxBufferedBodyBytes?: number;
  /** Time a request body may take to arrive over HTTP, from its headers, in ms (10 s): past it, -1 and the connection closed. */
  readonly bodyTimeoutMs?: number;
  /** Where the service reports what it does not answer to a caller (internal errors). */
  readonly log?: (line: string) => void;
}

/** One answered guide call, as kept in the call record. */
export interface CallRecord {
  readonly seq: number;
  readonly operation: OperationName;
  readonly writes: boolean;
  readonly errcode: number;
  /** Service clock, Unix milliseconds. */
  readonly at: number;
}

const MAX_CALL_RECORDS = 1_000_000;
const JSON_TYPE = 'application/json; charset=utf-8';

/** Whether a bound address is this machine only (127.0.0.0/8, ::1, or IPv4-mapped 127.x). */
function isLoopback(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return v4.startsWith('127.') || address === '::1';
}

/** The app secret was asked for, but the database keeps only its hash. */
export class UnknownSecretError extends GuidectlError {
  override readonly code = 'SERVICE_SECRET_UNKNOWN';
}

/** The service could not listen where it was asked to (address in use, not allowed, unknown). */
export class ListenError extends GuidectlError {
  override readonly code = 'SERVICE_LISTEN';
}

/**
 * A request handed to a service already closed. Its code is the one a client over HTTP gets from
 * a closed server (connection refused), so that an in-process client tells it the same way.
 */
export class ServiceClosedError extends GuidectlError {
  override readonly code = 'ECONNREFUSED';
}

function listenError(error: unknown, host: string, port: number): unknown {
  const code = errorCode(error);
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch (code) {
    case 'EADDRINUSE':
      return new ListenError(
        `cannot listen on ${where}: the port is in use (another guidectl serve?); choose another --port, or 0 for a free one`,
      );
    case 'EACCES':
      return new ListenError(
        `cannot listen on ${where}: not allowed (ports below 1024 need privileges); choose another --port`,
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new ListenError(`cannot listen on ${where}: no such address on this machine; check --host`);
    default:
      return error;
  }
}

/**
 * The guide service: the whole guide API, backed by a SQLite store. Every request goes through
 * `handle` (bytes in, bytes out): `GuideService.start` puts an HTTP server in front of it;
 * `GuideService.open` gives a service without one, for a client in this process. Stop it with
 * `close()`, which finishes the calls in flight, then closes the store.
 */
export class GuideService {
  readonly clock: ServiceClock;
  readonly appid: string;
  /** True when the credentials were generated on this start (so they should be shown once). */
  readonly credentialsGenerated: boolean;
  readonly settings: ServiceSettings;
  readonly simulation: boolean;
  /**
   * Answers one request given as bytes, by the same rules whatever carried it (the HTTP server
   * calls it for each request it reads). Rejects once the service takes no more requests
   * (`ServiceClosedError`): from when `close` has closed the server, if any; and, in a service
   * that does not listen (`open`), when its database fails (`StoreFailedError`: damaged, full,
   * unreadable), so that the command of this process stops at once rather than retry a -1.
   */
  readonly handle: ServiceHandler = (request) => this.handleTracked(request);
  private readonly store: Store;
  private http: HttpListener | undefined;
  /** Aborted by `abandon`: calls waiting on an injected delay give up. */
  private readonly delays = new Delays();
  private readonly maxBodyBytes: number;
  private readonly maxBufferedBodyBytes: number;
  private readonly bodyTimeoutMs: number;
  private readonly log: (line: string) => void;
  private readonly dbName: string;
  /** What was logged already (a store failure, a bug's stack), so that a retried call does not log it again. */
  private readonly logged = new Set<string>();
  private faults: FaultInjector;
  private callRecord: CallRecord[] = [];
  private callSeq = 0;
  private closing: Promise<void> | undefined;
  /** Requests being handled: `close` waits for them, and lets no more in, before it closes the store. */
  private readonly requests = new InFlight();
  private address = '';
  private loopback = true;
  /** The app secret, once given, generated or verified; else only its hash (in the store) is known. */
  private secret: string | undefined;
  /** A secret valid in this process only, for an in-process client (see `clientCredentials`). */
  private processSecret: string | undefined;
  private readonly tokens: TokenDesk;
  private readonly throttle: FailureThrottle;
  private readonly guard: ConnectionGuard;
  private readonly limits: CallLimits;

  /** `listening`: the service will answer over HTTP (`start`), not only in this process (`open`). */
  private constructor(options: GuideServiceOptions, listening: boolean) {
    // Before the store opens, so that a refusal leaves nothing open.
    if (options.secret !== undefined && isBlankSecret(options.secret)) {
      throw new UsageError('the app secret is empty: give a secret, or none to keep the stored one');
    }
    if (options.appid?.trim() === '') {
      throw new UsageError('the appid is empty: give an appid, or none to keep the stored one');
    }
    checkLimits(options.limits ?? NO_LIMITS);
    this.store = new Store(options.db ?? ':memory:', options.durability ?? 'normal');
    this.settings = { ...DEFAULT_SETTINGS, ...options.settings };
    this.simulation = options.simulation === true;
    this.maxBodyBytes = options.maxBodyBytes ?? MAX_REQUEST_BODY_BYTES;
    this.maxBufferedBodyBytes = options.maxBufferedBodyBytes ?? MAX_BUFFERED_BODY_BYTES;
    this.bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
    this.log = options.log ?? (() => {});
    this.dbName = options.dbName ?? options.db ?? ':memory:';
    const faults = options.faults ?? NO_FAULTS;
    this.faults = new FaultInjector(typeof faults === 'string' ? parseFaults(faults) : faults);
    const offset = this.simulation ? Number(this.store.getMeta('clock_offset_ms') ?? 0) : 0;
    this.clock = new ServiceClock(options.clock ?? systemClock, offset, (ms) => {
      if (this.simulation) this.store.setMeta('clock_offset_ms', String(ms));
    });
    const given = { appid: options.appid, secret: options.secret };
    const settled = settleCredentials(this.store, given, { replaceEmpty: listening });
    if (settled.replacedEmpty) {
      this.log(
        'the stored app secret was empty (taken by an older guidectl): a new one was generated, and every token issued under the empty one is revoked',
      );
    }
    this.appid = settled.appid;
    this.secret = settled.secret;
    this.credentialsGenerated = settled.generated;
    this.tokens = new TokenDesk(settled.appid);
    this.throttle = new FailureThrottle(options.tokenThrottle ?? DEFAULT_THROTTLE, () => this.clock.now());
    this.guard = new ConnectionGuard(options.connections ?? DEFAULT_CONNECTION_LIMITS);
    this.limits = new CallLimits(options.limits ?? NO_LIMITS, this.appid, this.store, this.clock.now());
  }

  /** A service listening over HTTP on `host:port` (127.0.0.1 and a free port by default). */
  static async start(options: GuideServiceOptions = {}): Promise<GuideService> {
    const service = new GuideService(options, true);
    const host = options.host ?? '127.0.0.1';
    const port = options.port ?? 0;
    let bound: AddressInfo;
    try {
      const { createHttpServer, listenHttp } = await import('./http-server.js');
      service.http = createHttpServer(service.httpHost());
      bound = await listenHttp(service.http.server, host, port);
    } catch (error) {
      service.store.close();
      throw listenError(error, host, port);
    }
    service.loopback = isLoopback(bound.address);
    service.address = `http://${bound.address.includes(':') ? `[${bound.address}]` : bound.address}:${bound.port}`;
    return service;
  }

  /**
   * A service answering only through `handle`, in this process: no HTTP server, no port (the
   * embedded local service). `host`, `port` and `connections` do not apply; `url` is empty.
   */
  static open(options: GuideServiceOptions = {}): GuideService {
    return new GuideService(options, false);
  }

  /**
   * Whether `/__sim/` calls must carry `?access_token=` (a token of the app, as guide calls do):
   * when the simulation is on and the service listens on an address other than loopback, where
   * anyone who reaches it could otherwise reset the account, move its clock or inject faults.
   */
  get simNeedsToken(): boolean {
    return this.simulation && !this.loopback;
  }

  /** Connections open now (held under the caps of `connections`). */
  get openConnections(): number {
    return this.guard.count;
  }

  /** Requests whose body is still arriving over HTTP (a stop waits for them). */
  get receivingRequests(): number {
    return this.http?.unreadRequests() ?? 0;
  }

  /** Guide calls in service now (at most `limits.capacity`): from their token check to their answer. */
  get callsInService(): number {
    return this.limits.inService;
  }

  /** The base URL clients use, e.g. `http://127.0.0.1:8080`; empty for a service not listening. */
  get url(): string {
    return this.address;
  }

  /**
   * The app credentials, when the secret is known to this process (given, generated on this
   * start, or presented once by a token request); throws `UnknownSecretError` otherwise.
   */
  get credentials(): AppCredentials {
    if (this.secret === undefined) {
      throw new UnknownSecretError(
        'the app secret is not known: the database keeps only its hash; give it with --secret',
      );
    }
    return { appid: this.appid, secret: this.secret };
  }

  /**
   * Credentials for a client in this process: the app secret when known, else a secret made now
   * that only this process knows and never stores (the embedded local service's client).
   */
  clientCredentials(): AppCredentials {
    if (this.secret !== undefined) return { appid: this.appid, secret: this.secret };
    this.processSecret ??= randomBytes(32).toString('base64url');
    return { appid: this.appid, secret: this.processSecret };
  }

  /** The guide calls answered so far, oldest first. */
  calls(): readonly CallRecord[] {
    return this.callRecord;
  }

  resetCalls(): void {
    this.callRecord = [];
  }

  setFaults(spec: FaultSpec): void {
    this.faults = new FaultInjector(spec);
  }

  /**
   * Stops accepting calls, finishes those in flight, closes the store. Safe to call twice. A
   * listening service first closes its server: requests on connections still open are answered,
   * with `connection: close` (a request whose body is still arriving is waited for, and the log
   * says so), and a connection still busy after 10 s is closed; one read on after a refused body
   * is closed at once, its answer sent. From then on `handle` refuses (`ServiceClosedError`).
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const server = this.http?.server;
      if (server !== undefined) {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        this.http?.endLingering();
        const force = setTimeout(() => server.closeAllConnections(), CLOSE_WAIT_MS);
        this.tellUnread(this.http?.unreadRequests() ?? 0);
        await closed;
        clearTimeout(force);
      }
      await this.requests.close();
      this.saveCounts();
      this.store.close();
    })();
    return this.closing;
  }

  /**
   * Writes the day's counts not yet written (of operations without a quota). The stop goes on
   * when it fails: a store failure was said to the calls that met it, and a bug is logged.
   */
  private saveCounts(): void {
    if (!this.limits.unsavedCounts) return;
    try {
      this.store.transaction(() => this.limits.save(this.store));
    } catch (error) {
      if (storeFailure(error, this.dbName) === undefined)
        this.logOnce(`internal error: ${errorStack(error)}`);
    }
  }

  /** Says that the stop waits for requests still being received, which only their clients end. */
  private tellUnread(count: number): void {
    if (count === 0) return;
    const requests = count === 1 ? '1 request' : `${count} requests`;
    this.log(
      `stopping: waiting up to ${CLOSE_WAIT_MS / 1000} s for ${requests} whose body is still arriving, then closing ${count === 1 ? 'its connection' : 'their connections'}`,
    );
  }

  /**
   * Stops at once (`close` without waiting): every connection is closed, so the calls in flight
   * go unanswered, and a call still waiting on an injected delay is not made. A call already in
   * its transaction has taken effect whole or not at all, as after a kill. Resolves once closed,
   * with the number of calls cut short (those handled, and those whose body was still arriving).
   */
  abandon(): Promise<number> {
    const cut = this.requests.size + (this.http?.unreadRequests() ?? 0);
    this.delays.endAll();
    const closing = this.close();
    this.http?.server.closeAllConnections();
    return closing.then(() => cut);
  }

  private httpHost(): HttpHost {
    return {
      handle: this.handle,
      guard: this.guard,
      maxBodyBytes: this.maxBodyBytes,
      maxBufferedBytes: Math.max(this.maxBodyBytes, this.maxBufferedBodyBytes),
      bodyTimeoutMs: this.bodyTimeoutMs,
      refusedBody: (why) => this.render(this.refusedBodyAnswer(why)),
      internalError: (error) => this.render(this.failureAnswer(error)),
      isClosing: () => this.closing !== undefined,
    };
  }

  private async handleTracked(request: ServiceRequest): Promise<ServiceAnswer | undefined> {
    if (!this.requests.enter()) throw new ServiceClosedError('the guide service is closed');
    try {
      const body = await this.route(request);
      return body === undefined ? undefined : this.render(body);
    } catch (error) {
      // In this process (the embedded local service), a store failure fails the caller's command
      // at once, as its own error: a -1 would be retried for minutes, to no avail.
      if (this.http === undefined) {
        const failed = storeFailure(error, this.dbName);
        if (failed !== undefined) throw failed;
      }
      return this.render(this.failureAnswer(error));
    } finally {
      this.requests.leave();
    }
  }

  private context(): OpContext {
    const nowMs = this.clock.now();
    return { store: this.store, now: Math.floor(nowMs / 1000), nowMs, settings: this.settings };
  }

  private transaction<T>(fn: (ctx: OpContext) => T, mode: 'read' | 'write' = 'write'): T {
    return this.store.transaction(() => fn(this.context()), mode);
  }

  /** The answer's body, or undefined to drop the request unanswered (an injected lost answer). */
  private async route(request: ServiceRequest): Promise<object | undefined> {
    if (request.body.length > this.maxBodyBytes) return this.tooLargeBody();
    const { path, query } = readTarget(request.target);
    if (path.startsWith('/cgi-bin/guide/')) {
      return this.answerOperation(request, path.slice('/cgi-bin/guide/'.length), query);
    }
    if (path === '/cgi-bin/token' || path === '/cgi-bin/stable_token') {
      return this.answerToken(request, path === '/cgi-bin/stable_token', query);
    }
    if (path === '/cgi-bin/openapi/quota/get' || path === '/cgi-bin/clear_quota') {
      return this.answerQuota(request, path === '/cgi-bin/clear_quota', query);
    }
    if (path.startsWith('/__sim/')) {
      if (this.simulation) return this.answerSim(request, path.slice('/__sim/'.length), query);
      return {
        errcode: ERRCODE.invalidUrl,
        errmsg: `invalid url: ${path} is the simulation interface, which is off; start guidectl serve with --simulation`,
      };
    }
    return { errcode: ERRCODE.invalidUrl, errmsg: `invalid url: no such endpoint ${path}` };
  }

  /** The answer to a request body refused before it was read whole (see `RefusedBody`). */
  private refusedBodyAnswer(why: RefusedBody): object {
    switch (why) {
      case 'too-large':
        return this.tooLargeBody();
      case 'slow':
        return {
          errcode: ERRCODE.systemBusy,
          errmsg: `system error: the request body did not arrive within ${this.bodyTimeoutMs / 1000} s; the call was not made`,
        };
      case 'busy':
        return {
          errcode: ERRCODE.systemBusy,
          errmsg:
            'system error: too many request bodies are arriving at once; the call was not made, try again',
        };
      default: {
        const unreachable: never = why;
        return unreachable;
      }
    }
  }

  private tooLargeBody(): object {
    return {
      errcode: ERRCODE.contentTooLarge,
      errmsg: `content size out of limit: the body is larger than ${this.maxBodyBytes} bytes`,
    };
  }

  /**
   * `GET /cgi-bin/token` and `POST /cgi-bin/stable_token`. Failed requests are counted per caller
   * (address) and per appid; past the limit every request on them is 45011 until the window passes.
   */
  private async answerToken(
    request: ServiceRequest,
    stable: boolean,
    query: URLSearchParams,
  ): Promise<object> {
    if (stable && request.method !== 'POST')
      return this.errorAnswer(new ApiError(ERRCODE.requirePost, 'require POST method'));
    if (!stable && request.method !== 'GET')
      return this.errorAnswer(new ApiError(ERRCODE.invalidArgs, 'invalid args: use GET'));
    let asked: TokenRequest;
    try {
      asked = stable ? readStableTokenBody(parseBody(request.body)) : readTokenQuery(query);
    } catch (error) {
      return this.errorAnswer(error);
    }
    const keys = [`address ${request.caller}`];
    if (asked.appid === this.appid) keys.push(`appid ${asked.appid}`);
    const wait = this.throttle.blockedFor(keys);
    if (wait > 0) {
      return this.errorAnswer(
        new ApiError(
          ERRCODE.minuteQuota,
          `api minute-quota reach limit mustslower retry next minute: too many failed token requests; retry in ${wait} s`,
        ),
      );
    }
    const counted = this.throttle.fail(keys);
    if (asked.appid !== this.appid) return this.errorAnswer(INVALID_APPID());
    if (!(await this.checkSecret(asked.secret))) return this.errorAnswer(INVALID_SECRET());
    this.throttle.forgive(keys, counted);
    return this.attemptToken(() =>
      this.transaction((ctx) =>
        stable ? this.tokens.issueStable(ctx, asked.forceRefresh) : this.tokens.issueToken(ctx),
      ),
    );
  }

  /** Whether `secret` is the app secret (scrypt against the stored hash, off the event loop, once). */
  private async checkSecret(secret: string): Promise<boolean> {
    if (this.processSecret !== undefined && sameSecret(secret, this.processSecret)) return true;
    if (this.secret !== undefined) return sameSecret(secret, this.secret);
    const hash = this.store.getMeta('secret_hash');
    if (hash === undefined || !(await verifySecret(secret, hash))) return false;
    this.secret = secret;
    return true;
  }

  private async answerOperation(
    request: ServiceRequest,
    name: string,
    query: URLSearchParams,
  ): Promise<object | undefined> {
    if (!isOperationName(name)) {
      return { errcode: ERRCODE.invalidUrl, errmsg: `invalid url: no such operation ${name}` };
    }
    if (request.method !== 'POST')
      return this.errorAnswer(new ApiError(ERRCODE.requirePost, 'require POST method'));
    const raw = request.body;
    const record = (errcode: number): void => this.record(name, errcode);
    const token = query.get('access_token');
    // A call counted durably writes its count, even when it only reads.
    const mode = this.limits.durable(name) ? 'write' : lockMode(name);
    if (this.faults.inert) {
      // Nothing to inject between the token check and the call: both run in one transaction,
      // which saves the check's own (a third of the service's SQLite time in a large read).
      // Such a call is never in service beside another: the capacity cannot be reached.
      const answer = this.attempt(
        () =>
          this.transaction((ctx) => {
            this.tokens.check(ctx, token);
            return this.callOperation(ctx, name, raw);
          }, mode),
        record,
      );
      record(Number(answer['errcode']));
      return answer;
    }
    try {
      this.tokens.check(this.context(), token);
    } catch (error) {
      record(error instanceof ApiError ? error.errcode : ERRCODE.systemBusy);
      return this.errorAnswer(error);
    }
    if (!this.limits.enter()) {
      record(ERRCODE.systemBusy);
      return this.errorAnswer(this.limits.busy());
    }
    try {
      return await this.answerInService(name, raw, mode, record);
    } finally {
      this.limits.leave();
    }
  }

  /** A guide call with faults to inject, from its injected delay to its answer. */
  private async answerInService(
    name: OperationName,
    raw: Buffer,
    mode: 'read' | 'write',
    record: (errcode: number) => void,
  ): Promise<object | undefined> {
    const { delayMs, fault } = this.faults.decide();
    if (delayMs > 0) await this.delays.wait(delayMs);
    // Abandoned while it waited: the call is not made, and there is no one to answer.
    if (this.delays.ended) return undefined;
    if (fault === 'system_error' || fault === 'minute_quota') {
      const error =
        fault === 'system_error'
          ? new ApiError(ERRCODE.systemBusy, 'system error')
          : new ApiError(ERRCODE.minuteQuota, 'api minute-quota reach limit mustslower retry next minute');
      record(error.errcode);
      return this.errorAnswer(error);
    }
    const answer = this.attempt(
      () => this.transaction((ctx) => this.callOperation(ctx, name, raw), mode),
      record,
    );
    record(Number(answer['errcode']));
    // A lost answer: the call took effect; the answer never reaches the caller.
    return fault === 'lost_answer' ? undefined : answer;
  }

  /**
   * Makes a guide call inside its transaction, under the limits: refused past them (45009,
   * 45011) without effect, else counted whatever it answers, as the platform counts the calls
   * made. A call under a daily quota writes its count in its transaction, and makes the call in a
   * savepoint, so that the count stays when the call fails.
   */
  private callOperation(ctx: OpContext, name: OperationName, raw: Buffer): object {
    this.limits.admit(name, ctx.nowMs);
    const handler = OPERATION_HANDLERS[name];
    if (!this.limits.durable(name)) return handler(ctx, parseBody(raw));
    this.limits.save(ctx.store);
    try {
      return ctx.store.savepoint(() => handler(ctx, parseBody(raw)));
    } catch (error) {
      if (error instanceof ApiError) return { errcode: error.errcode, errmsg: error.errmsg };
      throw error;
    }
  }

  /**
   * `POST /cgi-bin/openapi/quota/get` (`{"cgi_path"}`: the quota of a guide operation, 76021 for
   * another path) and `POST /cgi-bin/clear_quota` (`{"appid"}`: the account's quotas reset, 10
   * times a month). Neither is a guide call: no limit applies to them, and they are not recorded.
   */
  private answerQuota(request: ServiceRequest, clear: boolean, query: URLSearchParams): object {
    if (request.method !== 'POST')
      return this.errorAnswer(new ApiError(ERRCODE.requirePost, 'require POST method'));
    const token = query.get('access_token');
    const raw = request.body;
    return this.attempt(() =>
      this.transaction(
        (ctx) => {
          this.tokens.check(ctx, token);
          const body = parseBody(raw);
          if (!clear) return { quota: this.limits.quota(readCgiPath(body), ctx.nowMs) };
          if (requireString(body, 'appid') !== this.appid) throw INVALID_APPID();
          this.limits.clear(ctx.store, ctx.nowMs);
          return {};
        },
        clear ? 'write' : 'read',
      ),
    );
  }

  private async answerSim(request: ServiceRequest, verb: string, query: URLSearchParams): Promise<object> {
    const handler = Object.hasOwn(SIM_VERBS, verb) ? SIM_VERBS[verb] : undefined;
    if (handler === undefined) {
      return { errcode: ERRCODE.invalidUrl, errmsg: `invalid url: no simulation verb ${verb}` };
    }
    const raw = request.body;
    if (this.simNeedsToken) {
      try {
        this.tokens.check(this.context(), query.get('access_token'));
      } catch (error) {
        return this.errorAnswer(error);
      }
    }
    const host: SimHost = {
      clock: this.clock,
      transaction: (fn) => this.transaction(fn),
      setFaults: (spec) => this.setFaults(spec),
      calls: () => this.callRecord,
      resetCalls: () => this.resetCalls(),
      resetData: () => {
        this.store.reset(['appid', 'secret_hash', 'last_id64', 'clock_offset_ms']);
        this.limits.forget();
      },
    };
    return this.attempt(() => handler(host, raw.length === 0 ? {} : parseBody(raw), query));
  }

  /**
   * Runs one call; an ApiError becomes its answer, a bug a logged -1. A store failure is thrown
   * (`errorAnswer`), after `record` is told of it as a -1.
   */
  private attempt(fn: () => object, record?: (errcode: number) => void): Record<string, unknown> {
    try {
      return { errcode: 0, errmsg: 'ok', ...fn() };
    } catch (error) {
      try {
        return this.errorAnswer(error);
      } catch (failed) {
        record?.(ERRCODE.systemBusy);
        throw failed;
      }
    }
  }

  /**
   * Runs a token request: success is only `access_token` and `expires_in`, as the real API
   * answers (no errcode); a failure is an errcode answer.
   */
  private attemptToken(fn: () => object): Record<string, unknown> {
    try {
      return { ...fn() };
    } catch (error) {
      return this.errorAnswer(error);
    }
  }

  /**
   * The answer to a call that failed with `error`. A failure of the store is thrown (as a
   * `StoreFailedError`, see `storeFailure`), for `handleTracked` to decide: it is no answer of the call's own.
   */
  private errorAnswer(error: unknown): Record<string, unknown> {
    if (error instanceof ApiError) return { errcode: error.errcode, errmsg: error.errmsg };
    const failed = storeFailure(error, this.dbName);
    if (failed !== undefined) throw failed;
    if (error instanceof GuidectlError)
      return { errcode: ERRCODE.invalidArgs, errmsg: `invalid args: ${error.message}` };
    // A bug: its stack once, not again at every retry of the call that meets it.
    this.logOnce(`internal error: ${errorStack(error)}`);
    return { errcode: ERRCODE.systemBusy, errmsg: 'system error' };
  }

  /**
   * `errorAnswer`, where a store failure is a -1 too (the real API's answer to a failure of its
   * own), saying what is wrong; the log says it once, in one line, with what to do.
   */
  private failureAnswer(error: unknown): Record<string, unknown> {
    const failed = storeFailure(error, this.dbName);
    if (failed === undefined) return this.errorAnswer(error);
    this.logOnce(`${failed.message}; every call that needs it is answered -1 (system error) meanwhile`);
    return { errcode: ERRCODE.systemBusy, errmsg: `system error: the service's database ${failed.summary}` };
  }

  private logOnce(line: string): void {
    if (this.logged.has(line)) return;
    if (this.logged.size >= 100) this.logged.clear();
    this.logged.add(line);
    this.log(line);
  }

  private record(operation: OperationName, errcode: number): void {
    if (this.callRecord.length >= MAX_CALL_RECORDS) this.callRecord.splice(0, MAX_CALL_RECORDS / 10);
    this.callRecord.push({
      seq: ++this.callSeq,
      operation,
      writes: OPERATIONS[operation].writes,
      errcode,
      at: this.clock.now(),
    });
  }

  /** Every answer is HTTP 200 with a JSON body (an errcode, or a token), as the real API answers. */
  private render(body: object): ServiceAnswer {
    const bytes = Buffer.from(stringifyJson(body), 'utf8');
    return {
      status: 200,
      headers: { 'content-type': JSON_TYPE, 'content-length': String(bytes.length) },
      body: bytes,
    };
  }
}

/**
 * A request target's path and query, the path exactly as sent. Not `new URL(target, base)`: it
 * reads `//cgi-bin/guide/x` as the host `cgi-bin` and the path `/guide/x`, a path the client never
 * sent (and `//elsewhere/cgi-bin/token` as `/cgi-bin/token`). A target in absolute form
 * (`http://host/path`, as sent to a proxy) is read for its path and query.
 */
function readTarget(target: string): { path: string; query: URLSearchParams } {
  let rest = target;
  if (!target.startsWith('/') && URL.canParse(target)) {
    const url = new URL(target);
    rest = `${url.pathname}${url.search}`;
  }
  const q = rest.indexOf('?');
  return {
    path: q === -1 ? rest : rest.slice(0, q),
    query: new URLSearchParams(q === -1 ? '' : rest.slice(q + 1)),
  };
}

/** The guide operation a `quota/get` names by its path (`/cgi-bin/guide/NAME`); 76021 for another. */
function readCgiPath(body: Body): OperationName {
  const path = requireString(body, 'cgi_path');
  const name = path.startsWith('/cgi-bin/guide/') ? path.slice('/cgi-bin/guide/'.length) : '';
  if (isOperationName(name)) return name;
  throw new ApiError(
    ERRCODE.unknownCgiPath,
    `cgi_path not found, please check: ${JSON.stringify(path)} is not a path the quotas are kept for; give one such as /cgi-bin/guide/addguideacct`,
  );
}

/** Deepest nesting of arrays and objects a request body may have (47001 past it). */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests arrays and objects deeper than `max`, found by one pass over the text
 * (strings skipped), before any parser recurses into it: no guide API body nests more than four
 * levels, and a parser's recursion must not be what decides.
 */
function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** A JSON escape of a surrogate (`\ud800`–`\udfff`): only then can parsed text hold a lone one. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * Where in `value` a string (or a key) is not valid Unicode (a lone surrogate, which only a JSON
 * escape can make), as a field path (`guide_list[0].nickname`); undefined when there is none.
 */
function illFormedAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = illFormedAt(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      const at = path === '' ? key : `${path}.${key}`;
      if (LONE_SURROGATE.test(key)) return `the key ${JSON.stringify(at)}`;
      const found = illFormedAt(item, at);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * A request body: JSON text of an object, in UTF-8 (47001 for anything that is not JSON, or not
 * UTF-8: its bytes are not replaced by U+FFFD and stored), every string valid Unicode (40097 naming
 * the field that holds a lone surrogate, `"\ud800"`, which no UTF-8 text can hold).
 */
function parseBody(raw: Buffer): Body {
  let value: unknown;
  if (!isUtf8(raw)) {
    throw new ApiError(ERRCODE.invalidJson, 'data format error: the body is not valid UTF-8 text');
  }
  const text = raw.toString('utf8');
  if (nestedDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new ApiError(
      ERRCODE.invalidJson,
      `data format error: JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
    );
  }
  try {
    value = parseJson(text);
  } catch {
    throw new ApiError(ERRCODE.invalidJson, 'data format error: the body is not valid JSON');
  }
  if (!isRecord(value))
    throw new ApiError(ERRCODE.invalidArgs, 'invalid args: the body must be a JSON object');
  if (SURROGATE_ESCAPE.test(text)) {
    const at = illFormedAt(value, '');
    if (at !== undefined) {
      throw new ApiError(
        ERRCODE.invalidArgs,
        `invalid args: ${at} is not valid Unicode: it holds a lone surrogate (a \\ud800-\\udfff escape without its pair)`,
      );
    }
  }
  return value;
}

/** How long a stop waits for connections still busy (a body arriving, an answer being read). */
const CLOSE_WAIT_MS = 10_000;
/** 32 bodies of the largest size: far more than a few clients send at once, far less than memory. */
const MAX_BUFFERED_BODY_BYTES = 32 * 1024 * 1024;

/**
 * The injected delays under way, which a stop at once ends early. One set rather than an abort
 * listener per waiting call on one shared signal: Node scans a signal's listeners on every add (N
 * waiting calls cost O(N²)) and warns on stderr past 10 of them (MaxListenersExceededWarning), which
 * any 11 clients waiting on `--faults latency=…` set off.
 */
class Delays {
  private readonly waiting = new Set<() => void>();
  private endedAll = false;

  /** Whether `endAll` was called: the service is stopping at once. */
  get ended(): boolean {
    return this.endedAll;
  }

  /** Waits `ms`, or less when `endAll` is called meanwhile; not at all once it was. */
  wait(ms: number): Promise<void> {
    if (this.endedAll) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiting.add(done);
    });
  }

  /** Ends every delay under way, and every later one at once. */
  endAll(): void {
    this.endedAll = true;
    for (const done of [...this.waiting]) done();
  }
}
