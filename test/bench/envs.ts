// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${tag} in the YAML written is the syntax of values
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GuideService } from '../../src/service/index.js';
import { captureIo } from '../helpers/capture-io.js';
import { simCall } from '../helpers/service.js';

// `npm run bench -- envs`: plan --all-envs over 50 environments of 200 guides each, one guide
// service per environment (in this process, over real HTTP on 127.0.0.1, every call 20 ms late),
// against the slowest single environment's plan × ceil(50 / env-parallelism), and its peak memory.

const ENVIRONMENTS = 50;
const GUIDES = 200;
const LATENCY_MS = 20;
const PARALLELISM = 4;
const SAMPLED = 10; // single-environment plans timed: every fifth environment
const CLI = resolve(process.cwd(), 'dist/cli/main.js');

const name = (i: number): string => `env${String(i).padStart(2, '0')}`;

function fileOf(services: readonly GuideService[]): string {
  const lines = ['version: 1', 'environments:'];
  services.forEach((s, i) => {
    lines.push(`  ${name(i)}:`, `    base_url: ${s.url}`, `    credentials: ${name(i).toUpperCase()}`);
    lines.push('    values:', `      tag: "${i}"`);
  });
  lines.push('guides:');
  for (let g = 0; g < GUIDES; g++) {
    const account = `guide_${String(g).padStart(4, '0')}`;
    lines.push(`  - account: ${account}`, `    nickname: "G${g} \${tag}"`);
    lines.push(`    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/${g}/0`);
    lines.push('    quick_replies: ["Hello!", "Ask for ${tag}."]');
  }
  return `${lines.join('\n')}\n`;
}

function credentialsEnv(services: readonly GuideService[]): Record<string, string> {
  const env: Record<string, string> = {};
  services.forEach((s, i) => {
    env[`${name(i).toUpperCase()}_APPID`] = s.credentials.appid;
    env[`${name(i).toUpperCase()}_SECRET`] = s.credentials.secret;
  });
  return env;
}

const PRELOAD = `process.on('exit', () => {
  process.stderr.write('guidectl-bench-peak-rss ' + process.resourceUsage().maxRSS + '\\n');
});
`;

/** `guidectl ARGS` as a process: its seconds from start to exit and its peak RSS. */
async function measure(args: readonly string[], dir: string, env: Record<string, string>) {
  const started = performance.now();
  const child = spawn(process.execPath, ['--require', join(dir, 'peak-rss.cjs'), CLI, ...args], {
    cwd: dir,
    env: { ...process.env, ...env, NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((done, fail) => {
    child.once('error', fail);
    child.once('close', done);
  });
  const seconds = (performance.now() - started) / 1000;
  const peak = /^guidectl-bench-peak-rss (\d+)$/m.exec(stderr)?.[1];
  if (code !== 0 || peak === undefined)
    throw new Error(`guidectl ${args.join(' ')} exited ${code}: ${stderr.slice(-2000)}`);
  return { seconds, peakMb: Number(peak) / 1024 };
}

/** Applies the file to every environment (in this process, no latency yet): each account then plans to no changes. */
async function seed(dir: string, env: Record<string, string>): Promise<void> {
  // The built program (`npm run bench` has just built dist/), as the chaos bench runs it.
  const url = pathToFileURL(resolve(process.cwd(), 'dist/cli/program.js')).href;
  const { runProgram } = (await import(url)) as typeof import('../../src/cli/program.js');
  for (let i = 0; i < ENVIRONMENTS; i++) {
    const io = captureIo(env, dir);
    const args = ['apply', '--env', name(i), '--auto-approve', '--parallelism', '16', 'envs.yaml'];
    if ((await runProgram(args, io)) !== 0) throw new Error(`seeding ${name(i)} failed: ${io.err()}`);
  }
}

export async function benchEnvs(): Promise<void> {
  console.log(
    `plan --all-envs (${ENVIRONMENTS} environments of ${GUIDES} guides, one guide service each, latency ${LATENCY_MS} ms, no changes)`,
  );
  const dir = await mkdtemp(join(tmpdir(), 'guidectl-bench-envs-'));
  const services = await Promise.all(
    Array.from({ length: ENVIRONMENTS }, () => GuideService.start({ db: ':memory:', simulation: true })),
  );
  try {
    await writeFile(join(dir, 'peak-rss.cjs'), PRELOAD);
    await writeFile(join(dir, 'envs.yaml'), fileOf(services));
    const env = credentialsEnv(services);
    await seed(dir, env);
    await Promise.all(services.map((s) => simCall(s.url, 'faults', { faults: `latency=${LATENCY_MS}ms` })));
    let slowest = 0;
    for (let i = 0; i < ENVIRONMENTS; i += ENVIRONMENTS / SAMPLED) {
      const single = await measure(['plan', '--env', name(i), '--detailed-exitcode', 'envs.yaml'], dir, env);
      slowest = Math.max(slowest, single.seconds);
    }
    const all = await measure(
      ['plan', '--all-envs', '--env-parallelism', String(PARALLELISM), '--detailed-exitcode', 'envs.yaml'],
      dir,
      env,
    );
    const limit = 1.2 * slowest * Math.ceil(ENVIRONMENTS / PARALLELISM);
    const ratio = all.seconds / (slowest * Math.ceil(ENVIRONMENTS / PARALLELISM));
    console.log(
      `  slowest single-environment plan (${SAMPLED} timed, each a process): ${slowest.toFixed(2)} s; × ceil(${ENVIRONMENTS} / ${PARALLELISM}) = ${(slowest * Math.ceil(ENVIRONMENTS / PARALLELISM)).toFixed(2)} s`,
    );
    console.log(
      `  plan --all-envs --env-parallelism ${PARALLELISM}: ${all.seconds.toFixed(2)} s, limit ${limit.toFixed(2)} s; ratio ${ratio.toFixed(2)} (aim <= 1.20)` +
        (ratio <= 1.2 ? '' : ` — ABOVE AIM by ${((ratio / 1.2 - 1) * 100).toFixed(0)}%`),
    );
    console.log(
      `  peak memory ${all.peakMb.toFixed(0)} MB; ratio ${(all.peakMb / 600).toFixed(2)} of the aim (aim < 600 MB)` +
        (all.peakMb < 600 ? '' : ' — ABOVE AIM'),
    );
  } finally {
    await Promise.all(services.map((s) => s.close()));
    await rm(dir, { recursive: true, force: true });
  }
}
