import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGuideClient } from '../../src/client/index.js';
import { formatWrittenTime } from '../../src/core/task-time.js';
import { startServeProcess } from '../helpers/serve-process.js';
import { callCounts } from './apply.js';

// Issue 13: a no-change plan of 1,000 mass-send tasks of 1,000 recipients each over 100 guides
// reads with the minimum calls, compares in < 1 s, and stays under 400 MB.

const GUIDES = 100;
const TASKS_PER_GUIDE = 10;
const RECIPIENTS = 1_000;

const account = (g: number): string => `guide_${String(g).padStart(3, '0')}`;
const openid = (g: number, c: number): string =>
  `oG${String(g).padStart(3, '0')}C${String(c).padStart(4, '0')}`;

/** The desired-state file and one CSV of recipients per guide (each task of a guide names it). */
async function writeFiles(dir: string, pushAt: (g: number, t: number) => number): Promise<string> {
  await mkdir(join(dir, 'customers'));
  const lines = ['version: 1', 'guides:'];
  for (let g = 0; g < GUIDES; g++) {
    lines.push(
      `  - account: ${account(g)}`,
      `    nickname: G${g}`,
      `    head_image_url: https://img.example/${g}`,
    );
    const csv = [
      'name,openid',
      ...Array.from({ length: RECIPIENTS }, (_, c) => `Customer ${c},${openid(g, c)}`),
    ];
    await writeFile(join(dir, 'customers', `${account(g)}.csv`), `${csv.join('\n')}\n`);
  }
  lines.push('tasks:');
  for (let g = 0; g < GUIDES; g++) {
    for (let t = 0; t < TASKS_PER_GUIDE; t++) {
      lines.push(
        `  - name: Sale ${t}`,
        `    guide: ${account(g)}`,
        `    push_at: "${formatWrittenTime(pushAt(g, t), 480)}"`,
        `    recipients_file: customers/${account(g)}.csv`,
        '    materials:',
        `      - text: "Sale ${t} starts now"`,
      );
    }
  }
  const file = join(dir, 'tasks.yaml');
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

/** The account the files describe, made through the API (and /__sim/customers for the bindings). */
async function seed(
  serve: { url: string; appid: string; secret: string },
  pushAt: (g: number, t: number) => number,
): Promise<void> {
  const client = createGuideClient({
    baseUrl: serve.url,
    auth: { appid: serve.appid, secret: serve.secret },
    parallelism: 16,
  });
  try {
    await Promise.all(
      Array.from({ length: GUIDES }, async (_, g) => {
        await client.addguideacct({
          guide_account: account(g),
          guide_nickname: `G${g}`,
          guide_headimgurl: `https://img.example/${g}`,
        });
        const openids = Array.from({ length: RECIPIENTS }, (_, c) => openid(g, c));
        const res = await fetch(`${serve.url}/__sim/customers`, {
          method: 'POST',
          body: JSON.stringify({ guide_account: account(g), openids }),
        });
        if (!res.ok) throw new Error(`sim customers: ${res.status}`);
        for (let t = 0; t < TASKS_PER_GUIDE; t++) {
          await client.addguidemassendjob({
            guide_account: account(g),
            task_name: `Sale ${t}`,
            task_remark: '',
            push_time: pushAt(g, t),
            openid: openids,
            material: [{ type: 1, word: `Sale ${t} starts now` }],
          });
        }
      }),
    );
  } finally {
    await client.close();
  }
}

/** Runs the plan in a process of its own, so that its peak memory is its own. */
function planInChild(file: string, serve: { url: string; appid: string; secret: string }): Promise<Figures> {
  const script = fileURLToPath(new URL('./tasks-plan-memory.js', import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [script, file, serve.url, serve.appid, serve.secret],
      { maxBuffer: 1 << 20 },
      (error, stdout) => (error === null ? resolve(JSON.parse(stdout) as Figures) : reject(error)),
    );
  });
}

interface Figures {
  readonly loadSeconds: number;
  readonly readSeconds: number;
  readonly compareSeconds: number;
  readonly calls: number;
  readonly warnings: number;
  readonly peakMb: number;
}

export async function benchTasks(): Promise<void> {
  console.log(
    `tasks (a no-change plan of ${(GUIDES * TASKS_PER_GUIDE).toLocaleString('en')} tasks of ${RECIPIENTS.toLocaleString('en')} recipients over ${GUIDES} guides, against guidectl serve)`,
  );
  const dir = await mkdtemp(join(tmpdir(), 'guidectl-bench-tasks-'));
  const serve = await startServeProcess(['--db', ':memory:', '--simulation']);
  try {
    const now = Math.floor(Date.now() / 1000);
    const pushAt = (g: number, t: number): number => now + 86_400 + g * 60 + t;
    const file = await writeFiles(dir, pushAt);
    await seed(serve, pushAt);
    await callCounts(serve.url);
    const f = await planInChild(file, serve);
    const { reads, writes } = await callCounts(serve.url);
    // The guide list (one page of 100), the group list, and one page of tasks per guide.
    const minimum = Math.ceil(GUIDES / 100) + 1 + GUIDES * Math.ceil(TASKS_PER_GUIDE / 100);
    const aim = (ok: boolean, what: string): string => (ok ? '' : ` — ABOVE AIM (${what})`);
    console.log(
      `  load (YAML and ${GUIDES * TASKS_PER_GUIDE} recipients files) ${f.loadSeconds.toFixed(2)} s; read ${f.readSeconds.toFixed(2)} s, ${reads.toLocaleString('en')} reads (minimum ${minimum}; aim: the minimum)${aim(reads <= minimum, 'reads')}, ${writes} writes`,
    );
    console.log(
      `  compare ${f.compareSeconds.toFixed(3)} s (aim < 1 s)${aim(f.compareSeconds < 1, 'compare')}; ${f.calls} calls planned, ${f.warnings} warnings; peak RSS ${f.peakMb} MB of the whole plan process (aim < 400 MB)${aim(f.peakMb < 400, 'memory')}`,
    );
  } finally {
    await serve.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
