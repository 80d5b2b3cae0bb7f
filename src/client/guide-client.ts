import { setMaxListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { type Clock, systemClock } from '../core/clock.js';
import { formatCount } from '../core/count.js';
import { type CredentialVariables, WECHAT_VARIABLES } from '../core/credential-variables.js';
import { errorMessage, GuidectlError } from '../core/errors.js';
import { ifDefined, isRecord } from '../core/records.js';
import type { Claims, Confirmation, ConfirmRead, LostAnswerPolicy, WireBody } from '../kinds/kind.js';
import { ERRCODE, ERRCODE_MEANING } from '../wire/errcodes.js';
import type { ServiceHandler } from '../wire/exchange.js';
import { toId64 } from '../wire/ids.js';
import { stringifyJson } from '../wire/json.js';
import {
  type AddGuideAcctRequest,
  type AddGuideMassendJobAnswer,
  type AddGuideMassendJobRequest,
  type AnswerOf,
  type ChatMessage,
  type DelGuideAcctRequest,
  type DelGuideGroupRequest,
  decodeAnswer,
  decodeQuotaAnswer,
  encodeRequest,
  type GetGroupByGuideAnswer,
  type GetGroupByGuideRequest,
  type GetGroupInfoAnswer,
  type GetGroupInfoRequest,
  type GetGuideAcctAnswer,
  type GetGuideAcctConfigAnswer,
  type GetGuideAcctListAnswer,
  type GetGuideAcctListRequest,
  type GetGuideAcctRequest,
  type GetGuideBuyerChatRecordAnswer,
  type GetGuideBuyerChatRecordRequest,
  type GetGuideConfigAnswer,
  type GetGuideConfigRequest,
  type GetGuideGroupListAnswer,
  type GetGuideMassendJobAnswer,
  type GetGuideMassendJobListAnswer,
  type GetGuideMassendJobListRequest,
  type GroupMember,
  type GroupMembershipRequest,
  type GuideAcctListItem,
  type GuideCreateQrcodeAnswer,
  type GuideCreateQrcodeRequest,
  type MassendTask,
  type NewGuideGroupAnswer,
  type NewGuideGroupRequest,
  type OperationQuota,
  type PushShowWxaPathMenuRequest,
  type QuotaGetRequest,
  type RequestOf,
  type SetGuideAcctConfigRequest,
  type SetGuideConfigRequest,
  type TaskIdRequest,
  type UpdateGuideAcctRequest,
  type UpdateGuideMassendJobRequest,
} from '../wire/messages.js';
import {
  callPath,
  callWrites,
  DEFAULT_BASE_URL,
  isOperationName,
  type OperationName,
  operationPath,
  type WireCallName,
} from '../wire/operations.js';
import { parseBaseUrl } from './base-url.js';
import {
  ApiUnauthorizedError,
  answerLost,
  apiErrorKind,
  CallAbortedError,
  CallOutcomeUnknownError,
  CredentialsError,
  GuideApiError,
  InvalidOptionsError,
  MalformedAnswerError,
  QuotaExhaustedError,
  reasonInWords,
  TokenRejectedError,
  TransportError,
} from './call-errors.js';
import {
  AdaptiveConcurrency,
  type ConcurrencyState,
  type ConcurrencyTicket,
  DEFAULT_MAX_PARALLELISM,
  type LoadSignal,
  MinutePacer,
} from './concurrency.js';
import type { ClientEvent, RetryEvent } from './events.js';
import type { ProxySettings } from './http-transport.js';
import { InProcessTransport } from './in-process-transport.js';
import { RateLimiter, Semaphore, type Sleep } from './limiter.js';
import { isWriteOperation, lostAnswerPolicy } from './outcomes.js';
import { proxyInWords } from './proxy.js';
import { SecretSet } from './redact.js';
import {
  checkRetryPolicy,
  DEFAULT_RETRY_POLICY,
  isServiceFailure,
  RetryBudget,
  type RetryPolicy,
  retryCauseOf,
} from './retry.js';
import { Sender } from './sender.js';
import {
  type ClientAuth,
  FixedTokenSource,
  MIN_TOKEN_LIFETIME_SECONDS,
  StableTokenSource,
  type TokenSource,
} from './tokens.js';
import type { Transport } from './transport.js';

export { DEFAULT_BASE_URL };
export const DEFAULT_PARALLELISM = 8;
export const DEFAULT_TIMEOUT_MS = 15_000;
/** How long a write whose attempt timed out is still waited for, beyond its timeout. */
export const DEFAULT_SETTLE_MS = 120_000;
/**
 * How long a create or an append whose answer was lost on the way (a gateway's 502/503/504, a
 * connection reset after the request was sent) is watched for by reads before it is sent again.
 */
export const DEFAULT_SETTLE_WINDOW_MS = 15_000;
/** `15 s`, `0.2 s`: a span of time for a message. */
function inSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** The first wait between the reads that watch for a lost create or append; it doubles up to the cap. */
const WATCH_FIRST_DELAY_MS = 250;
const WATCH_MAX_DELAY_MS = 2_000;
/** Page size the iterators ask for (the service's largest page). */
export const DEFAULT_PAGE_SIZE = 100;

export interface GuideClientOptions {
  /** A fixed access token, or app credentials exchanged at `/cgi-bin/stable_token`. */
  readonly auth: ClientAuth;
  /** The variables `auth` was read from, named by the hints of refused credentials (`WECHAT_*`). */
  readonly credentialVariables?: CredentialVariables;
  /**
   * With a fixed access token: whether the app credentials' variables are set too (the token took
   * precedence), so that the hint of a refused token says to unset it rather than to set them.
   */
  readonly appCredentialsSet?: boolean;
  /** `https://api.weixin.qq.com` by default; may carry a path prefix (a gateway's `/wechat`). */
  readonly baseUrl?: string;
  /**
   * Most calls in flight at once (8); with `adaptive`, the limit it starts at. The connection pool
   * keeps at least as many sockets as calls may be in flight.
   */
  readonly parallelism?: number;
  /**
   * Adapt the limit of calls in flight to what the service answers (see `AdaptiveConcurrency`):
   * from `parallelism`, up while answers keep their latency and none is refused for load, down at
   * once on -1, 45011 or a rising latency, never above `maxParallelism`. Also paces an operation
   * answered 45011 until the minute turns (see `MinutePacer`). Off by default: `parallelism` is
   * then a fixed bound, and 45011 is retried with backoff like -1.
   */
  readonly adaptive?: boolean;
  /** With `adaptive`: the most calls in flight it may reach (64, or `parallelism` if higher). */
  readonly maxParallelism?: number;
  /** Most requests started per second; unlimited when absent. */
  readonly rateLimit?: number;
  /** Timeout of one attempt of one call, in milliseconds (15 000). */
  readonly timeoutMs?: number;
  /**
   * A write whose attempt timed out may still be applied by the server later. Instead of
   * resending it (and racing the late original) the client keeps waiting for that attempt's
   * answer this many more milliseconds (120 000): the call ends only when what the attempt did is
   * known. When even this passes, the call fails with `CallOutcomeUnknownError` and counts in
   * `abandonedWrites`.
   */
  readonly settleMs?: number;
  /**
   * A create or an append whose answer was lost on the way — a gateway answered 502, 503 or 504,
   * or the connection broke after the request was sent — may still be under way behind the
   * gateway. Before it is sent again, the client reads for it for up to this many milliseconds
   * (15 000): it is done as soon as a read shows it; only when none has shown it by then is it sent
   * again. Time is the client's `clock`, waits its `sleep`.
   */
  readonly settleWindowMs?: number;
  /** How often and how long to retry; see `RetryPolicy`. */
  readonly retry?: Partial<RetryPolicy>;
  /** Proxies, as read from HTTPS_PROXY / HTTP_PROXY / NO_PROXY by the caller. */
  readonly proxy?: ProxySettings;
  /** The undici dispatcher to send through (tests, custom pools); the client then does not close it. */
  readonly dispatcher?: Dispatcher;
  /**
   * A guide service in this process to hand the calls to instead of sending them over HTTP (the
   * embedded local service): its handler, and the name that stands for the base URL in messages
   * and `http` events (e.g. `embedded(.guidectl/local.db)`). The calls are the same bytes, with
   * the same tokens, retries and limits; `baseUrl`, `proxy` and `dispatcher` do not apply.
   */
  readonly inProcess?: InProcessService;
  /** Time for token expiry, retry budgets and rate limits (the system clock). */
  readonly clock?: Clock;
  /** Waits between retries and for the rate limit (real timers). */
  readonly sleep?: Sleep;
  /** The jitter source, in [0, 1) (`Math.random`). */
  readonly random?: () => number;
  /** Receives progress and log events; must not throw (what it throws is ignored). */
  readonly onEvent?: (event: ClientEvent) => void;
  /**
   * Whether `onEvent` also gets an `http` event for every exchange (true). Each one costs a
   * redacted URL and scrubbed copies of both bodies (5% of a large read's time): pass false when
   * the events only drive progress, not a verbose log.
   */
  readonly httpEvents?: boolean;
  /** Aborts every call in flight and every call after (`CallAbortedError`). */
  readonly signal?: AbortSignal;
  readonly userAgent?: string;
  /** Page size of the iterators (100). */
  readonly pageSize?: number;
  /**
   * Appends (`newguidegroup`, a quick-reply append, `addguidemassendjob`) cannot be resent after
   * a lost answer; to tell whether one took effect, the client reads the state before each such
   * call (true, the default). With false those reads are saved and a lost answer on an append ends
   * as `CallOutcomeUnknownError` — for callers that read everything again afterwards anyway, such
   * as apply's convergence check.
   */
  readonly readBeforeAppends?: boolean;
}

/** A guide service in this process, as a client reaches it (see `GuideClientOptions.inProcess`). */
export interface InProcessService {
  readonly handle: ServiceHandler;
  readonly name: string;
}

/** Options of one raw call. */
export interface CallOptions {
  /**
   * For an append (`newguidegroup`, a quick-reply append, `addguidemassendjob`): the state it
   * changes as the caller already knows it, in place of the read before the call — the ids of
   * the live groups of that name; the guide's quick replies; the ids of the guide's open tasks.
   * A lost answer is then settled by one read after the call (see `outcomes.ts`).
   */
  readonly before?: readonly string[];
  /**
   * Told, when the call succeeds, how its answer came: whether it took more than one attempt,
   * was settled by a confirming read after a lost answer, or was held past its timeout. Only an
   * answer of the first attempt, neither confirmed nor held, vouches on its own for what the call
   * did (apply reads back the rest; see `reconcile/`'s verify).
   */
  readonly onAnswered?: (answered: Answered) => void;
  /** Told of each retry of this call (as `onEvent` is, with the client's other events). */
  readonly onRetry?: (event: RetryEvent) => void;
}

/** How a successful call's answer came (see {@link CallOptions.onAnswered}). */
export interface Answered {
  readonly attempts: number;
  readonly confirmed: boolean;
  readonly held: boolean;
}

type WithoutPage<T> = T extends unknown ? Omit<T, 'page' | 'num'> : never;
type WithoutOffset<T> = T extends unknown ? Omit<T, 'offset' | 'limit'> : never;

/** The body of an answer, as parsed losslessly: `errcode`, `errmsg` and the operation's fields. */
export type RawAnswer = Readonly<Record<string, unknown>>;

/**
 * A client of the guide API: one typed method per operation, named by its wire name, plus
 * iterators over every page of the paged lists and a raw `call`. All methods share the client's
 * token, retry policy, concurrency limit and rate limit. Errors: `GuideApiError` (and its
 * subclasses), `TransportError`, `CallOutcomeUnknownError`, `CallAbortedError`,
 * `MalformedAnswerError`, `InvalidRequestError` — each with a stable `code`.
 */
export interface GuideClient {
  /** The base URL calls go to. */
  readonly baseUrl: string;

  /** Adds a guide (sends the invitation); 9300803 if already a guide. */
  addguideacct(request: AddGuideAcctRequest): Promise<void>;
  updateguideacct(request: UpdateGuideAcctRequest): Promise<void>;
  getguideacct(request: GetGuideAcctRequest): Promise<GetGuideAcctAnswer>;
  delguideacct(request: DelGuideAcctRequest): Promise<void>;
  /** One page of guides; see `iterateGuideAcctList` for all of them. */
  getguideacctlist(request: GetGuideAcctListRequest): Promise<GetGuideAcctListAnswer>;
  guidecreateqrcode(request: GuideCreateQrcodeRequest): Promise<GuideCreateQrcodeAnswer>;
  /** One page of chat messages; see `iterateGuideBuyerChatRecord`. */
  getguidebuyerchatrecord(request: GetGuideBuyerChatRecordRequest): Promise<GetGuideBuyerChatRecordAnswer>;
  pushshowwxapathmenu(request: PushShowWxaPathMenuRequest): Promise<void>;
  setguideconfig(request: SetGuideConfigRequest): Promise<void>;
  /** Without a guide: the account-wide default welcome messages. */
  getguideconfig(request?: GetGuideConfigRequest): Promise<GetGuideConfigAnswer>;
  setguideacctconfig(request: SetGuideAcctConfigRequest): Promise<void>;
  getguideacctconfig(): Promise<GetGuideAcctConfigAnswer>;
  newguidegroup(request: NewGuideGroupRequest): Promise<NewGuideGroupAnswer>;
  getguidegrouplist(): Promise<GetGuideGroupListAnswer>;
  /** One page of a group's members; see `iterateGroupInfo`. */
  getgroupinfo(request: GetGroupInfoRequest): Promise<GetGroupInfoAnswer>;
  addguide2guidegroup(request: GroupMembershipRequest): Promise<void>;
  delguide2guidegroup(request: GroupMembershipRequest): Promise<void>;
  getgroupbyguide(request: GetGroupByGuideRequest): Promise<GetGroupByGuideAnswer>;
  delguidegroup(request: DelGuideGroupRequest): Promise<void>;
  addguidemassendjob(request: AddGuideMassendJobRequest): Promise<AddGuideMassendJobAnswer>;
  getguidemassendjob(request: TaskIdRequest): Promise<GetGuideMassendJobAnswer>;
  /** One page (`offset`/`limit`) of a guide's tasks; see `iterateGuideMassendJobList`. */
  getguidemassendjoblist(request: GetGuideMassendJobListRequest): Promise<GetGuideMassendJobListAnswer>;
  updateguidemassendjob(request: UpdateGuideMassendJobRequest): Promise<void>;
  cancelguidemassendjob(request: TaskIdRequest): Promise<void>;

  /**
   * The daily quota of a guide operation (`POST /cgi-bin/openapi/quota/get`): calls a day, made
   * today, left today. A target that keeps no quotas answers otherwise: see `quotaUnreadable`.
   */
  readQuota(operation: OperationName): Promise<OperationQuota>;

  /** Every guide of the account, page after page. */
  iterateGuideAcctList(): AsyncIterable<GuideAcctListItem>;
  /** Every member of a group. */
  iterateGroupInfo(request: WithoutPage<GetGroupInfoRequest>): AsyncIterable<GroupMember>;
  /** Every chat message of a guide in the window. */
  iterateGuideBuyerChatRecord(
    request: WithoutPage<GetGuideBuyerChatRecordRequest>,
  ): AsyncIterable<ChatMessage>;
  /** Every mass-send task of a guide (of the statuses asked for). */
  iterateGuideMassendJobList(
    request: WithoutOffset<GetGuideMassendJobListRequest>,
  ): AsyncIterable<MassendTask>;

  /**
   * One raw call: `body` goes on the wire as given (serialised losslessly: `bigint`s become bare
   * numbers), the whole answer comes back parsed losslessly (ids beyond 2^53 as `bigint`). Same
   * tokens, retries, limits and lost-answer rules as the typed methods.
   */
  call(
    operation: OperationName,
    body?: Readonly<Record<string, unknown>>,
    options?: CallOptions,
  ): Promise<RawAnswer>;

  /**
   * Write attempts given up on while the server might still apply them (held past `timeoutMs`
   * + `settleMs`, or stopped on the wire by the abort signal). While this is not 0, a read of the
   * account cannot show its final state: a caller must not declare it converged.
   */
  readonly abandonedWrites: number;

  /** The limit of calls in flight: where it started, where it is, the highest it reached. */
  readonly concurrency: ConcurrencyState;

  /** Waits for the calls in flight, then closes the connections (if the client opened them). */
  close(): Promise<void>;
}

/** Collects an async iterable into an array (Node 20 has no `Array.fromAsync`). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

function checkPositiveInt(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1)
    throw new InvalidOptionsError(name, `createGuideClient: ${name} must be a whole number ≥ 1`);
  return value;
}

/** A value as a message may show it: its kind, never its text (it may be a secret). */
function kindOf(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (value === '') return 'an empty string';
  return `a ${typeof value}`;
}

/**
 * The auth option as given. A JavaScript caller gets no type check, and a credential read from an
 * unset environment variable arrives as undefined: say which one is missing.
 */
function checkAuth(auth: unknown, variables: CredentialVariables): ClientAuth {
  const how =
    `pass auth: { appid, secret } (the app's credentials, as in ${variables.appid} and ${variables.secret}) ` +
    `or auth: { accessToken } (as in ${variables.accessToken})`;
  if (!isRecord(auth))
    throw new InvalidOptionsError('auth', `createGuideClient: auth is ${kindOf(auth)}; ${how}`);
  const token = auth['accessToken'];
  if (token !== undefined) {
    if (typeof token === 'string' && token !== '') return { accessToken: token };
    throw new InvalidOptionsError(
      'auth.accessToken',
      `createGuideClient: auth.accessToken is ${kindOf(token)}; it must be a non-empty string`,
    );
  }
  const appid = auth['appid'];
  const secret = auth['secret'];
  if (typeof appid === 'string' && appid !== '' && typeof secret === 'string' && secret !== '')
    return { appid, secret };
  const wrong = [
    { name: 'auth.appid', value: appid },
    { name: 'auth.secret', value: secret },
  ].filter((f) => typeof f.value !== 'string' || f.value === '');
  const what = wrong.map((f) => `${f.name} is ${kindOf(f.value)}`).join(' and ');
  throw new InvalidOptionsError(
    wrong.length === 1 && wrong[0] !== undefined ? wrong[0].name : 'auth',
    `createGuideClient: ${what}; ${how}`,
  );
}

function checkBaseUrl(text: unknown): URL {
  if (typeof text !== 'string')
    throw new InvalidOptionsError(
      'baseUrl',
      `createGuideClient: baseUrl is ${kindOf(text)}; it must be a URL as text`,
    );
  const parsed = parseBaseUrl(text);
  if ('url' in parsed) return parsed.url;
  switch (parsed.problem.kind) {
    case 'not-a-url':
      throw new InvalidOptionsError(
        'baseUrl',
        `createGuideClient: baseUrl ${JSON.stringify(text)} is not a URL`,
      );
    case 'not-http':
      throw new InvalidOptionsError(
        'baseUrl',
        `createGuideClient: baseUrl must be an http or https URL, not ${parsed.problem.protocol}`,
      );
    case 'query-or-fragment':
      throw new InvalidOptionsError(
        'baseUrl',
        'createGuideClient: baseUrl must not hold a query or fragment',
      );
    case 'user-info':
      throw new InvalidOptionsError(
        'baseUrl',
        'createGuideClient: baseUrl must not hold a user or password; credentials go in the auth option',
      );
    default: {
      const unreachable: never = parsed.problem;
      return unreachable;
    }
  }
}

const defaultSleep: Sleep = (ms, signal) =>
  ms <= 0 ? Promise.resolve() : delay(ms, undefined, signal === undefined ? {} : { signal });

/** Creates a client of the guide API. Nothing is sent until the first call. */
export function createGuideClient(options: GuideClientOptions): GuideClient {
  return new Client(options);
}

interface Exchange {
  readonly answer: RawAnswer;
  readonly errcode: number;
  readonly errmsg: string;
}

interface CallState {
  attempts: number;
  confirmed: boolean;
  /** An attempt was held past its timeout (its late answer settled it). */
  held: boolean;
  readonly onRetry: ((event: RetryEvent) => void) | undefined;
  errcode: number | undefined;
}

/** One call as its attempts go: what settling a lost answer needs. */
interface AttemptContext {
  readonly operation: WireCallName;
  readonly body: WireBody;
  readonly callId: number;
  readonly state: CallState;
  readonly budget: RetryBudget;
  /** What a lost answer of this write means (see `outcomes.ts`); undefined for a read. */
  readonly policy: LostAnswerPolicy | undefined;
  /** The state read (or known) before an append, for its confirmation. */
  readonly snapshot: unknown;
  /** Whether a lost append can be settled by a read. */
  readonly confirmable: boolean;
  /** The failure of the last attempt whose answer was lost, while it is not settled. */
  lost?: TransportError | undefined;
}

class Client implements GuideClient {
  readonly baseUrl: string;
  private readonly sender: Sender;
  /** What carries the calls; a promise while undici loads (HTTP), see `openTransport`. */
  private readonly transport: Transport | Promise<Transport>;
  private readonly tokens: TokenSource;
  private readonly semaphore: Semaphore;
  /** With `adaptive`: the limit's scheme and the per-minute pacer. */
  private readonly adaptive: AdaptiveConcurrency | undefined;
  private readonly pacer: MinutePacer | undefined;
  private readonly rate: RateLimiter | undefined;
  private readonly policy: RetryPolicy;
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  private readonly signal: AbortSignal | undefined;
  private readonly listener: ((event: ClientEvent) => void) | undefined;
  private readonly secrets = new SecretSet();
  private readonly claims: Claims = new Set();
  private readonly pageSize: number;
  private readonly readBeforeAppends: boolean;
  private readonly timeoutMs: number;
  private readonly settleMs: number;
  private readonly settleWindowMs: number;
  private readonly fixedToken: boolean;
  private readonly variables: CredentialVariables;
  private readonly appCredentialsSet: boolean;
  private seq = 0;
  private closed = false;
  private readonly confirmRead: ConfirmRead = (operation, body, accept) => this.run(operation, body, accept);

  constructor(options: GuideClientOptions) {
    if (!isRecord(options))
      throw new InvalidOptionsError(
        'options',
        `createGuideClient: the options are ${kindOf(options)}; pass an object`,
      );
    this.variables = options.credentialVariables ?? WECHAT_VARIABLES;
    // Before anything opens (a transport, a timer), so that a refusal leaves nothing to close.
    const auth = checkAuth(options.auth, this.variables);
    const target: { readonly url: URL } | { readonly service: InProcessService } =
      options.inProcess === undefined
        ? { url: checkBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL) }
        : { service: options.inProcess };
    this.baseUrl = 'url' in target ? target.url.toString().replace(/\/$/, '') : target.service.name;
    const parallelism = checkPositiveInt('parallelism', options.parallelism ?? DEFAULT_PARALLELISM);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(timeoutMs > 0))
      throw new InvalidOptionsError('timeoutMs', 'createGuideClient: timeoutMs must be a number > 0');
    const settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
    if (!(settleMs >= 0))
      throw new InvalidOptionsError('settleMs', 'createGuideClient: settleMs must be a number ≥ 0');
    this.timeoutMs = timeoutMs;
    this.settleMs = settleMs;
    const settleWindowMs = options.settleWindowMs ?? DEFAULT_SETTLE_WINDOW_MS;
    if (!(settleWindowMs >= 0)) throw new RangeError('settleWindowMs must be a number ≥ 0');
    this.settleWindowMs = settleWindowMs;
    this.pageSize = checkPositiveInt('pageSize', options.pageSize ?? DEFAULT_PAGE_SIZE);
    this.readBeforeAppends = options.readBeforeAppends ?? true;
    this.policy = checkRetryPolicy({ ...DEFAULT_RETRY_POLICY, ...options.retry });
    this.clock = options.clock ?? systemClock;
    this.sleep = options.sleep ?? defaultSleep;
    this.random = options.random ?? Math.random;
    this.signal = options.signal;
    // The calls waiting for a place share one listener (see `Semaphore`), and so do the calls in
    // flight (see `Sender`), but retry waits and the token exchange each listen while they
    // last: possibly more than Node's leak warning (at 10) expects, removed as they go: noise.
    if (this.signal !== undefined) setMaxListeners(0, this.signal);
    this.listener = options.onEvent;
    this.semaphore = new Semaphore(parallelism);
    const rateLimit = options.rateLimit;
    if (rateLimit !== undefined && !(rateLimit > 0 && Number.isFinite(rateLimit)))
      throw new InvalidOptionsError('rateLimit', 'createGuideClient: rateLimit must be a number > 0');
    const { adaptive, maxParallelism } = adaptiveOf(options, parallelism, this.clock, (limit) =>
      this.semaphore.setLimit(limit),
    );
    this.adaptive = adaptive;
    this.pacer = adaptive === undefined ? undefined : new MinutePacer(this.clock);
    this.rate =
      options.rateLimit === undefined
        ? undefined
        : new RateLimiter(options.rateLimit, this.clock, this.sleep);
    // A proxy's password must not reach a message either.
    for (const proxy of [options.proxy?.httpProxy, options.proxy?.httpsProxy]) {
      const password = proxy === undefined ? undefined : safeUrl(proxy)?.password;
      if (password !== undefined && password !== '') this.secrets.add(decodeURIComponent(password));
    }
    this.transport =
      'url' in target
        ? openHttpTransport(options, target.url, maxParallelism, timeoutMs)
        : new InProcessTransport(target.service.handle, 'in-process');
    const proxy = 'url' in target ? proxyInWords(target.url, options.proxy) : undefined;
    this.sender = new Sender({
      origin: 'url' in target ? target.url.origin : target.service.name,
      prefix: 'url' in target ? target.url.pathname.replace(/\/+$/, '') : '',
      ...ifDefined('proxy', proxy),
      transport: this.transport,
      timeoutMs,
      settleMs,
      userAgent: options.userAgent ?? 'guidectl',
      secrets: this.secrets,
      ...ifDefined('signal', this.signal),
      ...(this.listener === undefined || options.httpEvents === false ? {} : { onHttp: (e) => this.emit(e) }),
    });
    this.appCredentialsSet = options.appCredentialsSet === true;
    if ('accessToken' in auth) {
      this.secrets.add(auth.accessToken);
      this.tokens = new FixedTokenSource(auth.accessToken);
      this.fixedToken = true;
    } else {
      this.tokens = new StableTokenSource({
        appid: auth.appid,
        secret: auth.secret,
        sender: this.sender,
        clock: this.clock,
        policy: this.policy,
        random: this.random,
        sleep: this.sleep,
        secrets: this.secrets,
        emit: (e) => this.emit(e),
        ...ifDefined('signal', this.signal),
        variables: this.variables,
      });
      this.fixedToken = false;
    }
  }

  // --- typed operations -------------------------------------------------------------------

  addguideacct(request: AddGuideAcctRequest): Promise<void> {
    return this.typed('addguideacct', request);
  }
  updateguideacct(request: UpdateGuideAcctRequest): Promise<void> {
    return this.typed('updateguideacct', request);
  }
  getguideacct(request: GetGuideAcctRequest): Promise<GetGuideAcctAnswer> {
    return this.typed('getguideacct', request);
  }
  delguideacct(request: DelGuideAcctRequest): Promise<void> {
    return this.typed('delguideacct', request);
  }
  getguideacctlist(request: GetGuideAcctListRequest): Promise<GetGuideAcctListAnswer> {
    return this.typed('getguideacctlist', request);
  }
  guidecreateqrcode(request: GuideCreateQrcodeRequest): Promise<GuideCreateQrcodeAnswer> {
    return this.typed('guidecreateqrcode', request);
  }
  getguidebuyerchatrecord(request: GetGuideBuyerChatRecordRequest): Promise<GetGuideBuyerChatRecordAnswer> {
    return this.typed('getguidebuyerchatrecord', request);
  }
  pushshowwxapathmenu(request: PushShowWxaPathMenuRequest): Promise<void> {
    return this.typed('pushshowwxapathmenu', request);
  }
  setguideconfig(request: SetGuideConfigRequest): Promise<void> {
    return this.typed('setguideconfig', request);
  }
  getguideconfig(request: GetGuideConfigRequest = {}): Promise<GetGuideConfigAnswer> {
    return this.typed('getguideconfig', request);
  }
  setguideacctconfig(request: SetGuideAcctConfigRequest): Promise<void> {
    return this.typed('setguideacctconfig', request);
  }
  getguideacctconfig(): Promise<GetGuideAcctConfigAnswer> {
    return this.typed('getguideacctconfig', {});
  }
  newguidegroup(request: NewGuideGroupRequest): Promise<NewGuideGroupAnswer> {
    return this.typed('newguidegroup', request);
  }
  getguidegrouplist(): Promise<GetGuideGroupListAnswer> {
    return this.typed('getguidegrouplist', {});
  }
  getgroupinfo(request: GetGroupInfoRequest): Promise<GetGroupInfoAnswer> {
    return this.typed('getgroupinfo', request);
  }
  addguide2guidegroup(request: GroupMembershipRequest): Promise<void> {
    return this.typed('addguide2guidegroup', request);
  }
  delguide2guidegroup(request: GroupMembershipRequest): Promise<void> {
    return this.typed('delguide2guidegroup', request);
  }
  getgroupbyguide(request: GetGroupByGuideRequest): Promise<GetGroupByGuideAnswer> {
    return this.typed('getgroupbyguide', request);
  }
  delguidegroup(request: DelGuideGroupRequest): Promise<void> {
    return this.typed('delguidegroup', request);
  }
  addguidemassendjob(request: AddGuideMassendJobRequest): Promise<AddGuideMassendJobAnswer> {
    return this.typed('addguidemassendjob', request);
  }
  getguidemassendjob(request: TaskIdRequest): Promise<GetGuideMassendJobAnswer> {
    return this.typed('getguidemassendjob', request);
  }
  getguidemassendjoblist(request: GetGuideMassendJobListRequest): Promise<GetGuideMassendJobListAnswer> {
    return this.typed('getguidemassendjoblist', request);
  }
  updateguidemassendjob(request: UpdateGuideMassendJobRequest): Promise<void> {
    return this.typed('updateguidemassendjob', request);
  }
  cancelguidemassendjob(request: TaskIdRequest): Promise<void> {
    return this.typed('cancelguidemassendjob', request);
  }

  async readQuota(operation: OperationName): Promise<OperationQuota> {
    const request: QuotaGetRequest = { cgi_path: operationPath(operation) };
    return decodeQuotaAnswer(await this.run('quota/get', { ...request }));
  }

  // --- iterators ----------------------------------------------------------------------------

  async *iterateGuideAcctList(): AsyncIterable<GuideAcctListItem> {
    yield* this.pages((page, num) =>
      this.getguideacctlist({ page, num }).then((a) => ({ total: a.total_num, items: a.list })),
    );
  }

  async *iterateGroupInfo(request: WithoutPage<GetGroupInfoRequest>): AsyncIterable<GroupMember> {
    yield* this.pages((page, num) =>
      this.getgroupinfo({ ...request, page, num }).then((a) => ({ total: a.total_num, items: a.guide_list })),
    );
  }

  async *iterateGuideBuyerChatRecord(
    request: WithoutPage<GetGuideBuyerChatRecordRequest>,
  ): AsyncIterable<ChatMessage> {
    yield* this.pages((page, num) =>
      this.getguidebuyerchatrecord({ ...request, page, num }).then((a) => ({
        total: a.total_num,
        items: a.msg_list,
      })),
    );
  }

  async *iterateGuideMassendJobList(
    request: WithoutOffset<GetGuideMassendJobListRequest>,
  ): AsyncIterable<MassendTask> {
    let seen = 0;
    for (let offset = 0; ; ) {
      const answer = await this.getguidemassendjoblist({ ...request, offset, limit: this.pageSize });
      yield* answer.list;
      seen += answer.list.length;
      // Advance by what came, not by what was asked: a server may return less than `limit`.
      offset += answer.list.length;
      if (answer.list.length === 0 || seen >= answer.total_count) return;
    }
  }

  /**
   * Every item of a `page`/`num` list: pages from 0 until `total` items have come or a page is
   * empty. A short page is not taken as the last one (a server may cap `num`).
   */
  private async *pages<T>(
    fetch: (page: number, num: number) => Promise<{ readonly total: number; readonly items: readonly T[] }>,
  ): AsyncIterable<T> {
    let seen = 0;
    for (let page = 0; ; page++) {
      const { total, items } = await fetch(page, this.pageSize);
      yield* items;
      seen += items.length;
      if (items.length === 0 || seen >= total) return;
    }
  }

  // --- raw calls ----------------------------------------------------------------------------

  call(
    operation: OperationName,
    body: Readonly<Record<string, unknown>> = {},
    options: CallOptions = {},
  ): Promise<RawAnswer> {
    return this.run(operation, body, undefined, options);
  }

  get abandonedWrites(): number {
    return this.sender.abandonedWrites;
  }

  get concurrency(): ConcurrencyState {
    if (this.adaptive !== undefined) return this.adaptive.state;
    const limit = this.semaphore.limit;
    return { adaptive: false, start: limit, max: limit, limit, maxReached: limit };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sender.dispose();
    let transport: Transport;
    try {
      transport = await this.transport;
    } catch {
      return; // it never loaded: nothing to close (the calls were told why)
    }
    await transport.close();
  }

  private async typed<Op extends OperationName>(
    operation: Op,
    request: RequestOf<Op>,
  ): Promise<AnswerOf<Op>> {
    const answer = await this.run(operation, encodeRequest(operation, request));
    return decodeAnswer(operation, answer);
  }

  private emit(event: ClientEvent): void {
    if (this.listener === undefined) return;
    try {
      this.listener(event);
    } catch {
      // A listener's failure must not change the outcome of a call.
    }
  }

  /** One call with all its attempts; `accept` lists error codes returned rather than thrown. */
  private async run(
    operation: WireCallName,
    body: WireBody,
    accept?: readonly number[],
    options?: CallOptions,
  ): Promise<RawAnswer> {
    if (this.closed) throw new CallAbortedError(operation, 'the client was closed');
    if (this.signal?.aborted === true) throw new CallAbortedError(operation);
    const callId = ++this.seq;
    const started = performance.now();
    const state: CallState = {
      attempts: 0,
      confirmed: false,
      held: false,
      errcode: undefined,
      onRetry: options?.onRetry,
    };
    this.emit({ type: 'call-start', callId, operation, writes: callWrites(operation) });
    try {
      const answer = await this.attempts(operation, body, accept, callId, state, options?.before);
      this.emit({
        type: 'call-end',
        callId,
        operation,
        ok: true,
        attempt: state.attempts,
        durationMs: Math.round(performance.now() - started),
        ...ifDefined('errcode', state.errcode),
        ...(state.confirmed ? { confirmed: true } : {}),
      });
      options?.onAnswered?.({ attempts: state.attempts, confirmed: state.confirmed, held: state.held });
      return answer;
    } catch (error) {
      this.emit({
        type: 'call-end',
        callId,
        operation,
        ok: false,
        attempt: state.attempts,
        durationMs: Math.round(performance.now() - started),
        ...ifDefined('errcode', state.errcode),
        ...(error instanceof GuidectlError ? { errorCode: error.code } : {}),
      });
      throw error;
    }
  }

  private async attempts(
    operation: WireCallName,
    body: WireBody,
    accept: readonly number[] | undefined,
    callId: number,
    state: CallState,
    before: readonly string[] | undefined,
  ): Promise<RawAnswer> {
    const policy =
      isOperationName(operation) && isWriteOperation(operation)
        ? lostAnswerPolicy(operation, body)
        : undefined;
    const confirmable = policy?.kind === 'confirm' && (before !== undefined || this.readBeforeAppends);
    const snapshot =
      policy?.kind === 'confirm' && confirmable
        ? (before ?? (await policy.snapshot(this.confirmRead, body)))
        : undefined;
    const budget = new RetryBudget(
      this.policy,
      this.clock,
      this.random,
      policy === undefined ? 'read' : 'write',
    );
    const text = stringifyJson(body);
    const call: AttemptContext = { operation, body, callId, state, budget, policy, snapshot, confirmable };
    let renewed = false;
    try {
      for (;;) {
        const token = await this.tokens.current();
        state.attempts = budget.countAttempt();
        const outcome = await this.exchange(call, token, text);

        if (outcome instanceof TransportError) {
          const settled = await this.afterTransportFailure(call, outcome);
          if (settled !== undefined) return settled;
          continue;
        }

        const { answer, errcode, errmsg } = outcome;
        state.errcode = errcode;
        if (errcode === 0) {
          this.claim(operation, answer);
          return answer;
        }
        if (accept?.includes(errcode) === true) return answer;
        const init = {
          operation,
          errcode,
          errmsg: this.secrets.scrub(errmsg),
          attempts: budget.attempts,
          elapsedMs: budget.elapsedMs(),
        };
        switch (apiErrorKind(errcode)) {
          case 'token': {
            if (errcode !== ERRCODE.accessTokenMissing && !renewed) {
              renewed = true;
              const fresh = await this.tokens.renew(token, errcode);
              if (fresh !== undefined) continue;
            }
            throw new TokenRejectedError({ ...init, hint: this.tokenHint(errcode) });
          }
          case 'busy':
          case 'minute-quota': {
            const pacer = errcode === ERRCODE.minuteQuota ? this.pacer : undefined;
            const wait =
              pacer !== undefined
                ? budget.nextPace(pacer.refused(operation))
                : budget.nextDelay(errcode === ERRCODE.minuteQuota ? 'quota' : 'busy');
            if (wait === undefined) {
              const error = new GuideApiError(init);
              if (call.lost !== undefined)
                throw this.unknown(call, `${answerLost(call.lost.reason)}; then ${error.message}`);
              throw error;
            }
            const reason = `${errcode} ${ERRCODE_MEANING[errcode] ?? ''}`.trim();
            await this.retry(call, wait, reason, errcode);
            continue;
          }
          case 'daily-quota':
            throw new QuotaExhaustedError(init);
          case 'credentials':
            throw new CredentialsError(init, this.variables);
          case 'unauthorized':
            throw new ApiUnauthorizedError(init);
          case 'call': {
            const done = await this.afterRefusal(call, errcode);
            if (done !== undefined) return done;
            throw new GuideApiError(init);
          }
        }
      }
    } catch (error) {
      throw this.failureOf(call, error);
    }
  }

  /**
   * After a failed exchange: settles a lost write (a confirming read, or the rule that it may be
   * resent), then waits before the next attempt. Returns the answer when a read showed the write
   * done; undefined to try again; throws when the call must stop.
   */
  private async afterTransportFailure(
    call: AttemptContext,
    failure: TransportError,
  ): Promise<RawAnswer | undefined> {
    const { body, budget, policy } = call;
    if (isServiceFailure(failure)) throw failure;
    if (policy !== undefined && failure.sent) {
      call.lost = failure;
      // Only a write held past its settling time times out: the server may apply it yet, so
      // neither a resend nor a read can settle it now.
      if (failure.kind === 'timeout') {
        throw this.unknown(
          call,
          `${failure.description}, even after waiting for it; the server may still apply it, so nothing that depends on it was done; wait ${inSeconds(this.timeoutMs + this.settleMs)} more for it to land before you plan or apply again, or it may be made twice`,
        );
      }
      if (policy.kind === 'confirm' && !call.confirmable) {
        throw this.unknown(
          call,
          `${answerLost(failure.reason)}; an append cannot be resent, and no state was read before it`,
        );
      }
      if (policy.kind === 'confirm') {
        const settled = await this.watch(call, () =>
          policy.confirm(this.confirmRead, body, call.snapshot, this.claims),
        );
        if (settled.outcome === 'applied') {
          call.state.confirmed = true;
          return settled.answer;
        }
        if (settled.outcome === 'unknown')
          throw this.unknown(call, `${answerLost(failure.reason)}; ${settled.detail}`);
        // Settled: the lost attempt did nothing, so the next one starts from a clean slate.
        call.lost = undefined;
      }
    }
    const cause = retryCauseOf(failure, this.sender.reached);
    const wait = cause === undefined ? undefined : budget.nextDelay(cause);
    if (wait === undefined) {
      if (call.lost !== undefined)
        throw this.unknown(
          call,
          `${answerLost(call.lost.reason)} and the retries ran out (last: ${failure.description})`,
        );
      throw budget.attempts > 1 ? failure.withAttempts(budget.attempts, budget.elapsedMs()) : failure;
    }
    await this.retry(call, wait, reasonInWords(failure.reason), undefined);
    return undefined;
  }

  /** A resend refused with `errcode` after a lost answer: reads whether the lost attempt did it. */
  private async afterRefusal(call: AttemptContext, errcode: number): Promise<RawAnswer | undefined> {
    const check = call.policy?.kind === 'resend' ? call.policy.afterRefusal : undefined;
    if (call.lost === undefined || check?.errcodes.includes(errcode) !== true) return undefined;
    const settled = await this.settle(call.callId, call.operation, async (): Promise<Confirmation> => {
      const done = await check.confirm(this.confirmRead, call.body);
      return done === undefined
        ? { outcome: 'not-applied', detail: `the refusal ${errcode} stands` }
        : { outcome: 'applied', answer: done, detail: `refused with ${errcode}: already done` };
    });
    if (settled.outcome === 'applied') {
      call.state.confirmed = true;
      call.state.errcode = 0;
      return settled.answer;
    }
    if (settled.outcome === 'unknown') throw this.unknown(call, settled.detail);
    return undefined;
  }

  private unknown(call: AttemptContext, why: string): CallOutcomeUnknownError {
    return new CallOutcomeUnknownError(call.operation, why, call.budget.attempts);
  }

  /** What a failure of a call becomes: a write that may have taken effect is an unknown outcome. */
  private failureOf(call: AttemptContext, error: unknown): unknown {
    // A write stopped while its request was on the wire may have taken effect.
    if (call.policy !== undefined && error instanceof CallAbortedError && error.inFlight) {
      return this.unknown(call, 'it was stopped while the request was on the wire');
    }
    // After a lost answer, a failure that is not the API refusing the resend leaves the
    // outcome open: the lost attempt may have taken effect.
    if (
      call.lost !== undefined &&
      !(error instanceof CallOutcomeUnknownError) &&
      !(error instanceof GuideApiError && error.kind === 'call')
    ) {
      const why = errorMessage(error);
      return this.unknown(call, `${answerLost(call.lost.reason)}; then ${why}`);
    }
    return error;
  }

  /**
   * One attempt: waits for a place and the rate limit, sends, reads the errcode. A write that
   * times out keeps its place and is waited for (see `Sender.postWrite`): the call learns what
   * the attempt did before it resends anything or lets a call that depends on it start.
   */
  private async exchange(
    call: AttemptContext,
    token: string,
    text: string,
  ): Promise<Exchange | TransportError> {
    const { callId, operation } = call;
    const aborted = (error: unknown): unknown =>
      this.signal?.aborted === true ? new CallAbortedError(operation) : error;
    let release: () => void;
    try {
      release = await this.placeFor(call);
    } catch (error) {
      throw aborted(error);
    }
    let ticket: ConcurrencyTicket | undefined;
    let load: LoadSignal = 'none';
    try {
      if (this.rate !== undefined)
        await this.rate.acquire(this.signal).catch((error: unknown) => Promise.reject(aborted(error)));
      ticket = this.adaptive?.begin(operation);
      const path = callPath(operation);
      const query = { access_token: token };
      const answer =
        call.policy !== undefined
          ? await this.sender.postWrite(operation, path, query, text, () => {
              call.state.held = true;
              this.emit({
                type: 'held',
                callId,
                operation,
                timeoutMs: this.timeoutMs,
                settleMs: this.settleMs,
              });
            })
          : await this.sender.post(operation, path, query, text);
      const body = answer.body;
      if (!isRecord(body)) throw new MalformedAnswerError(operation, '', 'is not a JSON object');
      const errcode = body['errcode'] ?? 0;
      if (typeof errcode !== 'number' || !Number.isInteger(errcode)) {
        throw new MalformedAnswerError(operation, 'errcode', 'must be a whole number');
      }
      const errmsg = body['errmsg'];
      load =
        errcode === ERRCODE.systemBusy
          ? 'busy'
          : errcode === ERRCODE.minuteQuota
            ? 'minute-quota'
            : 'answered';
      return { answer: body, errcode, errmsg: typeof errmsg === 'string' ? errmsg : '' };
    } catch (error) {
      if (error instanceof TransportError) return error;
      throw error;
    } finally {
      if (ticket !== undefined) this.adaptive?.end(ticket, load);
      release();
    }
  }

  /**
   * A place among the calls in flight for an attempt of `call`; while its operation is paced
   * (45011, see `MinutePacer`), first a wait until the pause ends, without a place. The wait is
   * the service's rule, not a retry: it is taken out of the call's time budget.
   */
  private async placeFor(call: AttemptContext): Promise<() => void> {
    for (;;) {
      const release = await this.semaphore.acquire(this.signal);
      const wait = this.pacer?.waitFor(call.operation) ?? 0;
      if (wait <= 0) return release;
      release();
      call.budget.excuse(wait);
      await this.sleep(wait, this.signal);
    }
  }

  private async retry(
    call: AttemptContext,
    wait: number,
    reason: string,
    errcode: number | undefined,
  ): Promise<void> {
    const { callId, operation } = call;
    const event: RetryEvent = {
      type: 'retry',
      callId,
      operation,
      attempt: call.budget.attempts,
      delayMs: wait,
      reason,
      ...ifDefined('errcode', errcode),
    };
    this.emit(event);
    try {
      call.state.onRetry?.(event);
    } catch {
      // As with `onEvent`: a listener's failure must not change the outcome of a call.
    }
    try {
      await this.sleep(wait, this.signal);
    } catch (error) {
      if (this.signal?.aborted === true) throw new CallAbortedError(operation);
      throw error;
    }
  }

  /**
   * Settles a lost create or append by reading, again and again for up to `settleWindowMs`: a
   * gateway that gave up (502/503/504) or a connection that broke says nothing of the request
   * behind it, which may land a moment later, and a resend before then would make a copy. Ends
   * at the first read that shows it (or cannot tell); "not applied" only once the window passed.
   */
  private async watch(call: AttemptContext, confirm: () => Promise<Confirmation>): Promise<Confirmation> {
    const { callId, operation } = call;
    const start = this.clock.now();
    const deadline = start + this.settleWindowMs;
    let delay = WATCH_FIRST_DELAY_MS;
    for (;;) {
      const result = await this.tryConfirm(confirm);
      const left = deadline - this.clock.now();
      if (result.outcome !== 'not-applied' || left <= 0) {
        const waited = this.settleWindowMs > 0 && result.outcome === 'not-applied';
        const detail = waited
          ? `${result.detail}, after watching for it ${inSeconds(this.settleWindowMs)}`
          : result.detail;
        this.emit({ type: 'confirm', callId, operation, outcome: result.outcome, detail });
        call.budget.excuse(this.clock.now() - start);
        return { ...result, detail };
      }
      try {
        await this.sleep(Math.min(delay, left), this.signal);
      } catch (error) {
        if (this.signal?.aborted === true) throw new CallAbortedError(operation);
        throw error;
      }
      delay = Math.min(WATCH_MAX_DELAY_MS, delay * 2);
    }
  }

  /** Runs a confirmation; a failing read makes the outcome unknown. */
  private async tryConfirm(confirm: () => Promise<Confirmation>): Promise<Confirmation> {
    try {
      return await confirm();
    } catch (error) {
      return { outcome: 'unknown', detail: `the confirming read failed: ${errorMessage(error)}` };
    }
  }

  /** Runs a confirmation; a failing read makes the outcome unknown. Reports the result. */
  private async settle(
    callId: number,
    operation: WireCallName,
    confirm: () => Promise<Confirmation>,
  ): Promise<Confirmation> {
    const result = await this.tryConfirm(confirm);
    this.emit({ type: 'confirm', callId, operation, outcome: result.outcome, detail: result.detail });
    return result;
  }

  /** Remembers ids this client created, so a confirmation never attributes them to another call. */
  private claim(operation: WireCallName, answer: RawAnswer): void {
    if (operation === 'newguidegroup') {
      const id = toId64(answer['group_id']);
      if (id !== undefined) this.claims.add(id);
    } else if (operation === 'addguidemassendjob') {
      const results = answer['task_result'];
      if (!Array.isArray(results)) return;
      for (const result of results) {
        const id = isRecord(result) ? toId64(result['task_id']) : undefined;
        if (id !== undefined) this.claims.add(id);
      }
    }
  }

  private tokenHint(errcode: number): string {
    if (errcode === ERRCODE.accessTokenMissing) {
      return 'no access token reached the server (a proxy may strip the query string)';
    }
    if (this.fixedToken) {
      const { accessToken, appid, secret } = this.variables;
      const refused = `the fixed access token (${accessToken}) was refused: set a fresh one, or`;
      return this.appCredentialsSet
        ? `${refused} unset ${accessToken} so that ${appid} and ${secret}, which are set too, are used (the token takes precedence over them)`
        : `${refused} unset it and set ${appid} and ${secret} instead so that tokens are fetched and refreshed as needed`;
    }
    // A fresh token that expired, or one that lasts too little for a call to use it, is the
    // target's token lifetime, not another program replacing the tokens.
    const lifetime = this.tokens.lifetimeSeconds;
    if (
      lifetime !== undefined &&
      (errcode === ERRCODE.accessTokenExpired || lifetime < MIN_TOKEN_LIFETIME_SECONDS)
    ) {
      const how = errcode === ERRCODE.accessTokenExpired ? 'had expired' : 'was refused';
      return `a freshly fetched access token ${how} too by the time a call used it: the target's tokens last only ${formatCount(lifetime)} s (the expires_in of its token answer), too short for guidectl's calls; make the token lifetime longer (WeChat's last 7,200 s; for guidectl serve, --token-ttl SECONDS of ${MIN_TOKEN_LIFETIME_SECONDS} or more)`;
    }
    return 'a freshly fetched access token was refused too; check that no other program keeps resetting the tokens of this app';
  }
}

