import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chaosYaml } from '../helpers/chaos.js';
import { startServeProcess } from '../helpers/serve-process.js';
import { CLI, targetEnv } from './apply.js';

/**
 * Issue 26, `npm run bench -- quota`: the daily quotas and the per-minute limit, each against a
 * `guidectl serve` process of its own (no latency), guidectl run as processes from start to exit.
 *
 * - Daily: 2,000 guides against `serve --quota addguideacct=1500`. plan shows the shortfall;
 *   apply refuses without --allow-partial; with it, exactly 1,500 guides are made whole and the
 *   report says so; once `/__sim/clock` passes midnight UTC+8, a second apply finishes with no
 *   write doubled (writes counted per operation through `/__sim/calls`). Each is a check line.
 * - Per minute: 5,000 guides against `serve --per-minute all=3000`: apply ends with 0 failed calls
 *   in at most 1.1× the limit's own time (its calls at 3,000 a minute); the ratio is printed.
 *
 * `BENCH_GUIDES=N` runs both at N guides (the daily quota then 3/4 of N); `BENCH_QUOTA=daily` or
 * `per-minute` runs one (the per-minute one takes five minutes at 5,000 guides, by design).
 */
const DAILY_GUIDES = 2_000;
const MINUTE_GUIDES = 5_000;
const PER_MINUTE = 3_000;
const AIM_MINUTE = 1.1;
const GUIDES_PER_GROUP = 100;

interface CallRecord {
  readonly operation: string;
  readonly writes: boolean;
  readonly errcode: number;
}

/** The guide calls the service answered since the last reset, and resets them. */
async function takeCalls(url: string): Promise<CallRecord[]> {
  const res = await fetch(`${url}/__sim/calls`, { method: 'POST', body: '{"reset": true}' });
  return ((await res.json()) as { calls: CallRecord[] }).calls;
}

/** Writes answered 0, per operation. */
function writesByOperation(calls: readonly CallRecord[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of calls)
    if (c.writes && c.errcode === 0) out.set(c.operation, (out.get(c.operation) ?? 0) + 1);
  return out;
}

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly seconds: number;
}

/** `guidectl ARGS` as a process to its end, whatever its exit code. */
async function guidectl(args: readonly string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  const started = performance.now();
  const ended = await promisify(execFile)(process.execPath, [CLI, ...args], { env, maxBuffer: 256 << 20 })
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }))
    .catch((error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }));
  return { ...ended, seconds: (performance.now() - started) / 1000 };
}

