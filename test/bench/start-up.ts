import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Start-up (issue 10, goal 4): small commands as a user runs them, each a fresh process, against
 * `node -e 0` measured in the same run: `--version` ≤ 1.5×, `validate` of the example ≤ 2.5×,
 * `plan` of the example against the embedded local service (after an apply: no changes) ≤ 4×.
 * The commands are run in turn, ROUNDS times, so that a busy spell of the machine falls on all of
 * them alike; the median wall time of each is printed, with its ratio (the aim), and the median
 * CPU time with its ratio, which a busy machine distorts less.
 */
const ROUNDS = 15;

interface Case {
  readonly label: string;
  readonly args: readonly string[];
  readonly aim?: number;
}

// `npm run bench` runs from the package root, where `npm run build` has just written dist/.
const CLI = resolve(process.cwd(), 'dist/cli/main.js');
const EXAMPLE = resolve(process.cwd(), 'examples/small-store.yaml');

/**
 * The CPU time this process's ended children have used, in ms (Linux: /proc/self/stat, in clock
 * ticks of 10 ms); undefined elsewhere. A busy machine stretches wall times, much less CPU times.
 */
function childrenCpuMs(): number | undefined {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

function run(args: readonly string[], cwd: string): { ms: number; cpuMs: number | undefined } {
  const cpuBefore = childrenCpuMs();
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - started;
  const cpuAfter = childrenCpuMs();
  if (result.status !== 0) {
    throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr.toString()}`);
  }
  return { ms, cpuMs: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export async function benchStartUp(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'guidectl-bench-start-up-'));
  try {
    await copyFile(EXAMPLE, join(dir, 'small-store.yaml'));
    run([CLI, 'apply', 'small-store.yaml', '--auto-approve'], dir);
    const cases: Case[] = [
      { label: 'node -e 0', args: ['-e', '0'] },
      { label: 'guidectl --version', args: [CLI, '--version'], aim: 1.5 },
      { label: 'guidectl validate small-store.yaml', args: [CLI, 'validate', 'small-store.yaml'], aim: 2.5 },
      {
        label: 'guidectl plan small-store.yaml (embedded service, no changes)',
        args: [CLI, 'plan', 'small-store.yaml'],
        aim: 4,
      },
    ];
    const load = loadavg()[0] ?? 0;
    const times = cases.map((): number[] => []);
    const cpu = cases.map((): number[] => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, c] of cases.entries()) {
        const { ms, cpuMs } = run(c.args, dir);
        times[i]?.push(ms);
        if (cpuMs !== undefined) cpu[i]?.push(cpuMs);
      }
    }
    const base = median(times[0] ?? []);
    const cpuBase = median(cpu[0] ?? []);
    const cpuOf = (i: number): string => {
      const ms = median(cpu[i] ?? []);
      return Number.isNaN(ms)
        ? ''
        : `; CPU ${ms.toFixed(0)} ms${i === 0 ? '' : `, ${(ms / cpuBase).toFixed(2)}×`}`;
    };
    console.log(
      `start-up (fresh processes, median of ${ROUNDS} rounds run in turn; load average ${load.toFixed(1)} at the start on ${
        (await import('node:os')).cpus().length
      } cores)`,
    );
    for (const [i, c] of cases.entries()) {
      const ms = median(times[i] ?? []);
      if (c.aim === undefined) {
        console.log(`  ${c.label}: ${ms.toFixed(0)} ms (the base${cpuOf(i)})`);
        continue;
      }
      const ratio = ms / base;
      const verdict =
        ratio <= c.aim
          ? ''
          : ` — ABOVE AIM by ${(ratio - c.aim).toFixed(2)}× (${(ms - c.aim * base).toFixed(0)} ms)`;
      console.log(
        `  ${c.label}: ${ms.toFixed(0)} ms, ${ratio.toFixed(2)}× node -e 0 (aim ≤ ${c.aim}×)${verdict}${cpuOf(i)}`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
