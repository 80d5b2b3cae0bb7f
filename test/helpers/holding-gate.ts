import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CliRun, runCli } from './cli.js';

/**
 * A gate in front of the service: it forwards every request, except the `operation` calls (after
 * the first `after` of them), which it holds unanswered (`held` resolves at the first) and sends
 * on only at `release` — as a server may apply a write whose client has given up on it — or at
 * `answer`, which also gives their answers back, as a slow server does. With `landBefore`, the
 * held calls are also sent on (and answered by the service) as a call of that operation arrives,
 * before it is: a write given up on that lands just before the next read. With `most`, only that
 * many are held; the later ones pass.
 */
export async function holdingGate(
  service: string,
  operation: string,
  after = 0,
  options: { readonly landBefore?: string; readonly most?: number } = {},
) {
  const most = options.most ?? Number.POSITIVE_INFINITY;
  let passed = 0;
  let holding = 0;
  const held: { send: () => Promise<Response>; res: ServerResponse }[] = [];
  let arrived: () => void = () => {};
  const first = new Promise<void>((resolve) => (arrived = resolve));
  // Each held call is sent on once, whichever of `release`, `answer` and `landBefore` comes first.
  const release = () => Promise.all(held.splice(0).map(({ send }) => send()));
  const isCall = (url: string | undefined, op: string): boolean =>
    url?.startsWith(`/cgi-bin/guide/${op}?`) === true;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const forward = () =>
      fetch(`${service}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers: { 'content-type': 'application/json' },
        ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
      });
    if (isCall(req.url, operation) && ++passed > after && holding < most) {
      holding++;
      held.push({ send: forward, res });
      arrived();
      return;
    }
    if (options.landBefore !== undefined && isCall(req.url, options.landBefore)) await release();
    await reply(res, await forward());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    held: first,
    release,
    answer: () => Promise.all(held.splice(0).map(async ({ send, res }) => reply(res, await send()))),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

async function reply(res: ServerResponse, answer: Response): Promise<void> {
  res.writeHead(answer.status, { 'content-type': 'application/json' });
  res.end(Buffer.from(await answer.arrayBuffer()));
}

/**
 * Runs `guidectl ARGS` against `service` through a gate holding its `operation` calls (once
 * `after` of them went through), with Ctrl-C once the gate holds one: a stop that surely comes
 * while that call waits. `release` sends the held calls on afterwards.
 */
export async function interruptedAt(
  service: string,
  operation: string,
  args: readonly string[],
  options: { readonly env: Record<string, string>; readonly cwd: string; readonly after?: number },
): Promise<{ run: CliRun; release: () => Promise<unknown> }> {
  const gate = await holdingGate(service, operation, options.after);
  const stop = new AbortController();
  void gate.held.then(() => stop.abort());
  try {
    const run = await runCli([...args, '--base-url', gate.url], {
      env: options.env,
      cwd: options.cwd,
      stop: stop.signal,
    });
    return { run, release: gate.release };
  } finally {
    gate.close();
  }
}
