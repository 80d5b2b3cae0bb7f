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
 * Caps from a soft open-file limit: four fifths of it less 32 (the database, its journal, the
 * standard streams and the runtime's own files need the rest), at most 10,000; half of that per
 * address.
 */
export function connectionLimitsFor(openFileLimit: number): ConnectionLimits {
  const total = Math.max(8, Math.min(10_000, Math.floor(openFileLimit * 0.8) - 32));
  return { total, perAddress: Math.max(4, Math.floor(total / 2)) };
}

/**
 * Holds the connections under the caps. A connection over a cap makes room by closing the
 * connection idle the longest (of its address, for the per-address cap): one that has sent no
 * request yet, or a keep-alive connection between requests. A connection with a request in
 * flight is never closed; when all are busy, the new connection is refused (closed at once).
 * So a flood of idle connections costs its sender its oldest connections, and clients that
 * make requests keep being answered.
 */
export class ConnectionGuard {
  private readonly byAddress = new Map<string, Set<Socket>>();
  /** Idle connections, the one idle the longest first. */
  private readonly idle = new Set<Socket>();
  private readonly busy = new Map<Socket, number>();
  private open = 0;

  constructor(private readonly limits: ConnectionLimits) {}

  get count(): number {
    return this.open;
  }

  /** A new connection: admitted (closing an idle one if a cap is reached) or closed. */
  admit(socket: Socket): void {
    const address = socket.remoteAddress ?? '';
    const mine = this.byAddress.get(address);
    if (mine !== undefined && mine.size >= this.limits.perAddress) {
      const victim = this.oldestIdle(mine);
      if (victim === undefined) {
        socket.destroy();
        return;
      }
      this.evict(victim);
    }
    if (this.open >= this.limits.total) {
      const victim = this.idle.values().next().value;
      if (victim === undefined) {
        socket.destroy();
        return;
      }
      this.evict(victim);
    }
    this.track(socket, address);
  }

  /** A request arrived on the connection. */
  requestStarted(socket: Socket): void {
    if (!this.idle.delete(socket) && !this.busy.has(socket)) return; // not tracked (closed)
    this.busy.set(socket, (this.busy.get(socket) ?? 0) + 1);
  }

  /** Its answer was sent (or the exchange ended). */
  requestEnded(socket: Socket): void {
    const n = this.busy.get(socket);
    if (n === undefined) return;
    if (n > 1) {
      this.busy.set(socket, n - 1);
      return;
    }
    this.busy.delete(socket);
    if (!socket.destroyed) this.idle.add(socket);
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

  private oldestIdle(mine: ReadonlySet<Socket>): Socket | undefined {
    // The address's own connections, oldest first; the first idle one has been idle longest
    // among those that connected earliest, which is close enough and bounded by the cap.
    for (const socket of mine) if (this.idle.has(socket)) return socket;
    return undefined;
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
    this.busy.delete(socket);
    this.open--;
  }
}
