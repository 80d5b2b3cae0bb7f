import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { startServeProcess } from '../helpers/serve-process.js';

/**
 * The service's own speed: calls per second over loopback from a separate process, with 10,000
 * guides stored in a file database. Aim: ≥ 5,000 reads/s and ≥ 2,000 writes/s on 2 cores.
 */
const GUIDES = 10_000;
const CONCURRENCY = 32;
const READ_SECONDS = 4;

async function post(pool: Pool, path: string, body: string): Promise<number> {
  const res = await pool.request({
    method: 'POST',
    path,
    body,
    headers: { 'content-type': 'application/json' },
  });
  const text = await res.body.text();
  const m = /"errcode":(-?[0-9]+)/.exec(text);
  return m?.[1] === undefined ? -999 : Number(m[1]);
}

async function runConcurrently(total: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total) await fn(next++);
    }),
  );
}

export async function benchService(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'guidectl-bench-'));
  const serve = await startServeProcess(['--db', join(dir, 'bench.db')]);
  const pool = new Pool(serve.url, { connections: CONCURRENCY, pipelining: 1 });
  try {
    const tokenRes = await pool.request({
      method: 'POST',
      path: '/cgi-bin/stable_token',
      body: JSON.stringify({ grant_type: 'client_credential', appid: serve.appid, secret: serve.secret }),
    });
    const token = String(((await tokenRes.body.json()) as { access_token: string }).access_token);
    const op = (name: string) => `/cgi-bin/guide/${name}?access_token=${token}`;

    let failures = 0;
    const writeStart = performance.now();
    await runConcurrently(GUIDES, async (i) => {
      const body = JSON.stringify({
        guide_account: `bench_${String(i).padStart(5, '0')}`,
        guide_nickname: `Guide ${i}`,
        guide_headimgurl: `https://mmbiz.qpic.cn/mmbiz_jpg/${i}/0`,
      });
      if ((await post(pool, op('addguideacct'), body)) !== 0) failures++;
    });
    const writeSeconds = (performance.now() - writeStart) / 1000;
    const writesPerSecond = GUIDES / writeSeconds;

    await runConcurrently(500, async (i) => {
      const body = JSON.stringify({
        guide_account: `bench_${String(i).padStart(5, '0')}`,
        is_delete: false,
        guide_fast_reply_list: [{ content: 'Hello!' }, { content: 'One moment.' }],
        guide_auto_reply: { msgtype: 1, content: `Hi, I am guide ${i}` },
      });
      if ((await post(pool, op('setguideconfig'), body)) !== 0) failures++;
    });

    let reads = 0;
    const readStart = performance.now();
    const deadline = readStart + READ_SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, w) => {
        for (let i = w; performance.now() < deadline; i += CONCURRENCY) {
          const account = `bench_${String((i * 7919) % GUIDES).padStart(5, '0')}`;
          const kind = i % 4;
          const code =
            kind === 0
              ? await post(
                  pool,
                  op('getguideacctlist'),
                  JSON.stringify({ page: i % (GUIDES / 100), num: 100 }),
                )
              : kind === 1
                ? await post(pool, op('getguideacct'), JSON.stringify({ guide_account: account }))
                : await post(pool, op('getguideconfig'), JSON.stringify({ guide_account: account }));
          if (code !== 0) failures++;
          reads++;
        }
      }),
    );
    const readsPerSecond = reads / ((performance.now() - readStart) / 1000);

    console.log(
      'service (guidectl serve, file database, 10,000 guides, 32 concurrent keep-alive connections)',
    );
    console.log(
      `  writes: ${Math.round(writesPerSecond).toLocaleString('en')} adds/s (aim >= 2,000) — ${GUIDES.toLocaleString('en')} addguideacct in ${writeSeconds.toFixed(2)} s`,
    );
    console.log(
      `  reads:  ${Math.round(readsPerSecond).toLocaleString('en')} calls/s (aim >= 5,000) — 1/4 getguideacctlist (100 a page), 1/4 getguideacct, 1/2 getguideconfig over ${READ_SECONDS} s`,
    );
    if (failures > 0) console.log(`  ${failures} calls failed`);
  } finally {
    await pool.close();
    await serve.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
