import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

/**
 * The floor of a read over HTTP on this machine (issue 10, goal 2): `requests` POSTs from a
 * trivial undici client (8 workers, one pool) to a trivial node:http server answering a fixed
 * guide configuration, each a process of its own, as `guidectl plan` and `guidectl serve` are.
 * No token, no checks, no SQLite, no planning: what any two Node processes on these cores need
 * to exchange that many requests.
 *
 * `node floor.js serve` runs the server (prints its URL); `node floor.js client URL N` runs the
 * client (prints the seconds it took, from its first request to its last answer).
 */

const ANSWER = JSON.stringify({
  errcode: 0,
  errmsg: 'ok',
  guide_fast_reply_list: [
    { content: 'Hello!', updatetime: 1700000000 },
    { content: 'Let me check that for you.', updatetime: 1700000000 },
    { content: 'Ask for guide 1.', updatetime: 1700000000 },
  ],
  guide_auto_reply: { msgtype: 1, content: 'Hi, I am guide 1.', updatetime: 1700000000 },
});
const WORKERS = 8;

async function serve(): Promise<void> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(ANSWER) });
      res.end(ANSWER);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  process.on('SIGTERM', () => process.exit(0));
}

/**
 * `requests` reads of guide configurations through 8 workers, with `token`; prints the seconds
 * from the first request to the last answer. `account(i)` names the guide of the i-th read.
 */
async function client(
  url: string,
  requests: number,
  token: string,
  account: (i: number) => string,
): Promise<void> {
  const pool = new Pool(url, { connections: WORKERS });
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < requests) {
      const i = next++;
      const answer = await pool.request({
        path: `/cgi-bin/guide/getguideconfig?access_token=${token}`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ guide_account: account(i) }),
      });
      JSON.parse(await answer.body.text());
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  console.log(((performance.now() - started) / 1000).toFixed(3));
  await pool.close();
}

/** A token of the app from `guidectl serve` at `url` (its stable_token), as a plain POST. */
async function fetchToken(url: string, appid: string, secret: string): Promise<string> {
  const res = await fetch(`${url}/cgi-bin/stable_token`, {
    method: 'POST',
    body: JSON.stringify({ grant_type: 'client_credential', appid, secret }),
  });
  const { access_token } = (await res.json()) as { access_token: string };
  return access_token;
}

/** Runs the two processes: the seconds the client took for `requests` requests. */
export async function measureFloor(requests: number): Promise<number> {
  const script = fileURLToPath(import.meta.url);
  const server = spawn(process.execPath, [script, 'serve'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      server.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
      server.once('exit', (code) => reject(new Error(`the floor server exited (${code})`)));
    });
    return await runClient([url, String(requests)]);
  } finally {
    server.kill('SIGTERM');
  }
}

/**
 * The floor of the no-change plan at 20 ms (goal 2a): `requests` reads of guide configurations
 * of the seeded account (`guide_00000`…, `guides` of them) from a trivial undici client (8
 * workers, a process of its own) against the `guidectl serve` at `url` itself, with its latency:
 * what the service and the latency allow a client that does nothing else. Seconds, first request
 * to last answer.
 */
export function measureServiceFloor(
  serve: { url: string; appid: string; secret: string },
  requests: number,
  guides: number,
): Promise<number> {
  return runClient(['--service', serve.url, serve.appid, serve.secret, String(requests), String(guides)]);
}

function runClient(args: readonly string[]): Promise<number> {
  const script = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [script, 'client', ...args], (error, stdout) =>
      error === null ? resolve(Number(stdout.trim())) : reject(error),
    );
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [mode, ...args] = process.argv.slice(2);
  if (mode === 'serve') await serve();
  else if (mode === 'client' && args[0] === '--service') {
    const [, url = '', appid = '', secret = '', n = '0', guides = '1'] = args;
    const token = await fetchToken(url, appid, secret);
    await client(url, Number(n), token, (i) => `guide_${String(i % Number(guides)).padStart(5, '0')}`);
  } else if (mode === 'client') {
    const [url = '', n = '0'] = args;
    await client(url, Number(n), 'floor', (i) => `guide_${i}`);
  }
}
