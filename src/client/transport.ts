/**
 * How a request reaches a guide service and its answer comes back: over HTTP (`http-transport.ts`,
 * undici, loaded only when a client uses it) or handed to a service in this process
 * (`in-process-transport.ts`, the embedded local service). Everything above it — the JSON, tokens,
 * retries, timeouts, held writes, log events, the failures and their classes (`sender.ts`) — is
 * the client's, and the same for both.
 */
export interface Transport {
  /** Starts one exchange; how it ends is told by the exchange's `done`. */
  send(request: TransportRequest, check: AnswerCheck): TransportExchange;
  /** Waits for the exchanges in flight, then frees what the transport holds (its connections). */
  close(): Promise<void>;
}

/** One request as a transport carries it: a POST of JSON text. */
export interface TransportRequest {
  /** The path and query after the origin: `/cgi-bin/guide/getguideacct?access_token=…`. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** A backstop for the whole exchange, in ms (the sender's own timer ends it first). */
  readonly limitMs: number;
}

/** An answer's headers, lower-case names (as node:http gives them). */
export type AnswerHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * Sees an answer's status and headers before its body is read; a failure it returns ends the
 * exchange with it (an answer too large to read).
 */
export type AnswerCheck = (status: number, headers: AnswerHeaders) => Error | undefined;

/** One exchange under way. */
export interface TransportExchange {
  /** The answer's status and body text (see `answerText`), or the error that ended the exchange. */
  readonly done: Promise<{ status: number; text: string }>;
  /** The answer's status, once known. */
  readonly status: number | undefined;
  /** Ends the exchange with `reason`: at once if it is under way, else as soon as it starts. */
  abort(reason: Error): void;
}

/** The `code` of the failure of an exchange sent through a closed transport. */
export const TRANSPORT_CLOSED = 'TRANSPORT_CLOSED';

/**
 * The `code` of the failure of an exchange whose service failed while answering (a handler in this
 * process threw or rejected); its `cause` is what the handler threw.
 */
export const SERVICE_FAILED = 'SERVICE_FAILED';

/** An answer's body as text: UTF-8, a leading BOM skipped (as undici's `body.text()` does). */
export function answerText(bytes: Buffer | undefined): string {
  if (bytes === undefined) return '';
  const bom = bytes.length > 2 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return bytes.toString('utf8', bom ? 3 : 0);
}
