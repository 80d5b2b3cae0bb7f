import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadDesiredState } from '../../src/config/index.js';
import { planChanges } from '../../src/plan/index.js';
import { startCapacityGate } from '../helpers/capacity-gate.js';
import { chaosYaml } from '../helpers/chaos.js';
import { startServeProcess } from '../helpers/serve-process.js';

/**
 * Issues 10 and 26: `guidectl apply` of a file to an empty account against `guidectl serve
 * --faults latency=20ms`, side by side with what a user would write instead (`naive-apply.ts`: the
 * same writes through an undici pool with 8 workers, reading nothing). Both run as processes of
 * their own, from start to exit, each against a fresh service; the ratio of the two is the figure.
 * Every guide has quick replies and a welcome message; 100 guides a group.
 *
 * - No capacity limit: apply (adapting its concurrency, the default) against the naive script
 *   (aim ≤ 0.5×), and apply `--no-adapt` at the naive script's 8 (aim ≤ 1.05×).
 * - A capacity of 16 calls at once (`serve --capacity 16`, or a gate in front of serve that
 *   answers -1 beyond 16 when serve has no such flag): apply's rate of writes against the
 *   capacity's own (16 per 20 ms; aim ≥ 0.85×) and its share of calls refused for load (aim < 2%),
 *   with naive 8- and 32-worker scripts beside it.
 *
 * `BENCH_GUIDES=N` runs every figure at N guides only (a quick run: `BENCH_GUIDES=300`).
 */
export const LATENCY_MS = 20;
const PARALLELISM = 8;
const SIZES = [500, 2_000, 5_000];
const CAPACITY_GUIDES = 5_000;
const AIM_FIXED = 1.05;
const AIM_ADAPTIVE = 0.5;
const CAPACITY = 16;
const AIM_CAPACITY_RATE = 0.85;
const AIM_REFUSED = 0.02;

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

/** One guide call as the service recorded it. */
interface CallRecord {
  readonly writes: boolean;
  readonly errcode: number;
  /** Service clock, Unix milliseconds, at the answer. */
  readonly at: number;
}

/** The guide calls a service answered since the last reset (needs `--simulation`), and resets them. */
async function callRecords(url: string): Promise<CallRecord[]> {
  const res = await fetch(`${url}/__sim/calls`, { method: 'POST', body: '{"reset": true}' });
  return ((await res.json()) as { calls: CallRecord[] }).calls;
}

/** A fresh in-memory `guidectl serve` whose every call takes {@link LATENCY_MS}. */
function startLatentServe(extra: readonly string[] = []): ReturnType<typeof startServeProcess> {
  return startServeProcess([
    '--db',
    ':memory:',
    '--simulation',
    '--faults',
    `latency=${LATENCY_MS}ms`,
    ...extra,
  ]);
}

/** A fresh latent service that takes at most {@link CAPACITY} calls at once. */
interface CapacityTarget {
  readonly url: string;
  readonly appid: string;
  readonly secret: string;
  /** What refuses beyond the capacity: `serve --capacity`, or a gate in front of serve. */
  readonly how: string;
  /** The guide calls answered since the last reset (and resets them), and those refused for load. */
  calls(): Promise<{ readonly records: CallRecord[]; readonly refused: number }>;
  stop(): Promise<void>;
}

async function serveHasCapacity(): Promise<boolean> {
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'serve', '--help']);
  return stdout.includes('--capacity');
}

async function startCapacityTarget(native: boolean): Promise<CapacityTarget> {
  if (native) {
    const serve = await startLatentServe(['--capacity', String(CAPACITY)]);
    return {
      url: serve.url,
      appid: serve.appid,
      secret: serve.secret,
      how: `serve --capacity ${CAPACITY}`,
      async calls() {
        const all = await callRecords(serve.url);
        return {
          records: all.filter((c) => c.errcode !== -1),
          refused: all.filter((c) => c.errcode === -1).length,
        };
      },
      stop: () => serve.stop(),
    };
  }
  const serve = await startLatentServe();
  const gate = await startCapacityGate(serve.url, { capacity: CAPACITY });
  let counted = 0;
  return {
    url: gate.url,
    appid: serve.appid,
    secret: serve.secret,
    how: `a gate that answers -1 beyond ${CAPACITY} calls at once (this serve has no --capacity)`,
    async calls() {
      const refused = gate.refused - counted;
      counted = gate.refused;
      return { records: await callRecords(serve.url), refused };
    },
    async stop() {
      await gate.close();
      await serve.stop();
    },
  };
}

/** What the naive script printed. */
interface NaiveOutput {
  readonly writes: number;
  readonly failed: number;
  readonly refused: number;
}

