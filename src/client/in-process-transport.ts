import { errorCode } from '../core/errors.js';
import { InFlight } from '../core/in-flight.js';
import type { ServiceAnswer, ServiceHandler } from '../wire/exchange.js';
import {
  type AnswerCheck,
  answerText,
  SERVICE_FAILED,
  TRANSPORT_CLOSED,
  type Transport,
  type TransportExchange,
  type TransportRequest,
} from './transport.js';

/** A failure with the `code` the sender classifies, as a network error carries one. */
class ExchangeFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * What a handler's rejection (or throw) ends the exchange with. A closed service rejects with the
 * code of a server that refuses connections (`ECONNREFUSED`, see `ServiceHandler`), and is told
 * as one; anything else is a failure of the service (`SERVICE_FAILED`), what it threw the cause.
 */
function handlerFailure(error: unknown): unknown {
  if (errorCode(error) === 'ECONNREFUSED') return error;
  return new ExchangeFailure(SERVICE_FAILED, 'the service failed while answering', { cause: error });
}

/**
 * Requests handed to a guide service in this process (the embedded local service): the same
 * bytes an HTTP request would carry, given to the service's handler, its answer's bytes read as
 * an HTTP answer's would be. No socket, no HTTP parser, no undici. A request the service drops
 * unanswered (an injected lost answer) fails as a reset connection does (`ECONNRESET`); a closed
 * service refuses as a closed server does (`ECONNREFUSED`); a handler that throws or rejects
 * otherwise fails the exchange with `SERVICE_FAILED` (never retried).
 */
export class InProcessTransport implements Transport {
  /** The exchanges under way: `close` waits for them, and lets no more in. */
  private readonly exchanges = new InFlight();

  /** `caller` is who the service is told calls (what it counts failed token requests by). */
  constructor(
    private readonly handle: ServiceHandler,
    private readonly caller: string,
  ) {}

  send(request: TransportRequest, check: AnswerCheck): TransportExchange {
    if (!this.exchanges.enter()) {
      const refused = new InProcessExchange(check, () => {});
      refused.fail(new ExchangeFailure(TRANSPORT_CLOSED, 'the transport is closed'));
      return refused;
    }
    const exchange = new InProcessExchange(check, () => this.exchanges.leave());
    const body = Buffer.from(request.body, 'utf8');
    // A turn of the event loop before the service sees the request, as a network hop takes:
    // without it a run of calls answered at once would chain in microtasks, and a signal (Ctrl-C),
    // a timer or the progress display would wait for the whole run.
    setImmediate(() => {
      if (exchange.ended) return;
      // Called inside a promise: a handler that throws at once fails the exchange as one that
      // rejects does, instead of throwing out of this callback (which would end the process).
      Promise.resolve()
        .then(() => this.handle({ method: 'POST', target: request.path, caller: this.caller, body }))
        .then(
          (answer) => exchange.answer(answer),
          (error: unknown) => exchange.fail(handlerFailure(error)),
        );
    });
    return exchange;
  }

  /** Refuses new requests, then waits for those under way to end. */
  close(): Promise<void> {
    return this.exchanges.close();
  }
}

class InProcessExchange implements TransportExchange {
  readonly done: Promise<{ status: number; text: string }>;
  status: number | undefined;
  ended = false;
  private resolve: (answer: { status: number; text: string }) => void = () => {};
  private reject: (error: unknown) => void = () => {};

  constructor(
    private readonly check: AnswerCheck,
    private readonly onEnd: () => void,
  ) {
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /**
   * Ends the exchange with `reason`. The service may still act on a request it was handed (as a
   * server does on a request whose connection closed): only its answer is no longer waited for.
   */
  abort(reason: Error): void {
    this.fail(reason);
  }

  answer(answer: ServiceAnswer | undefined): void {
    if (this.ended) return;
    if (answer === undefined) {
      this.fail(new ExchangeFailure('ECONNRESET', 'the service dropped the request unanswered'));
      return;
    }
    this.status = answer.status;
    const failure = this.check(answer.status, answer.headers);
    if (failure !== undefined) {
      this.fail(failure);
      return;
    }
    this.end();
    this.resolve({ status: answer.status, text: answerText(answer.body) });
  }

  fail(error: unknown): void {
    if (this.ended) return;
    this.end();
    this.reject(error);
  }

  private end(): void {
    this.ended = true;
    this.onEnd();
  }
}
