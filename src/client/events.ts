import type { WireCallName } from '../wire/operations.js';
import type { CallName } from './call-errors.js';

/**
 * What the client reports while it works, for progress displays and `--verbose` logs. A closed
 * union: consumers switch on `type` exhaustively. Nothing in an event holds a token or secret:
 * URLs are redacted, token exchanges carry no bodies, other bodies are scrubbed.
 */
export type ClientEvent =
  | CallStartEvent
  | CallEndEvent
  | RetryEvent
  | TokenRefreshEvent
  | ConfirmEvent
  | HeldEvent
  | HttpEvent;

/** A call of a guide operation begins (once per call, however many attempts it takes). */
export interface CallStartEvent {
  readonly type: 'call-start';
  /** Numbers the calls of one client, from 1. */
  readonly callId: number;
  readonly operation: WireCallName;
  readonly writes: boolean;
}

/** A call ends, in success or failure. */
export interface CallEndEvent {
  readonly type: 'call-end';
  readonly callId: number;
  readonly operation: WireCallName;
  readonly ok: boolean;
  /** How many times the request was sent. */
  readonly attempt: number;
  readonly durationMs: number;
  /** The errcode of the final answer, when there was one. */
  readonly errcode?: number;
  /** The `code` of the error thrown, when the call failed. */
  readonly errorCode?: string;
  /** True when success was established by a confirming read after a lost answer. */
  readonly confirmed?: boolean;
}

/** An attempt failed in a way worth retrying; the next one starts after `delayMs`. */
export interface RetryEvent {
  readonly type: 'retry';
  readonly callId: number;
  readonly operation: CallName;
  /** The attempt that failed (1 = the first). */
  readonly attempt: number;
  readonly delayMs: number;
  /** Why, in words: `-1 system busy`, `45011 per-minute quota reached`, `no answer in time`, `the connection was closed before the answer` (see `reasonInWords`). */
  readonly reason: string;
  readonly errcode?: number;
}

/** The client fetched an access token (`/cgi-bin/stable_token`). */
export interface TokenRefreshEvent {
  readonly type: 'token-refresh';
  /** `initial`: first use; `expiring`: the cached token neared its end; `rejected`: a call refused it. */
  readonly reason: 'initial' | 'expiring' | 'rejected';
  readonly ok: boolean;
  readonly durationMs: number;
  /** The errcode that made the client refresh (40001, 40014, 42001), for `rejected`. */
  readonly errcode?: number;
  /** Whether `force_refresh` was asked for (the previous token was refused and re-issued). */
  readonly forced: boolean;
}

/** A lost answer of a write was settled by reading: applied, not applied, or unknown. */
export interface ConfirmEvent {
  readonly type: 'confirm';
  readonly callId: number;
  readonly operation: WireCallName;
  readonly outcome: 'applied' | 'not-applied' | 'unknown';
  readonly detail: string;
}

/**
 * A write's attempt got no answer within the timeout. The server may still be working on it, so
 * the client keeps waiting for that answer (up to `settleMs` more) instead of resending, and
 * nothing that depends on the call starts meanwhile.
 */
export interface HeldEvent {
  readonly type: 'held';
  readonly callId: number;
  readonly operation: WireCallName;
  readonly timeoutMs: number;
  readonly settleMs: number;
}

/** One HTTP exchange (for `--verbose`). */
export interface HttpEvent {
  readonly type: 'http';
  readonly method: 'GET' | 'POST';
  /** The URL with the access token replaced by `REDACTED`. */
  readonly url: string;
  readonly durationMs: number;
  /** Absent when no answer arrived. */
  readonly status?: number;
  /** The request body; absent for token exchanges (they carry the app secret). */
  readonly requestBody?: string;
  /** The answer body, scrubbed; absent for token exchanges (they carry the token). */
  readonly responseBody?: string;
  /** How the exchange failed, when it did. */
  readonly error?: string;
}