async function runNaiveOn(
  target: { url: string; appid: string; secret: string },
  callsFile: string,
  workers: number,
): Promise<{ seconds: number; output: NaiveOutput }> {
  const { seconds, stdout } = await timed([
    NAIVE,
    target.url,
    target.appid,
    target.secret,
    callsFile,
    String(workers),
  ]);
  return { seconds, output: JSON.parse(stdout) as NaiveOutput };
}

async function runNaive(callsFile: string): Promise<Run> {
  const serve = await startLatentServe();
  try {
    const { seconds, output } = await runNaiveOn(serve, callsFile, 8);
    if (output.failed > 0) throw new Error(`the naive script had ${output.failed} failed calls`);
    return { seconds, counts: await callCounts(serve.url) };
  } finally {
    await serve.stop();
  }
}

/** guidectl apply to its end; it exits 0 only when every call succeeded and the account converged. */
function applyArgs(file: string, flags: readonly string[]): string[] {
  return [CLI, 'apply', file, '--auto-approve', ...flags];
}

async function runGuidectl(file: string, flags: readonly string[]): Promise<Run> {
  const serve = await startLatentServe();
  try {
    const { seconds } = await timed(applyArgs(file, flags), targetEnv(serve));
    return { seconds, counts: await callCounts(serve.url) };
  } finally {
    await serve.stop();
  }
}

function figure(n: number): string {
  return n.toLocaleString('en');
}

function aimNote(ok: boolean, text: string): string {
  return ok ? '' : ` — ${text}`;
}

/** The bench file of `guides` guides and the file of its plan's calls (for the naive script). */
async function benchFiles(
  dir: string,
  guides: number,
): Promise<{ file: string; callsFile: string; minimum: number }> {
  const file = join(dir, `guides-${guides}.yaml`);
  await writeFile(file, chaosYaml(guides, Math.max(1, Math.round(guides / 100))));
  const loaded = await loadDesiredState([file]);
  if (loaded.state === undefined) throw new Error('the bench file does not validate');
  const plan = planChanges(loaded.state, { guides: [], groups: [], account: {} }).plan;
  if (plan === undefined) throw new Error('the bench file does not plan');
  const callsFile = join(dir, `calls-${guides}.json`);
  await writeFile(callsFile, JSON.stringify(plan.calls));
  return { file, callsFile, minimum: plan.calls.length };
}

/**
 * One size, no capacity limit: the naive script; guidectl apply (adapting, default verify);
 * `--no-adapt --parallelism 8`; then `--verify full`.
 */
async function benchSize(dir: string, guides: number): Promise<void> {
  const { file, callsFile, minimum } = await benchFiles(dir, guides);
  const naive = await runNaive(callsFile);
  const apply = await runGuidectl(file, []);
  const fixed = await runGuidectl(file, ['--no-adapt', '--parallelism', String(PARALLELISM)]);
  const full = await runGuidectl(file, ['--verify', 'full']);
  const ratio = apply.seconds / naive.seconds;
  const fixedRatio = fixed.seconds / naive.seconds;
  const writesOk =
    apply.counts.writes === minimum && fixed.counts.writes === minimum && naive.counts.writes === minimum;
  console.log(
    `  ${figure(guides)} guides: guidectl apply ${apply.seconds.toFixed(2)} s (${figure(apply.counts.writes)} writes, ${figure(apply.counts.reads)} reads, 0 failed calls); ` +
      `naive script ${naive.seconds.toFixed(2)} s (${figure(naive.counts.writes)} writes); ratio ${ratio.toFixed(2)} ` +
      `(aim <= ${AIM_ADAPTIVE}, writes = minimum ${figure(minimum)})` +
      aimNote(ratio <= AIM_ADAPTIVE, `ABOVE AIM by ${((ratio / AIM_ADAPTIVE - 1) * 100).toFixed(0)}%`) +
      aimNote(writesOk, 'WRITES NOT MINIMUM'),
  );
  console.log(
    `    apply --no-adapt --parallelism ${PARALLELISM}: ${fixed.seconds.toFixed(2)} s; ratio ${fixedRatio.toFixed(2)} to the naive script (aim <= ${AIM_FIXED})` +
      aimNote(fixedRatio <= AIM_FIXED, `ABOVE AIM by ${((fixedRatio / AIM_FIXED - 1) * 100).toFixed(0)}%`),
  );
  console.log(
    `    apply --verify full: ${full.seconds.toFixed(2)} s (${figure(full.counts.reads)} reads); ratio ${(full.seconds / naive.seconds).toFixed(2)} to the naive script`,
  );
}

/** Writes answered 0 a second, from the first such answer to the last (the calls' own time). */
function writeRate(records: readonly CallRecord[]): { writes: number; perSecond: number } {
  const done = records.filter((c) => c.writes && c.errcode === 0);
  const first = done[0]?.at ?? 0;
  const last = done.at(-1)?.at ?? 0;
  return { writes: done.length, perSecond: last > first ? ((done.length - 1) * 1000) / (last - first) : 0 };
}