function check(ok: boolean, text: string): boolean {
  console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${text}`);
  return ok;
}

const figure = (n: number): string => n.toLocaleString('en');

async function benchDaily(dir: string, guides: number): Promise<void> {
  const quota = Math.floor((guides * 3) / 4);
  console.log(`daily quota: ${figure(guides)} guides against guidectl serve --quota addguideacct=${quota}`);
  const file = join(dir, `daily-${guides}.yaml`);
  await writeFile(file, chaosYaml(guides, Math.max(1, Math.round(guides / GUIDES_PER_GROUP))));
  const serve = await startServeProcess([
    '--db',
    ':memory:',
    '--simulation',
    '--quota',
    `addguideacct=${quota}`,
  ]);
  const env = targetEnv(serve);
  try {
    const plan = await guidectl(['plan', '--json', file], env);
    const planned = JSON.parse(plan.stdout) as {
      summary: { calls: number };
      quota: { fits_today: boolean; operations: Record<string, { calls: number; remain: number }> };
    };
    const need = planned.quota.operations['addguideacct'];
    check(
      !planned.quota.fits_today && need?.calls === guides && need.remain === quota,
      `plan shows the shortfall: addguideacct needs ${figure(need?.calls ?? 0)}, ${figure(need?.remain ?? 0)} remain, fits_today ${planned.quota.fits_today}`,
    );
    await takeCalls(serve.url);
    const refused = await guidectl(['apply', '--auto-approve', file], env);
    const refusedWrites = writesByOperation(await takeCalls(serve.url));
    check(
      refused.code === 1 && refused.stderr.includes('cannot finish today') && refusedWrites.size === 0,
      `apply without --allow-partial refuses (exit ${refused.code}, ${refusedWrites.size} writes)`,
    );
    const partial = await guidectl(['apply', '--auto-approve', '--allow-partial', '--json', file], env);
    const firstCalls = await takeCalls(serve.url);
    const first = writesByOperation(firstCalls);
    // Apply starts only the calls the quota leaves: none is sent only to be refused.
    const refusedForQuota = firstCalls.filter((c) => c.errcode === 45009).length;
    const shortfall = (
      JSON.parse(partial.stdout) as {
        quota_shortfall?: { operations: Record<string, { made: number }>; guides: { done: number } };
      }
    ).quota_shortfall;
    const after = JSON.parse((await guidectl(['plan', '--json', file], env)).stdout) as {
      changes: { resource: string; action: string }[];
    };
    const guidesLeft = after.changes.filter((c) => c.resource === 'guide');
    const wholeLeft = guidesLeft.every((c) => c.action === 'create');
    check(
      first.get('addguideacct') === quota &&
        shortfall?.guides.done === quota &&
        shortfall.operations['addguideacct']?.made === quota &&
        guidesLeft.length === guides - quota &&
        wholeLeft &&
        refusedForQuota === 0,
      `apply --allow-partial made ${figure(first.get('addguideacct') ?? 0)} guides with ${figure(refusedForQuota)} calls refused for the quota; its report says ${figure(shortfall?.guides.done ?? 0)} done whole; the plan after it adds ${figure(guidesLeft.length)} guides and changes none made (${partial.seconds.toFixed(2)} s, exit ${partial.code})`,
    );
    await takeCalls(serve.url);
    await fetch(`${serve.url}/__sim/clock`, { method: 'POST', body: JSON.stringify({ advance: 24 * 3600 }) });
    const finished = await guidectl(['apply', '--auto-approve', file], env);
    const second = writesByOperation(await takeCalls(serve.url));
    // Each operation's writes over both applies against those of one apply without quotas.
    const once = await writesWithoutQuota(dir, guides);
    const ops = new Set([...first.keys(), ...second.keys(), ...once.keys()]);
    const both = (op: string): number => (first.get(op) ?? 0) + (second.get(op) ?? 0);
    const off = [...ops].filter((op) => both(op) !== (once.get(op) ?? 0));
    const total = (m: (op: string) => number): number => [...ops].reduce((a, op) => a + m(op), 0);
    check(
      finished.code === 0 && off.length === 0,
      `after midnight UTC+8 a second apply finishes (exit ${finished.code}): ${figure(total(both))} writes in both, one apply without quotas makes ${figure(total((op) => once.get(op) ?? 0))}; operations doubled or missing: ${off.length === 0 ? 'none' : off.map((op) => `${op} ${both(op)} vs ${once.get(op) ?? 0}`).join(', ')}`,
    );
  } finally {
    await serve.stop();
  }
}

/** The writes per operation of one apply of the daily bench's file to a fresh service without quotas. */
async function writesWithoutQuota(dir: string, guides: number): Promise<Map<string, number>> {
  const serve = await startServeProcess(['--db', ':memory:', '--simulation']);
  try {
    const file = join(dir, `daily-${guides}.yaml`);
    const run = await guidectl(['apply', '--auto-approve', file], targetEnv(serve));
    if (run.code !== 0) throw new Error(`the apply without quotas failed: ${run.stderr}`);
    return writesByOperation(await takeCalls(serve.url));
  } finally {
    await serve.stop();
  }
}

async function benchPerMinute(dir: string, guides: number): Promise<void> {
  console.log(
    `per-minute limit: ${figure(guides)} guides against guidectl serve --per-minute all=${PER_MINUTE}`,
  );
  const file = join(dir, `minute-${guides}.yaml`);
  await writeFile(file, chaosYaml(guides, Math.max(1, Math.round(guides / GUIDES_PER_GROUP))));
  const serve = await startServeProcess([
    '--db',
    ':memory:',
    '--simulation',
    '--per-minute',
    `all=${PER_MINUTE}`,
  ]);
  try {
    const run = await guidectl(['apply', '--auto-approve', file], targetEnv(serve));
    const calls = await takeCalls(serve.url);
    const answered = calls.filter((c) => c.errcode === 0).length;
    const limited = calls.filter((c) => c.errcode === 45011).length;
    const writes = calls.filter((c) => c.writes && c.errcode === 0).length;
    const own = (answered / PER_MINUTE) * 60;
    const ratio = run.seconds / own;
    check(
      run.code === 0 && ratio <= AIM_MINUTE,
      `apply ${run.seconds.toFixed(1)} s (exit ${run.code}: ${run.code === 0 ? '0 failed calls' : 'FAILED CALLS'}), ${figure(writes)} writes and ${figure(answered - writes)} reads answered; the limit's own time for them ${own.toFixed(1)} s; ratio ${ratio.toFixed(2)} (aim <= ${AIM_MINUTE}); ${figure(limited)} answers of 45011`,
    );
  } finally {
    await serve.stop();
  }
}

export async function benchQuota(): Promise<void> {
  const only = process.env['BENCH_GUIDES'];
  const which = process.env['BENCH_QUOTA'];
  const dir = await mkdtemp(join(tmpdir(), 'guidectl-bench-quota-'));
  try {
    if (which !== 'per-minute') await benchDaily(dir, only === undefined ? DAILY_GUIDES : Number(only));
    if (which !== 'daily') await benchPerMinute(dir, only === undefined ? MINUTE_GUIDES : Number(only));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
