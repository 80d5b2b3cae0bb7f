/**
 * One request to a guide service as bytes, whatever carries it: HTTP (the service's server reads it
 * off a socket), or a client in the same process that hands it over directly (the embedded local
 * service). Both go through the same `ServiceHandler`, so both are answered by the same rules.
 */
export interface ServiceRequest {
  /** `POST` (every operation, `stable_token`) or `GET` (`/cgi-bin/token`). */
  readonly method: string;
  /** The path and query, as on an HTTP request line: `/cgi-bin/guide/getguideacct?access_token=…`. */
  readonly target: string;
  /**
   * Who is calling, for what the service counts per caller (failed token requests): the client's
   * address over HTTP, a name of the caller in-process.
   */
  readonly caller: string;
  /** The body as sent: JSON text in UTF-8, or empty. */
  readonly body: Buffer;
}

/**
 * A service's answer as bytes. The guide API answers HTTP 200 with a JSON body (`errcode`, or a
 * token), `content-type` and `content-length` among the headers (lower-case names).
 */
export interface ServiceAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/**
 * Answers one request. Resolves with undefined when the service drops the request unanswered
 * after acting on it (an injected lost answer, which HTTP shows as a reset connection). A failure
 * of a request is a `-1` answer. It rejects only once the service takes no more requests (it is
 * closing or closed), with an error whose `code` is `ECONNREFUSED`: a client takes it as a server
 * refusing connections (nothing was sent; retried as such). A handler that throws or rejects
 * otherwise has failed: a client in this process fails the call (`TransportError` of kind
 * `service`, what it threw the cause) without retrying it.
 */
export type ServiceHandler = (request: ServiceRequest) => Promise<ServiceAnswer | undefined>;