/**
 * The adaptive limit the options ask for (none unless `adaptive`), and the most calls that may be
 * in flight: its max, or the fixed parallelism.
 */
function adaptiveOf(
  options: GuideClientOptions,
  parallelism: number,
  clock: Clock,
  onLimit: (limit: number) => void,
): { readonly adaptive: AdaptiveConcurrency | undefined; readonly maxParallelism: number } {
  if (options.adaptive !== true) return { adaptive: undefined, maxParallelism: parallelism };
  const maxParallelism = checkPositiveInt(
    'maxParallelism',
    options.maxParallelism ?? Math.max(DEFAULT_MAX_PARALLELISM, parallelism),
  );
  if (maxParallelism < parallelism)
    throw new InvalidOptionsError(
      'maxParallelism',
      `createGuideClient: maxParallelism (${maxParallelism}) must not be below parallelism (${parallelism}), where adapting starts`,
    );
  return { adaptive: new AdaptiveConcurrency(parallelism, maxParallelism, clock, onLimit), maxParallelism };
}

/**
 * HTTP through undici, for a client not given a service in this process: undici is imported
 * here, on the client's creation, so that a program that never talks HTTP never loads it. The
 * proxy that applies is checked now (an unparseable proxy URL fails the creation, as undici's own
 * check did).
 */
function openHttpTransport(
  options: GuideClientOptions,
  base: URL,
  parallelism: number,
  timeoutMs: number,
): Promise<Transport> {
  const proxy = base.protocol === 'https:' ? options.proxy?.httpsProxy : options.proxy?.httpProxy;
  if (proxy !== undefined && proxy !== '') new URL(proxy);
  const given = options.dispatcher;
  const loading = import('./http-transport.js').then(
    ({ createDispatcher, HttpTransport }) =>
      new HttpTransport(
        base.origin,
        given ??
          createDispatcher({
            // One more than the calls in flight, for the token exchange.
            connections: parallelism + 1,
            connectTimeoutMs: Math.min(timeoutMs, 10_000),
            protocol: base.protocol,
            ...ifDefined('proxy', options.proxy),
          }),
        given === undefined,
      ),
  );
  // Told by the first call (or ignored by close) if it fails; never an unhandled rejection.
  loading.catch(() => {});
  return loading;
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
