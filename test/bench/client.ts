import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { Agent } from 'undici';
import { createGuideClient, type GuideClient } from '../../src/client/index.js';

/**
 * Client throughput: with the service adding 20 ms of latency to every call and the client
 * allowed 16 calls in flight, the ideal is 16 / 0.020 s = 800 calls/s. Runs a read-heavy mix
 * (90 % reads) for a few seconds and prints the sustained rate as a share of the ideal. Aim: at
 * least 0.85.
 *
 * The service runs in a worker thread, as it runs elsewhere in reality: on the client's thread its
 * own work (SQLite, JSON) would be charged to the client. For scale, the same mix is then sent
 * with bare undici requests (no client: no tokens logic, retries, limits, checks): the floor that
 * this machine and the service allow.
 */

const LATENCY_MS = 20;
const PARALLELISM = 16;
const GUIDES = 200;
const WARMUP_MS = 1_000;
const MEASURE_MS = 5_000;
const BASELINE_MS = 3_000;
const AIM = 0.85;

const account = (n: number): string => `bench_${String(n % GUIDES).padStart(4, '0')}`;

interface Step {
  readonly operation:
    | 'getguideacct'
    | 'getguideconfig'
    | 'getguideacctlist'
    | 'getguidegrouplist'
    | 'updateguideacct';
  readonly weight: number;
  readonly body: (n: number) => Record<string, unknown>;
}

/** The mix, by weight: single guides, configs, list pages, groups; 10 % updates. */
const MIX: readonly Step[] = [
  { operation: 'getguideacct', weight: 40, body: (n) => ({ guide_account: account(n) }) },
  { operation: 'getguideconfig', weight: 20, body: (n) => ({ guide_account: account(n) }) },
  { operation: 'getguideacctlist', weight: 15, body: (n) => ({ page: n % 2, num: 100 }) },
  { operation: 'getguidegrouplist', weight: 15, body: () => ({}) },
  {
    operation: 'updateguideacct',
    weight: 10,
    body: (n) => ({ guide_account: account(n), guide_nickname: `B${n % 1000}` }),
  },
];
const TOTAL_WEIGHT = MIX.reduce((sum, step) => sum + step.weight, 0);

/** A fixed, well-spread sequence (golden-ratio steps) instead of Math.random, so runs repeat. */
function pick(n: number): Step {
  let r = ((n * 0.618_033_988_75) % 1) * TOTAL_WEIGHT;
  for (const step of MIX) {
    r -= step.weight;
    if (r < 0) return step;
  }
  return MIX[MIX.length - 1] as Step;
}

/** The typed client method of each step. */
function viaClient(client: GuideClient, step: Step, n: number): Promise<unknown> {
  const account_ = account(n);
  switch (step.operation) {
    case 'getguideacct':
      return client.getguideacct({ guide_account: account_ });
    case 'getguideconfig':
      return client.getguideconfig({ guide_account: account_ });
    case 'getguideacctlist':
      return client.getguideacctlist({ page: n % 2, num: 100 });
    case 'getguidegrouplist':
      return client.getguidegrouplist();
    case 'updateguideacct':
      return client.updateguideacct({ guide_account: account_, guide_nickname: `B${n % 1000}` });
  }
}

interface Measured {
  readonly calls: number;
  readonly seconds: number;
  readonly latencies: readonly number[];
  readonly byOperation: ReadonlyMap<string, number>;
}

/** Runs `PARALLELISM` loops of the mix; counts the calls that end inside the measured window. */
async function measure(
  warmupMs: number,
  measureMs: number,
  call: (step: Step, n: number) => Promise<unknown>,
): Promise<Measured> {
  let seq = 0;
  let measuring = false;
  let calls = 0;
  const latencies: number[] = [];
  const byOperation = new Map<string, number>();
  const warmEnd = performance.now() + warmupMs;
  const end = warmEnd + measureMs;
  const loop = async (): Promise<void> => {
    while (performance.now() < end) {
      const n = seq++;
      const step = pick(n);
      const started = performance.now();
      await call(step, n);
      if (measuring) {
        calls += 1;
        latencies.push(performance.now() - started);
        byOperation.set(step.operation, (byOperation.get(step.operation) ?? 0) + 1);
      }
    }
  };
  // The loops run through the warm-up into the measured window without pausing.
  const loops = Array.from({ length: PARALLELISM }, loop);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, warmEnd - performance.now())));
  measuring = true;
  const started = performance.now();
  await Promise.all(loops);
  return { calls, seconds: (performance.now() - started) / 1000, latencies, byOperation };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

