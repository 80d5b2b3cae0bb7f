import { type CredentialVariables, WECHAT_VARIABLES } from '../core/credential-variables.js';
import { GuidectlError } from '../core/errors.js';
import { ifDefined } from '../core/records.js';
import { ERRCODE, ERRCODE_MEANING } from '../wire/errcodes.js';
import type { WireCallName } from '../wire/operations.js';

export { InvalidRequestError, MalformedAnswerError } from '../wire/shape-errors.js';

/**
 * The errors the client throws. Every class has a stable `code`; messages are for people and
 * read `<operation> failed: <errcode> — <meaning>[: <detail from errmsg>][; <what to do>]`. No
 * message ever holds an access token or an app secret: URLs are redacted and the texts of the
 * remote side are scrubbed of every secret the client knows before they reach an error.
 */

/** What a call was: a guide operation, an account call (`quota/get`), or the token exchange. */
export type CallName = WireCallName | 'stable_token';

/**
 * How the client treats an error answer:
 * - `busy` (-1) and `minute-quota` (45011): retried with backoff, then reported;
 * - `daily-quota` (45009), `credentials`, `unauthorized`: reported at once, with what to do;
 * - `token`: the token was refused even after a fresh one was fetched (or cannot be refreshed);
 * - `call`: everything else: the call itself was refused (bad arguments, missing guide, ...).
 */
export type ApiErrorKind =
  | 'busy'
  | 'minute-quota'
  | 'daily-quota'
  | 'credentials'
  | 'unauthorized'
  | 'token'
  | 'call';

// -1 is not quiet: the real API says only "system error" (dropped below as generic), but a
// service that knows why it failed (its disk is full) says so, and that is what the user needs.
const QUIET_ERRMSG_CODES: ReadonlySet<number> = new Set([
  ERRCODE.minuteQuota,
  ERRCODE.dailyQuota,
  ERRCODE.invalidCredential,
  ERRCODE.invalidAccessToken,
  ERRCODE.accessTokenExpired,
  ERRCODE.accessTokenMissing,
  ERRCODE.apiUnauthorized,
]);

/** Generic prefixes of errmsg texts that only restate the meaning of the code. */
const GENERIC_PREFIXES = [
  'invalid args',
  'invalid arguments',
  'missing parameter',
  'data format error',
  'system error',
];

/**
 * The part of an errmsg that adds to the meaning of its code (which field, which limit), or
 * undefined. Real errmsg texts end in ` rid: …` or carry `hints: […]`; those are dropped.
 */
export function errmsgDetail(errcode: number, errmsg: string): string | undefined {
  if (QUIET_ERRMSG_CODES.has(errcode)) return undefined;
  let text = errmsg
    .replace(/\s*rid:\s*\S+\s*$/i, '')
    .replace(/\s*,?\s*hints?:\s*\[[^\]]*\]\s*/i, ' ')
    .trim();
  const meaning = (ERRCODE_MEANING[errcode] ?? '').toLowerCase();
  for (const prefix of [meaning, ...GENERIC_PREFIXES]) {
    if (prefix !== '' && text.toLowerCase().startsWith(prefix)) {
      text = text.slice(prefix.length).replace(/^[\s:,-]+/, '');
      break;
    }
  }
  if (/^\(.*\)$/.test(text)) text = text.slice(1, -1).trim();
  // "invalid appsecret" adds nothing to "invalid app secret".
  const bare = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  if (bare(text) === '' || bare(text) === 'ok' || bare(text) === bare(meaning)) return undefined;
  return text;
}

function attemptsNote(attempts: number, elapsedMs: number | undefined): string {
  if (attempts <= 1) return '';
  const time = elapsedMs === undefined ? '' : ` in ${(elapsedMs / 1000).toFixed(1)} s`;
  return ` (gave up after ${attempts} attempts${time})`;
}

