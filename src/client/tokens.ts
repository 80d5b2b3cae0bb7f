import type { Clock } from '../core/clock.js';
import type { CredentialVariables } from '../core/credential-variables.js';
import { ifDefined, isRecord } from '../core/records.js';
import { ERRCODE } from '../wire/errcodes.js';
import { stringifyJson } from '../wire/json.js';
import {
  ApiUnauthorizedError,
  apiErrorKind,
  CallAbortedError,
  CredentialsError,
  GuideApiError,
  MalformedAnswerError,
  QuotaExhaustedError,
  reasonInWords,
  TransportError,
} from './call-errors.js';
import type { ClientEvent } from './events.js';
import type { Sleep } from './limiter.js';
import type { SecretSet } from './redact.js';
import { RetryBudget, type RetryPolicy, retryCauseOf } from './retry.js';
import type { Sender } from './sender.js';

/**
 * How the client authenticates: a fixed access token (`WECHAT_ACCESS_TOKEN`), or app credentials
 * (`WECHAT_APPID`, `WECHAT_SECRET`) exchanged for tokens at `/cgi-bin/stable_token`.
 */
export type ClientAuth =
  | { readonly accessToken: string }
  | { readonly appid: string; readonly secret: string };

/** Where the client's access tokens come from. */
export interface TokenSource {
  /** The token to send now. */
  current(): Promise<string>;
  /**
   * A call was refused with `rejected` (40001, 40014, 42001): a different token to retry with, or
   * undefined when none can be had (a fixed token).
   */
  renew(rejected: string, errcode: number): Promise<string | undefined>;
  /** Whether `renew` can ever give a new token. */
  readonly renewable: boolean;
  /** The `expires_in` of the last token fetched, in seconds; undefined before one (or for a fixed token). */
  readonly lifetimeSeconds?: number | undefined;
}

/** A token given by the user: used as is, never refreshed. */
export class FixedTokenSource implements TokenSource {
  readonly renewable = false;

  constructor(private readonly token: string) {}

  current(): Promise<string> {
    return Promise.resolve(this.token);
  }

  renew(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }
}

export interface StableTokenOptions {
  readonly appid: string;
  readonly secret: string;
  readonly sender: Sender;
  readonly clock: Clock;
  readonly policy: RetryPolicy;
  readonly random: () => number;
  readonly sleep: Sleep;
  readonly secrets: SecretSet;
  readonly signal?: AbortSignal;
  readonly emit: (event: ClientEvent) => void;
  /** For the hint of a refused appid or secret. */
  readonly variables: CredentialVariables;
}

const CREDENTIAL_ERRCODES: ReadonlySet<number> = new Set([
  ERRCODE.invalidAppid,
  ERRCODE.invalidSecret,
  ERRCODE.ipNotAllowed,
  ERRCODE.ipNotInWhitelist,
  ERRCODE.invalidGrantType,
]);

/**
 * A token that lasts less than this (its `expires_in`) is too short for a call with its retries:
 * a fresh token then refused is told as the target's token lifetime. WeChat's last 7,200 s.
 */
export const MIN_TOKEN_LIFETIME_SECONDS = 60;

/** A token is renewed ahead of its end by this much, or half its life if that is shorter. */
const RENEW_AHEAD_MS = 300_000;

/**
 * Tokens from `/cgi-bin/stable_token`: fetched on first use, cached until shortly before they
 * expire (by the client's clock), and fetched again when a call is refused. One fetch at a time:
 * concurrent callers share it. After a refusal the client first asks without `force_refresh`
 * (the server may already hold a newer token); only if it hands back the refused token again does
 * it ask with `force_refresh: true` (limited per day by WeChat, so used sparingly).
 */
export class StableTokenSource implements TokenSource {
  readonly renewable = true;
  private token: string | undefined;
  private expiresAt = 0;
  private renewAt = 0;
  private inflight: Promise<string> | undefined;
  lifetimeSeconds: number | undefined;

  constructor(private readonly options: StableTokenOptions) {
    options.secrets.add(options.secret);
  }

  async current(): Promise<string> {
    if (this.token !== undefined && this.options.clock.now() < this.renewAt) return this.token;
    if (this.inflight !== undefined) return this.inflight;
    return this.fetchShared(this.token === undefined ? 'initial' : 'expiring', false, undefined);
  }

  async renew(rejected: string, errcode: number): Promise<string | undefined> {
    if (this.inflight !== undefined) await this.inflight.catch(() => undefined);
    if (this.token !== undefined && this.token !== rejected && this.options.clock.now() < this.expiresAt) {
      return this.token;
    }
    let token = await this.fetchShared('rejected', false, errcode);
    if (token === rejected) token = await this.fetchShared('rejected', true, errcode);
    return token === rejected ? undefined : token;
  }

