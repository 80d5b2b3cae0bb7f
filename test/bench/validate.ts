import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { loadDesiredState } from '../../src/config/index.js';

/**
 * `guidectl validate` on a generated file of 10,000 guides, in a fresh process (as the command
 * runs: cold, schema compiled on first use) so that its peak RSS is its own; three runs, the
 * median time and the highest peak RSS are printed. Aim (issue 10, goal 5): under 0.6 s and under
 * 200 MB. The CPU time of the run is printed beside its wall time: on a busy machine the wall time
 * says more about the other processes than about guidectl.
 *
 * The file is what a large chain would write: every guide with account, nickname and picture; one
 * in five with three quick replies; one in ten with two welcome messages (text, then image or
 * mini-program card); 200 store groups of 50 members; the account settings.
 */
const GUIDES = 10_000;
const GROUPS = 200;
const AIM_SECONDS = 0.6;
const AIM_MB = 200;
const RUNS = 3;

export function generateDesiredState(guides: number, groups: number): string {
  const lines: string[] = [
    '# yaml-language-server: $schema=../schema/guidectl.schema.json',
    'version: 1',
    'account:',
    '  offline_auto_reply: "We are offline now, back at 9:00."',
    '  sensitive_words:',
    '    semantics: append',
    '    words: [refund, cheap, 退款, 差评]',
    '  default_welcome:',
    '    - text: "Welcome to our store!"',
    'groups:',
  ];
  const perGroup = Math.ceil(guides / groups);
  for (let g = 0; g < groups; g++) {
    lines.push(`  - name: Store ${g + 1}`, '    members:');
    for (let i = g * perGroup; i < Math.min(guides, (g + 1) * perGroup); i++)
      lines.push(`      - guide_${i}`);
  }
  lines.push('guides:');
  for (let i = 0; i < guides; i++) {
    lines.push(
      `  - account: guide_${i}`,
      `    nickname: Guide ${i}`,
      `    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/store${i % groups}/guide_${i}/0`,
    );
    if (i % 5 === 0) {
      lines.push(
        '    quick_replies:',
        '      - "Hello! How can I help you today?"',
        '      - "Let me check that for you."',
        `      - "I am at Store ${(i % groups) + 1} until 21:00."`,
      );
    }
    if (i % 10 === 0) {
      lines.push('    welcome:', `      - text: "Hi, I am Guide ${i}."`);
      if (i % 20 === 0) lines.push(`      - image: MEDIA_${i}`);
      else
        lines.push(
          '      - miniprogram:',
          '          appid: wx1234567890abcdef',
          '          title: New arrivals',
          `          path: pages/store/index?guide=${i}`,
          '          media_id: COVER_MEDIA_ID',
        );
    }
  }
  lines.push('prune:', '  guides: true', '  groups: false', '');
  return lines.join('\n');
}

interface ChildReport {
  readonly seconds: number;
  /** User and system CPU time of the validation, in seconds. */
  readonly cpuSeconds: number;
  readonly maxRssMb: number;
  readonly heapUsedMb: number;
  readonly guides: number;
  readonly diagnostics: number;
}

/** Run in the child: validate once, report time and memory as one JSON line. */
async function child(file: string): Promise<void> {
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const result = await loadDesiredState([file]);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStarted);
  const report: ChildReport = {
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    // ru_maxrss is in kilobytes on Linux and macOS.
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    heapUsedMb: process.memoryUsage().heapUsed / (1024 * 1024),
    guides: result.state?.guides.length ?? 0,
    diagnostics: result.diagnostics.length,
  };
  console.log(JSON.stringify(report));
}

export async function benchValidate(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'guidectl-bench-validate-'));
  try {
    const file = join(dir, 'guides.yaml');
    await writeFile(file, generateDesiredState(GUIDES, GROUPS));
    const { size } = await stat(file);
    const self = fileURLToPath(import.meta.url);
    const reports: ChildReport[] = [];
    for (let run = 0; run < RUNS; run++) {
      const { stdout } = await promisify(execFile)(process.execPath, [self, '--child', file], {
        maxBuffer: 1024 * 1024,
      });
      const report: ChildReport = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
      if (report.guides !== GUIDES || report.diagnostics !== 0) {
        throw new Error(`the generated file did not validate: ${stdout}`);
      }
      reports.push(report);
    }
    const times = reports.map((r) => r.seconds).sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] ?? Number.NaN;
    const cpus = reports.map((r) => r.cpuSeconds).sort((a, b) => a - b);
    const medianCpu = cpus[Math.floor(cpus.length / 2)] ?? Number.NaN;
    const peak = Math.max(...reports.map((r) => r.maxRssMb));
    const heap = Math.max(...reports.map((r) => r.heapUsedMb));
    const ok = median < AIM_SECONDS && peak < AIM_MB;
    console.log(
      `validate ${GUIDES.toLocaleString('en-US')} guides (${(size / (1024 * 1024)).toFixed(1)} MiB, ${GROUPS} groups, one file, fresh process): ` +
        `${median.toFixed(2)} s (median of ${RUNS}; ${times.map((t) => t.toFixed(2)).join(', ')}; CPU ${medianCpu.toFixed(2)} s), ` +
        `peak RSS ${peak.toFixed(0)} MB, heap after ${heap.toFixed(0)} MB ` +
        `(aim < ${AIM_SECONDS} s, < ${AIM_MB} MB)${ok ? '' : ' — ABOVE AIM'}`,
    );
    await benchManyKeys(dir, self);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Keys in the one mapping of the bad-input run: the size that took over 11 minutes (issue 14). */
const BAD_KEYS = 200_000;
const BAD_AIM_SECONDS = 2;

/**
 * Bad input must not cost much: one mapping of 200,000 unknown keys (3 MB), validated in a fresh
 * process; prints the time and the diagnostics returned (100 and one that counts the rest).
 */
async function benchManyKeys(dir: string, self: string): Promise<void> {
  const file = join(dir, 'many-keys.yaml');
  const keys = Array.from({ length: BAD_KEYS }, (_, i) => `  key_${i}: ${i}\n`).join('');
  await writeFile(file, `version: 1\naccount:\n${keys}`);
  const { size } = await stat(file);
  const { stdout } = await promisify(execFile)(process.execPath, [self, '--child', file], {
    maxBuffer: 1024 * 1024,
  });
  const report: ChildReport = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
  console.log(
    `validate one mapping of ${BAD_KEYS.toLocaleString('en-US')} unknown keys (${(size / (1024 * 1024)).toFixed(1)} MiB, fresh process): ` +
      `${report.seconds.toFixed(2)} s (CPU ${report.cpuSeconds.toFixed(2)} s), peak RSS ${report.maxRssMb.toFixed(0)} MB, ${report.diagnostics} diagnostics returned ` +
      `(aim < ${BAD_AIM_SECONDS} s)${report.seconds < BAD_AIM_SECONDS ? '' : ' — ABOVE AIM'}`,
  );
}

if (process.argv[2] === '--child' && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await child(process.argv[3] ?? '');
}
