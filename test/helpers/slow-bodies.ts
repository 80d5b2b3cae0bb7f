import { connect, type Socket } from 'node:net';

/** A request whose body trickles in and never ends, on a connection of its own. */
export interface SlowBody {
  readonly socket: Socket;
  /** What the service sent back so far (after its `100 Continue`). */
  answer(): string;
  /** Resolves once the connection is closed (by the service, or by `stop`). */
  readonly closed: Promise<void>;
}

/**
 * Opens `n` connections from `localAddress` to the service at `url`, each a guide call whose
 * body never ends: it sends its headers (chunked, `expect: 100-continue`), waits until the service
 * has taken the request (its `100 Continue`), sends `first` bytes of the body at once, then one
 * byte every `everyMs`. Resolves once every request was taken or its connection closed; `stop`
 * ends the trickle and closes what is left.
 */
export async function openSlowBodies(
  url: string,
  token: string,
  n: number,
  options: { localAddress?: string; first?: number; everyMs?: number } = {},
): Promise<{ bodies: SlowBody[]; open(): number; stop(): void }> {
  const { hostname, port } = new URL(url);
  const first = Buffer.alloc(options.first ?? 0, 0x20);
  // One chunk declared larger than will ever be sent (JSON whitespace), so the body never ends.
  const chunkHeader = `${(first.length + 1_000_000).toString(16)}\r\n`;
  const bodies: SlowBody[] = [];
  const live = new Set<Socket>();
  const taken = Array.from({ length: n }, async () => {
    const socket = connect({
      host: hostname,
      port: Number(port),
      ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
    });
    socket.setEncoding('latin1');
    socket.on('error', () => {});
    live.add(socket);
    let text = '';
    const closed = new Promise<void>((resolve) =>
      socket.once('close', () => {
        live.delete(socket);
        resolve();
      }),
    );
    bodies.push({ socket, answer: () => text.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, ''), closed });
    socket.write(
      `POST /cgi-bin/guide/getguidegrouplist?access_token=${encodeURIComponent(token)} HTTP/1.1\r\n` +
        'host: service\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n' +
        'expect: 100-continue\r\n\r\n',
    );
    await new Promise<void>((resolve) => {
      socket.on('data', (chunk: string) => {
        text += chunk;
        if (text.includes('100 Continue')) resolve();
      });
      void closed.then(resolve);
    });
    // The same buffer for every connection: the test's own memory stays small.
    if (!socket.destroyed) {
      socket.write(chunkHeader);
      socket.write(first);
    }
  });
  await Promise.all(taken);
  const timer = setInterval(() => {
    for (const socket of live) socket.write(' ');
  }, options.everyMs ?? 100);
  return {
    bodies,
    open: () => live.size,
    stop() {
      clearInterval(timer);
      for (const socket of live) socket.destroy();
    },
  };
}