export interface ApiErrorInit {
  readonly operation: CallName;
  readonly errcode: number;
  /** The remote errmsg, already scrubbed of secrets. */
  readonly errmsg: string;
  /** What the user should do, when the code calls for it. */
  readonly hint?: string;
  readonly attempts?: number;
  readonly elapsedMs?: number;
}

/** The guide API answered a call with a non-zero `errcode`. */
export class GuideApiError extends GuidectlError {
  override readonly code: string = 'GUIDE_API_ERROR';
  readonly operation: CallName;
  readonly errcode: number;
  readonly errmsg: string;
  readonly kind: ApiErrorKind;
  /** How many times the call was sent. */
  readonly attempts: number;

  constructor(init: ApiErrorInit, kind: ApiErrorKind = apiErrorKind(init.errcode)) {
    const meaning = ERRCODE_MEANING[init.errcode] ?? 'unknown error code';
    const detail = errmsgDetail(init.errcode, init.errmsg);
    super(
      `${init.operation} failed: ${init.errcode} — ${meaning}${detail === undefined ? '' : `: ${detail}`}` +
        `${init.hint === undefined ? '' : `; ${init.hint}`}${attemptsNote(init.attempts ?? 1, init.elapsedMs)}`,
    );
    this.operation = init.operation;
    this.errcode = init.errcode;
    this.errmsg = init.errmsg;
    this.kind = kind;
    this.attempts = init.attempts ?? 1;
  }
}

/** 45009: the daily quota of the API is used up. Never retried: it will not help today. */
export class QuotaExhaustedError extends GuideApiError {
  override readonly code = 'GUIDE_QUOTA_EXHAUSTED';

  constructor(init: Omit<ApiErrorInit, 'hint'>) {
    super(
      {
        ...init,
        hint:
          'the daily call quota of this API is used up and retrying today will not help: wait until ' +
          'it resets (midnight, Beijing time) or have an administrator reset it (/cgi-bin/clear_quota)',
      },
      'daily-quota',
    );
  }
}

/** 40013, 40125, 40164, 61004: the app credentials, or the caller's IP, are refused. */
export class CredentialsError extends GuideApiError {
  override readonly code = 'GUIDE_CREDENTIALS';

  /** `variables`: where the appid and secret were read from, for the hint. */
  constructor(
    init: Omit<ApiErrorInit, 'hint'>,
    variables: Pick<CredentialVariables, 'appid' | 'secret'> = WECHAT_VARIABLES,
  ) {
    super({ ...init, hint: credentialsHint(init.errcode, variables) }, 'credentials');
  }
}

function credentialsHint(
  errcode: number,
  { appid, secret }: Pick<CredentialVariables, 'appid' | 'secret'>,
): string {
  switch (errcode) {
    case ERRCODE.invalidAppid:
      return `check the app id (${appid})`;
    case ERRCODE.invalidSecret:
      return `check the app secret (${secret}); it changes whenever it is reset in the Official Account console`;
    case ERRCODE.ipNotAllowed:
    case ERRCODE.ipNotInWhitelist:
      return (
        "add this machine's public IP address to the account's API IP whitelist (Official Account " +
        'console → Settings and Development → Basic Configuration)'
      );
    default:
      return `check the app id and secret (${appid}, ${secret})`;
  }
}

/** 48001 (API not authorized) or 9300802 (guide feature not enabled) for this account. */
export class ApiUnauthorizedError extends GuideApiError {
  override readonly code = 'GUIDE_API_UNAUTHORIZED';

  constructor(init: Omit<ApiErrorInit, 'hint'>) {
    super(
      {
        ...init,
        hint:
          init.errcode === ERRCODE.guideNotEnabled
            ? 'enable the shopping-guide feature (导购助手) for this account in the Official Account console'
            : 'this account may not use the guide API: it needs a verified service account with the shopping-guide feature',
      },
      'unauthorized',
    );
  }
}

/** The access token was refused (40001, 40014, 42001, 41001) and a fresh one did not help. */
export class TokenRejectedError extends GuideApiError {
  override readonly code = 'GUIDE_TOKEN_REJECTED';

  constructor(init: ApiErrorInit) {
    super(init, 'token');
  }
}

