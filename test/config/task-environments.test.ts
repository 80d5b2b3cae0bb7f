// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${name} in plain strings is the syntax under test
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/config/index.js';
import { runCli, useWorkspace } from '../helpers/cli.js';

// Tasks in a repository of several accounts: openids are per account, so a task exists only in
// the environments of its only_in, and its recipients_file may name each environment's list.

const ws = useWorkspace();

/** A marketing calendar of two environments: one task in both (its list by ${market}), one in staging only. */
const CALENDAR = `version: 1
environments:
  staging:
    values:
      market: staging
  production:
    values:
      market: prod
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://mmbiz.qpic.cn/alice/0
  - account: qa_bot_wx
    only_in: [staging]
    nickname: QA
    head_image_url: https://mmbiz.qpic.cn/qa/0
tasks:
  - name: Spring sale
    guide: alice_wx
    push_at: "2026-12-01T10:00:00+08:00"
    recipients_file: customers/\${market}-vip.csv
    materials:
      - text: Hello
  - name: QA check
    guide: qa_bot_wx
    only_in: [staging]
    push_at: "2026-12-01T10:00:00+08:00"
    recipients: [oQa]
    materials:
      - text: Testing
`;

async function setUp(files: Record<string, string>): Promise<string> {
  await mkdir(join(ws().dir, 'customers'), { recursive: true });
  for (const [name, text] of Object.entries(files)) await ws().write(name, text);
  return ws().dir;
}

const validate = (args: readonly string[]) => runCli(['validate', ...args], { cwd: ws().dir });

describe('tasks in a repository of several environments', () => {
  it('only_in keeps a task to its environments, and each reads its own recipients file; validate counts them', async () => {
    const dir = await setUp({
      'calendar.yaml': CALENDAR,
      'customers/staging-vip.csv': 'oStaff1\noStaff2\n',
      'customers/prod-vip.csv': 'name;openid\nAnn;oAnn\nBo;oBo\nCy;oCy\n',
    });
    const result = await loadDesiredState(['calendar.yaml'], { cwd: dir });
    expect(result.diagnostics).toEqual([]);
    const tasks = (env: string) =>
      result.states?.get(env)?.tasks?.map((t) => ({ name: t.name, recipients: t.recipients }));
    expect(tasks('staging')).toEqual([
      { name: 'Spring sale', recipients: ['oStaff1', 'oStaff2'] },
      { name: 'QA check', recipients: ['oQa'] },
    ]);
    expect(tasks('production')).toEqual([{ name: 'Spring sale', recipients: ['oAnn', 'oBo', 'oCy'] }]);

    const run = await validate(['calendar.yaml']);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toBe(
      'valid: 1 file, 2 environments (staging: 2 guides, 0 groups, 2 tasks; production: 1 guide, 0 groups, 1 task)\n',
    );
  });

  it("a missing environment's list is an error at the ${…} of the key, naming the environment and its value", async () => {
    await setUp({ 'calendar.yaml': CALENDAR, 'customers/staging-vip.csv': 'oStaff1\n' });
    const run = await validate(['calendar.yaml']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      'calendar.yaml:21:32: error: in environment production (${market} = "prod"): recipients_file "customers/prod-vip.csv" cannot be read: no such file or folder [recipients-file-not-found]\n',
    );
    const json = await validate(['--json', 'calendar.yaml']);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({
        code: 'recipients-file-not-found',
        file: 'calendar.yaml',
        line: 21,
        column: 32,
        environments: ['production'],
      }),
    ]);
    // Staging alone has its list.
    expect((await validate(['--env', 'staging', 'calendar.yaml'])).code).toBe(0);
  });

  it('a value missing in one environment, or in all, is said as in any other string', async () => {
    const noProd = CALENDAR.replace('      market: prod\n', '      shop: x\n');
    await setUp({ 'calendar.yaml': noProd, 'customers/staging-vip.csv': 'oStaff1\n' });
    const run = await validate(['--json', 'calendar.yaml']);
    expect(JSON.parse(run.stdout)).toEqual([
      expect.objectContaining({
        code: 'env-value-missing',
        line: 21,
        column: 32,
        message: 'in environment production: there is no value "market" (staging has one)',
      }),
    ]);
    await ws().write('calendar.yaml', CALENDAR.replace('${market}', '${markt}'));
    const unknown = JSON.parse((await validate(['--json', 'calendar.yaml'])).stdout);
    expect(unknown.map((d: { code: string }) => d.code)).toEqual(['env-value-unknown']);
    expect(unknown[0].message).toContain('did you mean "market"?');
  });

  it('a task out of an environment is not checked there; only_in on a task is checked as on a guide', async () => {
    // qa_bot_wx's task in staging only: its mistakes are staging's.
    const bad = CALENDAR.replace(
      '    push_at: "2026-12-01T10:00:00+08:00"\n    recipients: [oQa]',
      '    push_at: "soon"\n    recipients: [oQa]',
    );
    await setUp({
      'calendar.yaml': bad,
      'customers/staging-vip.csv': 'oStaff1\n',
      'customers/prod-vip.csv': 'oAnn\n',
    });
    const run = JSON.parse((await validate(['--json', 'calendar.yaml'])).stdout);
    expect(run).toEqual([
      expect.objectContaining({ code: 'push-at-invalid', line: 27, environments: ['staging'] }),
    ]);

    await ws().write(
      'calendar.yaml',
      CALENDAR.replace('only_in: [staging]\n    push_at', 'only_in: [stagin]\n    push_at'),
    );
    const near = JSON.parse((await validate(['--json', 'calendar.yaml'])).stdout);
    expect(near).toEqual([
      expect.objectContaining({
        code: 'only-in-unknown',
        line: 26,
        message: 'no environment is named "stagin"; did you mean "staging"?',
      }),
    ]);
    await ws().write(
      'calendar.yaml',
      CALENDAR.replace('only_in: [staging]\n    push_at', 'only_in: []\n    push_at'),
    );
    const empty = JSON.parse((await validate(['--json', 'calendar.yaml'])).stdout);
    expect(empty).toEqual([
      expect.objectContaining({
        code: 'only-in-empty',
        message: 'only_in is empty: this task would exist in no environment',
      }),
    ]);
  });

  it('validate counts the tasks of files without environments', async () => {
    await setUp({
      'one.yaml': [
        'version: 1',
        'guides:',
        '  - account: alice_wx',
        '    nickname: Alice',
        '    head_image_url: https://mmbiz.qpic.cn/alice/0',
        'tasks:',
        '  - name: Spring sale',
        '    guide: alice_wx',
        '    push_at: "2026-12-01T10:00:00+08:00"',
        '    recipients: [oAnn]',
        '    materials:',
        '      - text: Hello',
        '',
      ].join('\n'),
    });
    const run = await validate(['one.yaml']);
    expect(run.stdout).toBe('valid: 1 file, 1 guide, 0 groups, 1 task\n');
  });
});