/** Against a capacity of 16: guidectl apply (default flags), then naive 8- and 32-worker scripts. */
async function benchCapacity(dir: string, guides: number, native: boolean): Promise<void> {
  const { file, callsFile, minimum } = await benchFiles(dir, guides);
  const best = (CAPACITY * 1000) / LATENCY_MS;
  let target = await startCapacityTarget(native);
  console.log(`  (${target.how})`);
  try {
    const run = await timed(applyArgs(file, []), targetEnv(target)).catch((error: unknown) => error);
    const { records, refused } = await target.calls();
    if (!('seconds' in (run as object))) {
      const code = (run as { code?: number }).code;
      console.log(
        `  ${figure(guides)} guides: guidectl apply FAILED (exit ${code}): it had failed calls or did not converge`,
      );
      return;
    }
    const { seconds } = run as { seconds: number };
    const { writes, perSecond } = writeRate(records);
    const failed = records.filter((c) => c.errcode !== 0).length;
    const share = refused / (records.length + refused);
    const rate = perSecond / best;
    console.log(
      `  ${figure(guides)} guides: guidectl apply ${seconds.toFixed(2)} s, ${figure(writes)} writes (minimum ${figure(minimum)}), ` +
        `0 failed calls (exit 0; ${failed} answers with another errcode), ${figure(Math.round(perSecond))} writes/s = ${rate.toFixed(2)}× the capacity's ${figure(best)}/s (aim >= ${AIM_CAPACITY_RATE})` +
        aimNote(rate >= AIM_CAPACITY_RATE, 'BELOW AIM') +
        `; refused for load ${figure(refused)} = ${(share * 100).toFixed(2)}% of calls (aim < ${AIM_REFUSED * 100}%)` +
        aimNote(share < AIM_REFUSED, 'ABOVE AIM') +
        aimNote(writes === minimum, 'WRITES NOT MINIMUM'),
    );
  } finally {
    await target.stop();
  }
  await benchCeiling(file, native, best);
  for (const workers of [8, 32]) {
    target = await startCapacityTarget(native);
    try {
      const { seconds, output } = await runNaiveOn(target, callsFile, workers);
      const { refused } = await target.calls();
      console.log(
        `    naive ${workers}-worker script: ${seconds.toFixed(2)} s, ${figure(output.failed)} failed calls of ${figure(output.writes)} (${figure(refused)} refused for load; it does not retry)`,
      );
    } finally {
      await target.stop();
    }
  }
}

/**
 * apply fixed at exactly the capacity (`--no-adapt --parallelism 16`): what this machine reaches
 * when the client is told the limit, so the adaptive figure can be read against it.
 */
async function benchCeiling(file: string, native: boolean, best: number): Promise<void> {
  const target = await startCapacityTarget(native);
  try {
    const run = await timed(
      applyArgs(file, ['--no-adapt', '--parallelism', String(CAPACITY)]),
      targetEnv(target),
    ).catch((error: unknown) => error);
    const { records, refused } = await target.calls();
    if (!('seconds' in (run as object))) {
      console.log(`    apply --no-adapt --parallelism ${CAPACITY}: FAILED (${refused} refused for load)`);
      return;
    }
    const { perSecond } = writeRate(records);
    console.log(
      `    apply --no-adapt --parallelism ${CAPACITY} (told the capacity): ${figure(Math.round(perSecond))} writes/s = ${(perSecond / best).toFixed(2)}× the capacity's ${figure(best)}/s; ${figure(refused)} refused for load`,
    );
  } finally {
    await target.stop();
  }
}

export async function benchApply(): Promise<void> {
  const only = process.env['BENCH_GUIDES'];
  const sizes = only === undefined ? SIZES : [Number(only)];
  console.log(
    `apply to an empty account vs a naive 8-worker script (guidectl serve --faults latency=${LATENCY_MS}ms, no capacity limit, fresh service each run, whole processes)`,
  );
  const dir = await mkdtemp(join(tmpdir(), 'guidectl-bench-apply-'));
  try {
    // BENCH_APPLY=capacity runs the capacity figures alone.
    if (process.env['BENCH_APPLY'] !== 'capacity') for (const guides of sizes) await benchSize(dir, guides);
    console.log(
      `apply against a capacity of ${CAPACITY} calls at once (latency=${LATENCY_MS}ms: at most ${(CAPACITY * 1000) / LATENCY_MS} calls/s), adapting from --parallelism ${PARALLELISM}`,
    );
    await benchCapacity(dir, only === undefined ? CAPACITY_GUIDES : Number(only), await serveHasCapacity());
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
