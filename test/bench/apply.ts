import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadDesiredState } from '../../src/config/index.js';
import { planChanges } from '../../src/plan/index.js';
import { chaosYaml } from '../helpers/chaos.js';
import { startServeProcess } from '../helpers/serve-process.js';

/**
 * Issue 10, goal 1: `guidectl apply` of a file to an empty account against `guidectl serve
 * --faults latency=20ms`, side by side with what a user would write instead (`naive-apply.ts`: the
 * same writes through an undici pool with 8 workers, reading nothing). Both run as processes of
 * their own, from start to exit, each against a fresh service; the ratio of the two is the figure.
 * Every guide has quick replies and a welcome message; 100 guides a group.
 */
export const LATENCY_MS = 20;
const PARALLELISM = 8;
const SIZES = [500, 2_000, 5_000];
const AIM = 1.05;

export const CLI = resolve(process.cwd(), 'dist/cli/main.js');
const NAIVE = fileURLToPath(new URL('./naive-apply.js', import.meta.url));

interface CallCounts {
  readonly reads: number;
  readonly writes: number;
}

/** The guide calls a service answered (needs `--simulation`), as reads and writes. */
export async function callCounts(url: string): Promise<CallCounts> {
  const res = await fetch(`${url}/__sim/calls`, { method: 'POST', body: '{"reset": true}' });
  const { calls } = (await res.json()) as { calls: { writes: boolean }[] };
  const writes = calls.filter((c) => c.writes).length;
  return { reads: calls.length - writes, writes };
}

/** Runs `node args…` to its end; returns its wall time in seconds and its stdout. */
export async function timed(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ seconds: number; stdout: string }> {
  const started = performance.now();
  const { stdout } = await promisify(execFile)(process.execPath, [...args], { env, maxBuffer: 64 << 20 });
  return { seconds: (performance.now() - started) / 1000, stdout };
}

/** The environment that points a guidectl process at a serve process. */
export function targetEnv(serve: { url: string; appid: string; secret: string }): NodeJS.ProcessEnv {
  return {
    ...process.env,
    WECHAT_APPID: serve.appid,
    WECHAT_SECRET: serve.secret,
    GUIDECTL_BASE_URL: serve.url,
    NO_COLOR: '1',
  };
}

interface Run {
  readonly seconds: number;
  readonly counts: CallCounts;
}

/** A fresh in-memory `guidectl serve` whose every call takes {@link LATENCY_MS}. */
function startLatentServe(): ReturnType<typeof startServeProcess> {
  return startServeProcess(['--db', ':memory:', '--simulation', '--faults', `latency=${LATENCY_MS}ms`]);
}

async function runNaive(callsFile: string): Promise<Run> {
  const serve = await startLatentServe();
  try {
    const { seconds, stdout } = await timed([NAIVE, serve.url, serve.appid, serve.secret, callsFile]);
    const { failed } = JSON.parse(stdout) as { failed: number };
    if (failed > 0) throw new Error(`the naive script had ${failed} failed calls`);
    return { seconds, counts: await callCounts(serve.url) };
  } finally {
    await serve.stop();
  }
}

async function runGuidectl(file: string, verify: readonly string[]): Promise<Run> {
  const serve = await startLatentServe();
  try {
    const args = [CLI, 'apply', file, '--auto-approve', '--parallelism', String(PARALLELISM), ...verify];
    const { seconds } = await timed(args, targetEnv(serve));
    return { seconds, counts: await callCounts(serve.url) };
  } finally {
    await serve.stop();
  }
}

function figure(n: number): string {
  return n.toLocaleString('en');
}

/** One size: the naive script, then guidectl apply (default verify), then `--verify full`. */
async function benchSize(dir: string, guides: number): Promise<void> {
  const file = join(dir, `guides-${guides}.yaml`);
  await writeFile(file, chaosYaml(guides, guides / 100));
  const loaded = await loadDesiredState([file]);
  if (loaded.state === undefined) throw new Error('the bench file does not validate');
  const plan = planChanges(loaded.state, { guides: [], groups: [], account: {} }).plan;
  if (plan === undefined) throw new Error('the bench file does not plan');
  const callsFile = join(dir, `calls-${guides}.json`);
  await writeFile(callsFile, JSON.stringify(plan.calls));
  const minimum = plan.calls.length;

  const naive = await runNaive(callsFile);
  const apply = await runGuidectl(file, []);
  const full = await runGuidectl(file, ['--verify', 'full']);
  const ratio = apply.seconds / naive.seconds;
  const writesOk = apply.counts.writes === minimum && naive.counts.writes === minimum;
  console.log(
    `  ${figure(guides)} guides: guidectl apply ${apply.seconds.toFixed(2)} s (${figure(apply.counts.writes)} writes, ${figure(apply.counts.reads)} reads); ` +
      `naive script ${naive.seconds.toFixed(2)} s (${figure(naive.counts.writes)} writes); ratio ${ratio.toFixed(2)} ` +
      `(aim <= ${AIM}, writes = minimum ${figure(minimum)})` +
      (ratio <= AIM ? '' : ` — ABOVE AIM by ${((ratio / AIM - 1) * 100).toFixed(0)}%`) +
      (writesOk ? '' : ' — WRITES NOT MINIMUM'),
  );
  console.log(
    `    apply --verify full: ${full.seconds.toFixed(2)} s (${figure(full.counts.reads)} reads); ratio ${(full.seconds / naive.seconds).toFixed(2)} to the naive script`,
  );
}

export async function benchApply(): Promise<void> {
  console.log(
    `apply to an empty account vs a naive 8-worker script (guidectl serve --faults latency=${LATENCY_MS}ms, parallelism ${PARALLELISM}, fresh service each run, whole processes)`,
  );
  const dir = await mkdtemp(join(tmpdir(), 'guidectl-bench-apply-'));
  try {
    const only = process.env['BENCH_GUIDES'];
    for (const guides of only === undefined ? SIZES : [Number(only)]) await benchSize(dir, guides);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