export function apiErrorKind(errcode: number): ApiErrorKind {
  switch (errcode) {
    case ERRCODE.systemBusy:
      return 'busy';
    case ERRCODE.minuteQuota:
      return 'minute-quota';
    case ERRCODE.dailyQuota:
      return 'daily-quota';
    case ERRCODE.invalidAppid:
    case ERRCODE.invalidSecret:
    case ERRCODE.ipNotAllowed:
    case ERRCODE.ipNotInWhitelist:
      return 'credentials';
    case ERRCODE.apiUnauthorized:
    case ERRCODE.guideNotEnabled:
      return 'unauthorized';
    case ERRCODE.invalidCredential:
    case ERRCODE.invalidAccessToken:
    case ERRCODE.accessTokenExpired:
    case ERRCODE.accessTokenMissing:
      return 'token';
    default:
      return 'call';
  }
}

/**
 * How a call failed below the API:
 * - `refused`: no connection could be made (refused, unknown host, connect timeout): the request
 *   was never sent;
 * - `timeout`: no complete answer within the call's timeout;
 * - `connection`: the connection broke (reset, closed) before the answer arrived;
 * - `http`: an HTTP answer that is not a guide API answer (e.g. 502 from a proxy);
 * - `invalid-answer`: the answer is not JSON;
 * - `service`: a service in this process (`inProcess`) failed while answering: its handler threw
 *   or rejected (other than as a closed service). Not retried; what it threw is the `cause`.
 */
export type TransportErrorKind = 'refused' | 'timeout' | 'connection' | 'http' | 'invalid-answer' | 'service';

export interface TransportErrorInit {
  readonly operation: CallName;
  readonly kind: TransportErrorKind;
  /** What happened, in words, with no URL query and no secret. */
  readonly description: string;
  /** The low-level code, e.g. `ECONNRESET`, `UND_ERR_SOCKET`, or `HTTP 502`. */
  readonly reason: string;
  /** Whether the request may have reached the server (false only when no connection was made). */
  readonly sent: boolean;
  readonly status?: number;
  readonly attempts?: number;
  readonly elapsedMs?: number;
  /** Only for kind `service`: what the handler in this process threw. */
  readonly cause?: unknown;
}

/**
 * What a low-level failure code (a `TransportError`'s `reason`) means, in words, for messages and
 * retry reasons: undici's own codes (`UND_ERR_SOCKET`) mean nothing to a user, and the system's
 * (`ECONNRESET`) little more. A code not known here is said as it is.
 */
const REASON_WORDS: Readonly<Record<string, string>> = {
  UND_ERR_SOCKET: 'the connection was closed before the answer',
  ECONNRESET: 'the connection was reset before the answer',
  EPIPE: 'the connection was closed while the request was sent',
  ECONNREFUSED: 'the connection was refused',
  ENOTFOUND: 'the host name was not found',
  EAI_AGAIN: 'the host name could not be looked up',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
  EADDRNOTAVAIL: 'the address is not available',
  UND_ERR_CONNECT_TIMEOUT: 'the connection could not be made in time',
  UND_ERR_HEADERS_TIMEOUT: 'no answer in time',
  UND_ERR_BODY_TIMEOUT: 'the answer stopped arriving',
  ETIMEDOUT: 'the connection timed out',
  timeout: 'no answer in time',
};

/** How a call whose answer was lost by `reason` is told: `the answer was lost (no answer in time)`. */
export function answerLost(reason: string): string {
  return `the answer was lost (${reasonInWords(reason)})`;
}

export function reasonInWords(reason: string): string {
  return (
    REASON_WORDS[reason] ??
    (reason.startsWith('UND_ERR_') ? 'the connection failed before the answer' : reason)
  );
}

/**
 * The network failed the call. Carries no `cause` (low-level errors can hold the request URL, and
 * with it the access token), except for kind `service`: the error of the caller's own handler.
 */
