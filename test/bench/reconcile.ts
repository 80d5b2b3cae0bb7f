import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { executePlan } from '../../src/apply/index.js';
import { createGuideClient } from '../../src/client/index.js';
import type { DesiredGuide, DesiredState, WelcomeMessage } from '../../src/core/desired.js';
import { readLiveState, readOnlyClient, readScopeFor } from '../../src/live/index.js';
import { planChanges } from '../../src/plan/index.js';
import { startServeProcess } from './serve-process.js';

/**
 * The reconciler's speed against a service that adds 20 ms to every call:
 * 1. plan over 5,000 guides in 50 groups, every guide with managed quick replies and welcome
 *    messages: calls made against the minimum, wall time against the ideal (calls × 20 ms / P);
 * 2. apply of the same file to an empty account (before 1, which then plans over its result);
 * 3. diff and plan alone, in memory, for 100,000 guides.
 */
const GUIDES = 5_000;
const GROUPS = 50;
const LATENCY_MS = 20;
const PARALLELISM = 32;

const source = { file: 'bench.yaml', line: 1, column: 1 };

export function desiredState(guides: number, groups: number): DesiredState {
  const list: DesiredGuide[] = [];
  for (let i = 0; i < guides; i++) {
    const welcome: WelcomeMessage[] = [{ type: 'text', text: `Hi, I am guide ${i}.` }];
    if (i % 2 === 0) welcome.push({ type: 'image', mediaId: `MEDIA_${i}` });
    list.push({
      id: { kind: 'account', account: `guide_${String(i).padStart(6, '0')}` },
      nickname: `Guide ${i}`,
      headImageUrl: `https://mmbiz.qpic.cn/mmbiz_jpg/${i}/0`,
      quickReplies: ['Hello!', 'Let me check that for you.', `Ask for guide ${i}.`],
      welcome,
      source,
    });
  }
  const perGroup = Math.ceil(guides / groups);
  return {
    guides: list,
    groups: Array.from({ length: groups }, (_, g) => ({
      name: `Store ${String(g).padStart(3, '0')}`,
      members: list
        .slice(g * perGroup, (g + 1) * perGroup)
        .map((d) => (d.id.kind === 'account' ? d.id.account : '')),
      source,
    })),
    prune: { guides: false, groups: false },
  };
}

async function callCount(url: string, reset = false): Promise<number> {
  const res = await fetch(`${url}/__sim/calls`, { method: 'POST', body: JSON.stringify({ reset }) });
  return ((await res.json()) as { calls: unknown[] }).calls.length;
}

function ratioLine(label: string, calls: number, minimum: number, seconds: number): string {
  const ideal = (calls * LATENCY_MS) / 1000 / PARALLELISM;
  return `  ${label}: ${calls.toLocaleString('en')} calls (minimum ${minimum.toLocaleString('en')}), ${seconds.toFixed(2)} s; ideal ${ideal.toFixed(2)} s; ratio ${(seconds / ideal).toFixed(2)} (aim: calls = minimum, ratio <= 1.3)`;
}

export async function benchReconcile(): Promise<void> {
  const desired = desiredState(GUIDES, GROUPS);
  const dir = await mkdtemp(join(tmpdir(), 'guidectl-bench-'));
  const serve = await startServeProcess([
    '--db',
    join(dir, 'bench.db'),
    '--simulation',
    '--faults',
    `latency=${LATENCY_MS}ms`,
  ]);
  const client = createGuideClient({
    baseUrl: serve.url,
    auth: { appid: serve.appid, secret: serve.secret },
    parallelism: PARALLELISM,
    readBeforeAppends: false,
  });
  try {
    const scope = readScopeFor(desired);
    const readMinimum = Math.ceil(GUIDES / 100) + 1 + GROUPS * Math.ceil(GUIDES / GROUPS / 100) + GUIDES;
    console.log(
      `reconciler (guidectl serve with latency=${LATENCY_MS}ms, parallelism ${PARALLELISM}, ${GUIDES.toLocaleString('en')} guides in ${GROUPS} groups)`,
    );

    // 2. Apply to an empty account: read, plan, make the calls, read again to check convergence.
    await client.getguidegrouplist(); // token fetched outside the measurement
    await callCount(serve.url, true);
    let started = performance.now();
    const empty = await readLiveState(readOnlyClient(client), scope);
    const plan = planChanges(desired, empty).plan;
    if (plan === undefined) throw new Error('plan failed');
    const result = await executePlan(plan, client, { parallelism: PARALLELISM });
    const failed = result.outcomes.filter((o) => o.status !== 'done').length;
    const after = await readLiveState(readOnlyClient(client), scope);
    const left = planChanges(desired, after).plan?.calls.length ?? -1;
    let seconds = (performance.now() - started) / 1000;
    let calls = await callCount(serve.url, true);
    const applyMinimum = 2 + plan.calls.length + readMinimum;
    console.log(ratioLine('apply to an empty account (read, write, re-read)', calls, applyMinimum, seconds));
    console.log(
      `    ${plan.calls.length.toLocaleString('en')} writes, ${failed} not done, ${left} calls left after apply`,
    );

    // 1. Plan over the account that apply made.
    started = performance.now();
    const live = await readLiveState(readOnlyClient(client), scope);
    const again = planChanges(desired, live).plan;
    seconds = (performance.now() - started) / 1000;
    calls = await callCount(serve.url, true);
    console.log(ratioLine('plan (read and diff)', calls, readMinimum, seconds));
    console.log(`    ${again?.calls.length ?? -1} changes planned (0 expected)`);
  } finally {
    await client.close();
    await serve.stop();
    await rm(dir, { recursive: true, force: true });
  }
  await benchPlanInMemory();
}

/**
 * 3. Diff and plan alone for 100,000 guides, in a process of its own so that its peak memory is
 * its own (`process.resourceUsage().maxRSS`).
 */
async function benchPlanInMemory(): Promise<void> {
  const script = fileURLToPath(new URL('./plan-memory.js', import.meta.url));
  const out = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, [script], { maxBuffer: 1 << 20 }, (error, stdout) =>
      error === null ? resolve(stdout) : reject(error),
    );
  });
  const figures = JSON.parse(out) as { seconds: number; peakMb: number; calls: number };
  console.log(
    `  diff and plan in memory, 100,000 guides: ${figures.seconds.toFixed(2)} s, peak RSS ${figures.peakMb} MB of the whole process (aim < 2 s, < 500 MB); ${figures.calls.toLocaleString('en')} calls planned`,
  );
}
