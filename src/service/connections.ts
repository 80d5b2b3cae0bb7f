import type { Socket } from 'node:net';

/**
 * Caps on open connections, below the process's open-file limit: past it, accepting fails
 * (EMFILE) and every client is refused until connections close, which idle floods exploit.
 */
export interface ConnectionLimits {
  /** Connections open at once, in all. */
  readonly total: number;
  /** Connections open at once from one client address. */
  readonly perAddress: number;
}

/** For the usual open-file limit of 1,024 (the CLI derives its caps from the real limit). */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { total: 768, perAddress: 384 };

/**
 * The time a request body may take to arrive (1 MiB at 100 KiB/s; a client's own bodies take
 * milliseconds): a slower one holds a connection and memory, and is refused.
 */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

/**
 * Caps from a soft open-file limit: four fifths of it less 32 (the database, its journal, the
 * standard streams and the runtime's own files need the rest), at most 10,000; half of that per
 * address.
 */
export function connectionLimitsFor(openFileLimit: number): ConnectionLimits {
  const total = Math.max(8, Math.min(10_000, Math.floor(openFileLimit * 0.8) - 32));
  return { total, perAddress: Math.max(4, Math.floor(total / 2)) };
}

/**
 * Holds the connections under the caps. A connection over a cap makes room by closing another
 * (of its address, for the per-address cap): the one idle the longest (it has sent no request
 * yet, or is a keep-alive connection between requests); failing that, the one whose request body
 * has been arriving the longest (a client that trickles a body holds the connection as long as
 * it likes: such a request has not been handled, so closing it loses nothing but its upload). A
 * connection whose request is being handled or answered is never closed; when all are, the new
 * connection is refused (closed at once). So a flood of idle or trickling connections costs its
 * sender its oldest connections, and clients that make requests keep being answered.
 */
export class ConnectionGuard {
  private readonly byAddress = new Map<string, Set<Socket>>();
  /** Idle connections, the one idle the longest first. */
  private readonly idle = new Set<Socket>();
  /** Connections whose request body is still arriving, the one receiving the longest first. */
  private readonly receiving = new Set<Socket>();
  private readonly busy = new Map<Socket, number>();
  private open = 0;

  constructor(private readonly limits: ConnectionLimits) {}

  get count(): number {
    return this.open;
  }

  /** A new connection: admitted (closing an idle or receiving one if a cap is reached) or closed. */
  admit(socket: Socket): void {
    const address = socket.remoteAddress ?? '';
    const mine = this.byAddress.get(address);
    if (mine !== undefined && mine.size >= this.limits.perAddress) {
      const victim = this.victim(mine);
      if (victim === undefined) {
        socket.destroy();
        return;
      }
      this.evict(victim);
    }
    if (this.open >= this.limits.total) {
      const victim = this.victim();
      if (victim === undefined) {
        socket.destroy();
        return;
      }
      this.evict(victim);
    }
    this.track(socket, address);
  }

  /** A request arrived on the connection (its headers); its body is still to come. */
  requestStarted(socket: Socket): void {
    if (!this.idle.delete(socket) && !this.busy.has(socket)) return; // not tracked (closed)
    this.busy.set(socket, (this.busy.get(socket) ?? 0) + 1);
    this.receiving.add(socket);
  }

  /** The request's body has arrived whole: from now on it is handled, and its connection kept. */
  bodyReceived(socket: Socket): void {
    this.receiving.delete(socket);
  }

  /** Its answer was sent (or the exchange ended). */
  requestEnded(socket: Socket): void {
    this.receiving.delete(socket);
    const n = this.busy.get(socket);
    if (n === undefined) return;
    if (n > 1) {
      this.busy.set(socket, n - 1);
      return;
    }
    this.busy.delete(socket);
    if (!socket.destroyed) this.idle.add(socket);
  }

  /**
   * The connection to close to make room: one idle, else one receiving a body (and handling
   * nothing else). Of all connections, the one idle (or receiving) the longest; of an address's
   * own (`mine`), the first in the order they connected, which is close enough and bounded by the cap.
   */
  private victim(mine?: ReadonlySet<Socket>): Socket | undefined {
    const receivingOnly = (socket: Socket): boolean =>
      this.receiving.has(socket) && this.busy.get(socket) === 1;
    if (mine === undefined) {
      const idle = this.idle.values().next().value;
      if (idle !== undefined) return idle;
      for (const socket of this.receiving) if (receivingOnly(socket)) return socket;
      return undefined;
    }
    for (const socket of mine) if (this.idle.has(socket)) return socket;
    for (const socket of mine) if (receivingOnly(socket)) return socket;
    return undefined;
  }

  private track(socket: Socket, address: string): void {
    let mine = this.byAddress.get(address);
    if (mine === undefined) {
      mine = new Set();
      this.byAddress.set(address, mine);
    }
    mine.add(socket);
    this.idle.add(socket);
    this.open++;
    socket.once('close', () => this.forget(socket, address));
  }

  private evict(socket: Socket): void {
    this.forget(socket, socket.remoteAddress ?? '');
    socket.destroy();
  }

  private forget(socket: Socket, address: string): void {
    const mine = this.byAddress.get(address);
    if (mine === undefined || !mine.delete(socket)) return;
    if (mine.size === 0) this.byAddress.delete(address);
    this.idle.delete(socket);
    this.receiving.delete(socket);
    this.busy.delete(socket);
    this.open--;
  }
}
