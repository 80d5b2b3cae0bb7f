import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createGuideClient } from '../../src/client/index.js';
import { captureIo } from '../helpers/capture-io.js';
import { chaosYaml, findDuplicates } from '../helpers/chaos.js';
import { startServeProcess } from '../helpers/serve-process.js';

/**
 * The fault goal of issue 14: 500 guides in 10 groups, applied by `guidectl apply` against
 * `guidectl serve --faults system_error=0.3,minute_quota=0.05,lost_answer=0.05,latency=5ms` for
 * 5 seeds. Per seed: the applies it took to converge (aim: 1, at most 2), the calls the service
 * answered, the client's retries and the lost answers it settled by a read, and anything doubled
 * in the account afterwards (aim: none).
 */
const GUIDES = 500;
const GROUPS = 10;
const SEEDS = [1, 2, 3, 4, 5];
const MOST_APPLIES = 3;

/** The built CLI's program (`npm run bench` has just built dist/), run in-process with captured output. */
async function loadProgram(): Promise<typeof import('../../src/cli/program.js')['runProgram']> {
  const url = pathToFileURL(resolve(process.cwd(), 'dist/cli/program.js')).href;
  const module = (await import(url)) as typeof import('../../src/cli/program.js');
  return module.runProgram;
}

async function callCount(url: string): Promise<number> {
  const res = await fetch(`${url}/__sim/calls`, { method: 'POST', body: JSON.stringify({ reset: true }) });
  return ((await res.json()) as { calls: unknown[] }).calls.length;
}

export async function benchChaos(): Promise<void> {
  const faults = 'system_error=0.3,minute_quota=0.05,lost_answer=0.05,latency=5ms';
  console.log(`chaos (guidectl apply, ${GUIDES} guides in ${GROUPS} groups, serve --faults ${faults})`);
  const dir = await mkdtemp(join(tmpdir(), 'guidectl-chaos-'));
  const file = join(dir, 'chaos.yaml');
  await writeFile(file, chaosYaml(GUIDES, GROUPS));
  const runProgram = await loadProgram();
  try {
    for (const seed of SEEDS) await benchSeed(runProgram, dir, file, `${faults},seed=${seed}`, seed);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

type RunProgram = Awaited<ReturnType<typeof loadProgram>>;

async function benchSeed(
  runProgram: RunProgram,
  dir: string,
  file: string,
  faults: string,
  seed: number,
): Promise<void> {
  const serve = await startServeProcess([
    '--db',
    join(dir, `seed-${seed}.db`),
    '--simulation',
    '--faults',
    faults,
  ]);
  try {
    const env = { WECHAT_APPID: serve.appid, WECHAT_SECRET: serve.secret };
    const started = performance.now();
    let applies = 0;
    let converged = false;
    let retries = 0;
    let settled = 0;
    while (!converged && applies < MOST_APPLIES) {
      applies++;
      const io = captureIo(env, dir);
      const code = await runProgram(
        // --no-adapt: these faults answer 45011 at random, not past a per-minute limit (see the
        // apply section for adapting); adapting would pause each such operation for the minute.
        ['apply', file, '--auto-approve', '--verbose', '--no-adapt', '--base-url', serve.url],
        io,
      );
      converged = code === 0;
      const log = io.err();
      retries += log.match(/; retrying in \d+ ms$/gm)?.length ?? 0;
      settled += log.match(/the answer was lost; confirmed by reading: applied/g)?.length ?? 0;
    }
    const seconds = (performance.now() - started) / 1000;
    const calls = await callCount(serve.url);
    const client = createGuideClient({
      baseUrl: serve.url,
      auth: { appid: serve.appid, secret: serve.secret },
    });
    // The check reads under the same faults: reads retry within their time budget.
    const doubled = await findDuplicates(client, GUIDES, GROUPS);
    await client.close();
    console.log(
      `  seed ${seed}: ${converged ? `converged in ${applies} appl${applies === 1 ? 'y' : 'ies'}` : `NOT converged after ${applies} applies`} (aim: 1, at most 2), ${calls.toLocaleString('en')} calls, ${retries.toLocaleString('en')} retries, ${settled} lost answers settled by a read, ${seconds.toFixed(1)} s; duplicates: ${doubled.length === 0 ? 'none' : doubled.slice(0, 5).join('; ')}`,
    );
  } finally {
    await serve.stop();
  }
}
