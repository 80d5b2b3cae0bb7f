import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServeProcess } from '../helpers/serve-process.js';

/**
 * Scale (issue 10, goal 3), `npm run bench -- scale` only (the 100,000-guide apply alone takes
 * minutes): at 1,000, 10,000 and 100,000 guides (the service's limit), `validate`, `plan` against
 * an empty account and `apply` to it, each `guidectl` a process of its own against a
 * `guidectl serve` (no latency), so that its peak RSS is its own. Aims at 100,000 guides: plan
 * ≤ 600 MB, apply ≤ 1 GB; memory per guide is the peak above the same command's peak on the small
 * example, divided by the guides, and should not grow with them. `GUIDECTL_BENCH_SCALE=1000,10000`
 * runs other sizes (the aims are those of the largest).
 */
const SIZES = (process.env['GUIDECTL_BENCH_SCALE'] ?? '1000,10000,100000').split(',').map(Number);
const GUIDES_PER_GROUP = 50;
/** Guides per file: all of them in one (a file may hold 64 MiB, 100,000 guides take 15). */
const GUIDES_PER_FILE = 100_000;
const AIM_MB: Readonly<Record<string, number>> = { plan: 600, apply: 1000 };

// `npm run bench` runs from the package root, where `npm run build` has just written dist/.
const CLI = resolve(process.cwd(), 'dist/cli/main.js');
const EXAMPLE = resolve(process.cwd(), 'examples/small-store.yaml');

interface Measured {
  readonly seconds: number;
  readonly peakMb: number;
}

/** Runs `guidectl ARGS` with a preload that reports the process's peak RSS as it exits. */
async function measure(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Measured> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--require', join(cwd, 'peak-rss.cjs'), CLI, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((done, fail) => {
    child.once('error', fail);
    child.once('close', done);
  });
  const seconds = (performance.now() - started) / 1000;
  const peak = /^guidectl-bench-peak-rss (\d+)$/m.exec(stderr)?.[1];
  if (code !== 0 || peak === undefined) {
    throw new Error(`guidectl ${args.join(' ')} exited ${code}: ${stderr.slice(-2000)}`);
  }
  return { seconds, peakMb: Number(peak) / 1024 };
}

const PRELOAD = `process.on('exit', () => {
  process.stderr.write('guidectl-bench-peak-rss ' + process.resourceUsage().maxRSS + '\\n');
});
`;

/** One command at one size: validate, plan (empty account) or apply (to the empty account). */
async function runCommand(
  command: 'validate' | 'plan' | 'apply',
  file: string,
  dir: string,
): Promise<Measured> {
  if (command === 'validate') return measure(['validate', file], dir, {});
  const serve = await startServeProcess(['--db', ':memory:']);
  try {
    const env = { WECHAT_APPID: serve.appid, WECHAT_SECRET: serve.secret };
    const target = ['--base-url', serve.url];
    if (command === 'plan') return await measure(['plan', file, ...target], dir, env);
    return await measure(['apply', file, '--auto-approve', ...target], dir, env);
  } finally {
    await serve.stop();
  }
}

/**
 * A folder of `n` guides as a large chain would write it (as the validate benchmark's file: account,
 * nickname, picture; one in five with three quick replies; one in ten with a welcome message), in
 * groups of 50: `stores.yaml` with the account and the groups, then `guides-K.yaml` files.
 */
async function writeFolder(folder: string, n: number): Promise<void> {
  await mkdir(folder, { recursive: true });
  const stores = [
    'version: 1',
    'account:',
    '  offline_auto_reply: "We are offline now, back at 9:00."',
    'groups:',
  ];
  for (let g = 0; g * GUIDES_PER_GROUP < n; g++) {
    stores.push(`  - name: Store ${g + 1}`, '    members:');
    for (let i = g * GUIDES_PER_GROUP; i < Math.min(n, (g + 1) * GUIDES_PER_GROUP); i++)
      stores.push(`      - guide_${i}`);
  }
  await writeFile(join(folder, 'stores.yaml'), `${stores.join('\n')}\n`);
  for (let first = 0; first < n; first += GUIDES_PER_FILE) {
    const lines = ['version: 1', 'guides:'];
    for (let i = first; i < Math.min(n, first + GUIDES_PER_FILE); i++) {
      lines.push(
        `  - account: guide_${i}`,
        `    nickname: Guide ${i}`,
        `    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/store${i % 200}/guide_${i}/0`,
      );
      if (i % 5 === 0)
        lines.push(
          '    quick_replies:',
          '      - "Hello! How can I help you today?"',
          `      - "Ask for guide ${i}."`,
        );
      if (i % 10 === 0) lines.push('    welcome:', `      - text: "Hi, I am Guide ${i}."`);
    }
    await writeFile(join(folder, `guides-${first / GUIDES_PER_FILE}.yaml`), `${lines.join('\n')}\n`);
  }
}

/** The size measured before, for the memory each further guide took (linear growth: about the same each time). */
interface Previous {
  readonly n: number;
  readonly m: Measured;
}

function line(command: string, n: number, m: Measured, base: Measured, previous?: Previous): string {
  const perGuideKb = ((m.peakMb - base.peakMb) * 1024) / n;
  const marginal =
    previous === undefined
      ? ''
      : `, ${(((m.peakMb - previous.m.peakMb) * 1024) / (n - previous.n)).toFixed(1)} KB per guide added since ${previous.n.toLocaleString('en-US')}`;
  const aim = n === SIZES.at(-1) ? AIM_MB[command] : undefined;
  const verdict =
    aim === undefined
      ? ''
      : ` (aim ≤ ${aim} MB: ${(m.peakMb / aim).toFixed(2)}× the aim${
          m.peakMb <= aim ? '' : ` — ABOVE AIM by ${(m.peakMb - aim).toFixed(0)} MB`
        })`;
  return `  ${command} ${n.toLocaleString('en-US')} guides: ${m.seconds.toFixed(1)} s, peak RSS ${m.peakMb.toFixed(0)} MB, ${perGuideKb.toFixed(1)} KB per guide above the small example's ${base.peakMb.toFixed(0)} MB${marginal}${verdict}`;
}

export async function benchScale(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'guidectl-bench-scale-'));
  try {
    await writeFile(join(dir, 'peak-rss.cjs'), PRELOAD);
    await copyFile(EXAMPLE, join(dir, 'small.yaml'));
    console.log(
      'scale (each guidectl a process of its own; plan and apply against guidectl serve --db :memory:, no latency)',
    );
    for (const command of ['validate', 'plan', 'apply'] as const) {
      const base = await runCommand(command, 'small.yaml', dir);
      let previous: Previous | undefined;
      for (const n of SIZES) {
        const folder = `guides-${n}`;
        if (command === 'validate') await writeFolder(join(dir, folder), n);
        const m = await runCommand(command, folder, dir);
        console.log(line(command, n, m, base, previous));
        previous = { n, m };
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