interface RemoteService {
  readonly url: string;
  readonly credentials: { readonly appid: string; readonly secret: string };
  close(): Promise<void>;
}

/** The guide service, started in a worker thread from the compiled service module. */
async function startServiceThread(faults: string): Promise<RemoteService> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(workerData.module).then(async ({ GuideService }) => {
      const service = await GuideService.start({ db: ':memory:', faults: workerData.faults });
      parentPort.postMessage({ url: service.url, credentials: service.credentials });
      parentPort.once('message', async () => { await service.close(); process.exit(0); });
    });`;
  const module = new URL('../../src/service/index.js', import.meta.url).href;
  const worker = new Worker(code, { eval: true, workerData: { module, faults } });
  const [started] = (await once(worker, 'message')) as [Omit<RemoteService, 'close'>];
  return {
    ...started,
    close: async () => {
      worker.postMessage('close');
      await once(worker, 'exit');
    },
  };
}

/** The same mix as bare undici requests: no client around them. */
async function measureBaseline(service: RemoteService): Promise<Measured> {
  const agent = new Agent({ connections: PARALLELISM + 1 });
  try {
    const tokenAnswer = await agent.request({
      origin: service.url,
      path: '/cgi-bin/stable_token',
      method: 'POST',
      body: JSON.stringify({ grant_type: 'client_credential', ...service.credentials }),
    });
    const { access_token: token } = (await tokenAnswer.body.json()) as { access_token: string };
    return await measure(WARMUP_MS / 2, BASELINE_MS, async (step, n) => {
      const answer = await agent.request({
        origin: service.url,
        path: `/cgi-bin/guide/${step.operation}?access_token=${token}`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(step.body(n)),
      });
      const parsed = (await answer.body.json()) as { errcode: number };
      if (parsed.errcode !== 0) throw new Error(`baseline ${step.operation}: ${parsed.errcode}`);
    });
  } finally {
    await agent.close();
  }
}

export async function benchClient(): Promise<void> {
  const service = await startServiceThread(`latency=${LATENCY_MS}ms`);
  const client = createGuideClient({
    baseUrl: service.url,
    auth: service.credentials,
    parallelism: PARALLELISM,
  });
  try {
    await Promise.all(
      Array.from({ length: GUIDES }, (_, i) =>
        client.addguideacct({
          guide_account: account(i),
          guide_nickname: `Bench ${i}`,
          guide_headimgurl: `https://mmbiz.qpic.cn/mmbiz_jpg/b${i}/0`,
        }),
      ),
    );
    await Promise.all(
      Array.from({ length: 5 }, (_, i) => client.newguidegroup({ group_name: `Bench group ${i}` })),
    );

    const run = await measure(WARMUP_MS, MEASURE_MS, (step, n) => viaClient(client, step, n));
    const baseline = await measureBaseline(service);

    const ideal = PARALLELISM / (LATENCY_MS / 1000);
    const rate = run.calls / run.seconds;
    const ratio = rate / ideal;
    const baseRate = baseline.calls / baseline.seconds;
    const sorted = [...run.latencies].sort((a, b) => a - b);
    const mix = [...run.byOperation]
      .sort((a, b) => b[1] - a[1])
      .map(([op, n]) => `${op} ${((100 * n) / run.calls).toFixed(0)}%`)
      .join(', ');
    const out = [
      'guidectl client throughput — command: npm run bench',
      `  setup     service in a worker thread, ${LATENCY_MS} ms latency per call; client parallelism ${PARALLELISM}; ${GUIDES} guides`,
      `  mix       ${mix}`,
      `  client    ${run.calls} calls in ${run.seconds.toFixed(2)} s = ${rate.toFixed(0)} calls/s; latency p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p99 ${percentile(sorted, 0.99).toFixed(1)} ms`,
      `  ideal     ${ideal.toFixed(0)} calls/s (${PARALLELISM} / ${LATENCY_MS / 1000} s)`,
      `  ratio     ${ratio.toFixed(3)} of ideal (aim ≥ ${AIM}): ${ratio >= AIM ? 'met' : 'NOT met'}`,
      `  floor     bare undici, same mix: ${baseRate.toFixed(0)} calls/s = ${(baseRate / ideal).toFixed(3)} of ideal; the client reaches ${((100 * rate) / baseRate).toFixed(1)}% of it`,
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    await client.close();
    await service.close();
  }
}
