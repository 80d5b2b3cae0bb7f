import { spawnSync } from 'node:child_process';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Start-up (issue 10, goal 4): small commands as a user runs them, each a fresh process, against
 * `node -e 0` measured in the same run: `--version` ≤ 1.5×, `validate` of the example ≤ 2.5×,
 * `plan` of the example against the embedded local service (after an apply: no changes) ≤ 4×.
 * The commands are run in turn, ROUNDS times, so that a busy spell of the machine falls on all of
 * them alike; the median wall time of each is printed, with its ratio.
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

function run(args: readonly string[], cwd: string): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - started;
  if (result.status !== 0) {
    throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr.toString()}`);
  }
  return ms;
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
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, c] of cases.entries()) times[i]?.push(run(c.args, dir));
    }
    const base = median(times[0] ?? []);
    console.log(
      `start-up (fresh processes, median of ${ROUNDS} rounds run in turn; load average ${load.toFixed(1)} at the start on ${
        (await import('node:os')).cpus().length
      } cores)`,
    );
    for (const [i, c] of cases.entries()) {
      const ms = median(times[i] ?? []);
      if (c.aim === undefined) {
        console.log(`  ${c.label}: ${ms.toFixed(0)} ms (the base)`);
        continue;
      }
      const ratio = ms / base;
      const verdict =
        ratio <= c.aim
          ? ''
          : ` — ABOVE AIM by ${(ratio - c.aim).toFixed(2)}× (${(ms - c.aim * base).toFixed(0)} ms)`;
      console.log(
        `  ${c.label}: ${ms.toFixed(0)} ms, ${ratio.toFixed(2)}× node -e 0 (aim ≤ ${c.aim}×)${verdict}`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