  private fetchShared(
    reason: 'initial' | 'expiring' | 'rejected',
    force: boolean,
    errcode: number | undefined,
  ): Promise<string> {
    if (this.inflight !== undefined && !force) return this.inflight;
    const fetching = this.fetch(reason, force, errcode).finally(() => {
      if (this.inflight === fetching) this.inflight = undefined;
    });
    this.inflight = fetching;
    return fetching;
  }

  private async fetch(
    reason: 'initial' | 'expiring' | 'rejected',
    force: boolean,
    errcode: number | undefined,
  ): Promise<string> {
    const { sender, clock, policy, random, sleep, secrets, signal, emit } = this.options;
    const started = performance.now();
    const report = (ok: boolean): void =>
      emit({
        type: 'token-refresh',
        reason,
        ok,
        durationMs: Math.round(performance.now() - started),
        forced: force,
        ...ifDefined('errcode', errcode),
      });
    const body = stringifyJson({
      grant_type: 'client_credential',
      appid: this.options.appid,
      secret: this.options.secret,
      force_refresh: force,
    });
    // The exchange is safe to repeat: it is retried as a read is.
    const budget = new RetryBudget(policy, clock, random, 'read');
    for (;;) {
      const attempt = budget.countAttempt();
      let failure: GuideApiError | TransportError;
      try {
        const answer = await sender.post('stable_token', '/cgi-bin/stable_token', {}, body, true);
        const parsed = this.read(answer.body);
        if ('token' in parsed) {
          const now = clock.now();
          const lifetime = parsed.expiresIn * 1000;
          this.token = parsed.token;
          this.lifetimeSeconds = parsed.expiresIn;
          this.expiresAt = now + lifetime;
          this.renewAt = now + lifetime - Math.min(RENEW_AHEAD_MS, lifetime / 2);
          secrets.add(parsed.token);
          report(true);
          return parsed.token;
        }
        failure = parsed.error;
      } catch (error) {
        if (!(error instanceof TransportError)) {
          report(false);
          throw error;
        }
        failure = error;
      }
      const cause = retryCauseOf(failure, sender.reached);
      const delay = cause === undefined ? undefined : budget.nextDelay(cause);
      if (delay === undefined) {
        report(false);
        if (cause === undefined || attempt <= 1) throw failure;
        if (failure instanceof TransportError) throw failure.withAttempts(attempt, budget.elapsedMs());
        throw new GuideApiError({
          operation: 'stable_token',
          errcode: failure.errcode,
          errmsg: failure.errmsg,
          attempts: attempt,
          elapsedMs: budget.elapsedMs(),
        });
      }
      emit({
        type: 'retry',
        callId: 0,
        operation: 'stable_token',
        attempt,
        delayMs: delay,
        reason: failure instanceof TransportError ? reasonInWords(failure.reason) : `${failure.errcode}`,
        ...(failure instanceof GuideApiError ? { errcode: failure.errcode } : {}),
      });
      try {
        await sleep(delay, signal);
      } catch (error) {
        // As a call's own retry does: a stop while waiting is the caller's, not a failure of the exchange.
        if (signal?.aborted === true) throw new CallAbortedError('stable_token');
        throw error;
      }
    }
  }

  /** The token of an answer, or the error it stands for. */
  private read(value: unknown): { token: string; expiresIn: number } | { error: GuideApiError } {
    if (!isRecord(value)) throw new MalformedAnswerError('stable_token', '', 'is not a JSON object');
    const code = value['errcode'];
    if (code !== undefined && code !== 0) {
      if (typeof code !== 'number')
        throw new MalformedAnswerError('stable_token', 'errcode', 'must be a number');
      const rawMsg = value['errmsg'];
      const errmsg = this.options.secrets.scrub(typeof rawMsg === 'string' ? rawMsg : '');
      const init = { operation: 'stable_token' as const, errcode: code, errmsg };
      if (CREDENTIAL_ERRCODES.has(code)) return { error: new CredentialsError(init, this.options.variables) };
      if (code === ERRCODE.dailyQuota) return { error: new QuotaExhaustedError(init) };
      if (code === ERRCODE.apiUnauthorized) return { error: new ApiUnauthorizedError(init) };
      return { error: new GuideApiError(init, apiErrorKind(code)) };
    }
    const token = value['access_token'];
    const expiresIn = value['expires_in'];
    if (typeof token !== 'string' || token === '')
      throw new MalformedAnswerError('stable_token', 'access_token', 'is missing');
    if (typeof expiresIn !== 'number' || !(expiresIn > 0))
      throw new MalformedAnswerError('stable_token', 'expires_in', 'must be a positive number');
    return { token, expiresIn };
  }
}