export class TransportError extends GuidectlError {
  override readonly code = 'GUIDE_TRANSPORT';
  readonly operation: CallName;
  readonly kind: TransportErrorKind;
  readonly reason: string;
  readonly sent: boolean;
  readonly status: number | undefined;
  readonly attempts: number;
  readonly description: string;

  constructor(init: TransportErrorInit) {
    super(
      `${init.operation} failed: ${init.description}${codeNote(init.reason)}${attemptsNote(init.attempts ?? 1, init.elapsedMs)}`,
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.operation = init.operation;
    this.kind = init.kind;
    this.reason = init.reason;
    this.sent = init.sent;
    this.status = init.status;
    this.attempts = init.attempts ?? 1;
    this.description = init.description;
  }

  /** The same failure, reported after `attempts` tries. */
  withAttempts(attempts: number, elapsedMs: number): TransportError {
    return new TransportError({
      operation: this.operation,
      kind: this.kind,
      description: this.description,
      reason: this.reason,
      sent: this.sent,
      ...ifDefined('status', this.status),
      ...ifDefined('cause', this.cause),
      attempts,
      elapsedMs,
    });
  }
}

/**
 * The code after a transport failure's description, ` (ECONNREFUSED)`, for a search or a support
 * request; none for undici's own codes (in words in the description) and for a plain timeout.
 */
function codeNote(reason: string): string {
  return reason.startsWith('UND_ERR_') || reason === 'timeout' ? '' : ` (${reason})`;
}

/**
 * A write whose answer was lost (connection broken, timeout) and whose effect could not be
 * settled: it may or may not have taken effect. Repeating it blindly could apply it twice, so the
 * client stops and says so; read the live state (e.g. `guidectl plan`) before trying again.
 */
export class CallOutcomeUnknownError extends GuidectlError {
  override readonly code = 'GUIDE_OUTCOME_UNKNOWN';
  readonly operation: WireCallName;
  readonly attempts: number;

  constructor(operation: WireCallName, why: string, attempts: number) {
    super(
      `${operation} failed: the outcome is unknown: ${why}; the call may have taken effect, so check the ` +
        'live state (e.g. guidectl plan) before repeating it',
    );
    this.operation = operation;
    this.attempts = attempts;
  }
}

/** The call was stopped by the caller's abort signal (e.g. Ctrl-C), or the client was closed. */
export class CallAbortedError extends GuidectlError {
  override readonly code = 'GUIDE_ABORTED';
  readonly operation: CallName;
  /** True when a request was on the wire when it was stopped (a write may then have taken effect). */
  readonly inFlight: boolean;

  constructor(operation: CallName, why = 'stopped before it finished', inFlight = false) {
    super(`${operation} failed: ${why}`);
    this.operation = operation;
    this.inFlight = inFlight;
  }
}

/**
 * An option given to `createGuideClient` is missing or unusable (`option` names it, such as
 * `auth.appid`). Thrown at once, before anything is sent: a JavaScript caller gets no type check,
 * and a credential read from an unset variable arrives as undefined.
 */
export class InvalidOptionsError extends GuidectlError {
  override readonly code = 'GUIDE_INVALID_OPTIONS';
  readonly option: string;

  constructor(option: string, message: string) {
    super(message);
    this.option = option;
  }
}

/**
 * Why a failed `quota/get` says only that the target does not answer it, in a few words
 * (`HTTP 404`, `40066 invalid url`): an unknown path (40066, 76021) or an HTTP 404, as from a
 * service or gateway that serves the guide API alone. Undefined for any other failure. Such a
 * target is planned and applied as if it kept no quotas.
 */
export function quotaUnreadable(error: unknown): string | undefined {
  if (
    error instanceof GuideApiError &&
    (error.errcode === ERRCODE.invalidUrl || error.errcode === ERRCODE.unknownCgiPath)
  )
    return `${error.errcode} ${ERRCODE_MEANING[error.errcode] ?? ''}`.trim();
  if (error instanceof TransportError && error.kind === 'http' && error.status === 404) return 'HTTP 404';
  return undefined;
}
