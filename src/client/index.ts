export type { LostAnswerPolicy } from '../kinds/kind.js';
export {
  type ApiErrorKind,
  ApiUnauthorizedError,
  CallAbortedError,
  type CallName,
  CallOutcomeUnknownError,
  CredentialsError,
  GuideApiError,
  InvalidOptionsError,
  InvalidRequestError,
  MalformedAnswerError,
  QuotaExhaustedError,
  quotaUnreadable,
  TokenRejectedError,
  TransportError,
  type TransportErrorKind,
} from './call-errors.js';
export { eventLine, isThrottledTokenWait } from './event-line.js';
export type {
  CallEndEvent,
  CallStartEvent,
  ClientEvent,
  ConfirmEvent,
  HeldEvent,
  HttpEvent,
  RetryEvent,
  TokenRefreshEvent,
} from './events.js';
export {
  type Answered,
  type CallOptions,
  collect,
  createGuideClient,
  DEFAULT_BASE_URL,
  DEFAULT_PAGE_SIZE,
  DEFAULT_PARALLELISM,
  DEFAULT_SETTLE_MS,
  DEFAULT_SETTLE_WINDOW_MS,
  DEFAULT_TIMEOUT_MS,
  type GuideClient,
  type GuideClientOptions,
  type InProcessService,
  type RawAnswer,
} from './guide-client.js';
export type { ProxySettings } from './http-transport.js';
export type { Sleep } from './limiter.js';
export { lostAnswerPolicy, type WriteOperation } from './outcomes.js';
export { REDACTED, redactUrl } from './redact.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
export type { ClientAuth } from './tokens.js';
export { type Id64, isOperationName, OPERATION_NAMES, type OperationName, toId64 } from './wire-names.js';
