import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRecipients } from '../../src/config/recipients-file.js';
import { runCli, useWorkspace } from '../helpers/cli.js';

const read = (text: string) => {
  const { openids, diagnostics } = parseRecipients('vip.csv', text);
  return {
    openids,
    problems: diagnostics.map((d) => `${d.severity} ${d.code} ${d.line}:${d.column} ${d.message}`),
  };
};

describe('recipients files', () => {
  it('reads one openid a line, skipping blank lines and # comments, as a sorted set', () => {
    expect(read('# VIPs\noB\n\n  oA  \r\noC\n')).toEqual({ openids: ['oA', 'oB', 'oC'], problems: [] });
  });

  it('reads the openid column of a CSV file, quoted fields and all, whatever its place', () => {
    const csv = 'name,OpenID,phone\n"Lee, Ann",oA,1\n"Bo ""B"" Li", "oB" ,2\n';
    expect(read(csv)).toEqual({ openids: ['oA', 'oB'], problems: [] });
    expect(read('openid\noA\n')).toEqual({ openids: ['oA'], problems: [] });
  });

  it('warns of a repeated openid at its line, naming the first', () => {
    expect(read('oA\noB\noA\n').problems).toEqual([
      'warning recipient-duplicate 3:1 recipient oA is listed twice (first at line 1); it is sent once',
    ]);
  });

  it('points at the line and column of a bad value, every one of them', () => {
    expect(read('name,openid\nAnn,oA\nBo,o B\nCy,\n').problems).toEqual([
      'error recipients-file-bad-line 3:4 not an openid: its character 2 (of 3) is a space; an openid has 1 to 64 letters, digits, "_" or "-"',
      'error recipients-file-bad-line 4:4 this line has no openid',
    ]);
  });

  it('refuses a CSV header without an openid column, and a file without openids', () => {
    expect(read('name,phone\nAnn,1\n').problems).toEqual([
      'error recipients-file-bad-line 1:1 this CSV header has no "openid" column (it has 2 columns)',
    ]);
    expect(read('# nobody yet\n\n').problems).toEqual([
      'error recipients-file-empty 1:1 the recipients file lists no openid; a task is sent to at least one customer',
    ]);
    expect(read('openid\n').problems.map((p) => p.split(' ')[1])).toEqual(['recipients-file-empty']);
  });
});

describe('recipients files separated otherwise than by commas', () => {
  it('reads the openid column of a file separated by semicolons (European Excel) or tabs', () => {
    // Excel where the comma is the decimal mark: "CSV" with semicolons, commas inside fields.
    const excel = 'Name;OpenID;Spent\r\n"Lee; Ann";oA;1,50\r\nBo;oB;2,00\r\n';
    expect(read(excel)).toEqual({ openids: ['oA', 'oB'], problems: [] });
    expect(read('openid\tname\noA\tAnn\noB\tBo, Li\n')).toEqual({ openids: ['oA', 'oB'], problems: [] });
    // Columns are counted by the delimiter of the header.
    expect(read('name;openid\nAnn;o A\n').problems).toEqual([
      'error recipients-file-bad-line 2:5 not an openid: its character 2 (of 3) is a space; an openid has 1 to 64 letters, digits, "_" or "-"',
    ]);
  });

  it('says a file looks semicolon-separated when no header line says how it is read', () => {
    expect(read('name;phone\nAnn;1\n').problems).toEqual([
      'error recipients-file-bad-line 1:1 this CSV header has no "openid" column (it has 2 columns, separated by semicolons)',
    ]);
    expect(read('oAnn;Ann\noBo;Bo\n').problems).toEqual([
      'error recipients-file-bad-line 1:1 this CSV header has no "openid" column (it has 2 columns, separated by semicolons)',
    ]);
    // Past a first line of one openid, a line of fields is not an openid, and says why.
    expect(read('oAnn\noBo;Bo\n').problems[0]).toBe(
      'error recipients-file-bad-line 2:1 not an openid: its character 4 (of 6) is ";": the file looks like CSV separated by semicolons; give it a header line with an "openid" column',
    );
  });
});

describe('validate and a recipients_file', () => {
  const ws = useWorkspace();
  // What a `.env` beside the repository holds: it must never reach the output.
  const SECRET = '9f8e7d6c5b4a39281706f5e4d3c2b1a0';
  const tasksYaml = (recipientsFile: string) =>
    [
      'version: 1',
      'guides:',
      '  - account: alice_wx',
      '    nickname: Alice',
      '    head_image_url: https://mmbiz.qpic.cn/alice/0',
      'tasks:',
      '  - name: Spring sale',
      '    guide: alice_wx',
      '    push_at: "2026-12-01T10:00:00+08:00"',
      `    recipients_file: ${recipientsFile}`,
      '    materials:',
      '      - text: Hello',
      '',
    ].join('\n');

  /** A repository folder `repo/` holding tasks.yaml, with `.env` beside it (outside it). */
  async function setUp(recipientsFile: string): Promise<string> {
    const dir = ws().dir;
    mkdirSync(join(dir, 'repo', 'customers'), { recursive: true });
    await ws().write('.env', `# secrets\nWECHAT_SECRET=${SECRET}\noSecretLooksLikeAnOpenid\n`);
    await ws().write('repo/tasks.yaml', tasksYaml(recipientsFile));
    return join(dir, 'repo');
  }

  const validate = (cwd: string) => runCli(['validate', '--json', 'tasks.yaml'], { cwd });

  it.each([
    ['../.env', 'leads outside the folder of this YAML file'],
    ['customers/../../.env', 'leads outside the folder of this YAML file'],
    ['ABSOLUTE', 'is an absolute path'],
    ['link.csv', 'is a symbolic link'],
    ['linked/.env', 'is a symbolic link'],
  ])('refuses %s at the key, unread, and says to keep the list in the folder', async (given, why) => {
    const dir = await setUp(given === 'ABSOLUTE' ? join(ws().dir, '.env') : given);
    symlinkSync(join(ws().dir, '.env'), join(dir, 'link.csv'));
    symlinkSync(ws().dir, join(dir, 'linked'));
    const { code, stdout, stderr } = await validate(dir);
    expect(code).toBe(1);
    expect(`${stdout}${stderr}`).not.toMatch(/9f8e|WECHAT|oSecret/);
    const diagnostics = JSON.parse(stdout);
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: 'recipients-file-outside-folder',
        file: 'tasks.yaml',
        line: 10,
        column: 22,
        message: expect.stringContaining(why),
        hint: expect.stringContaining(
          'keep the list of recipients in the folder of this YAML file or below it',
        ),
      }),
    ]);
  });

  it.each([
    ['.env', 'names a hidden file or folder'],
    ['./.env', 'names a hidden file or folder'],
    ['customers/../.env', 'names a hidden file or folder'],
    ['.secrets/vip.csv', 'names a hidden file or folder'],
    ['vip.csv', 'is a symbolic link (or lies in a linked folder) that leads to a hidden file or folder'],
  ])('refuses %s (hidden, in the folder) at the key, unread, and names the fix', async (given, why) => {
    const dir = await setUp(given);
    // A `.env` in the repository's own folder, with a bare token that passes for an openid.
    await ws().write('repo/.env', `WECHAT_SECRET=${SECRET}\noSecretLooksLikeAnOpenid\n`);
    mkdirSync(join(dir, '.secrets'));
    await ws().write('repo/.secrets/vip.csv', 'oSecretLooksLikeAnOpenid\n');
    symlinkSync('.env', join(dir, 'vip.csv'));
    const { code, stdout, stderr } = await validate(dir);
    expect(code).toBe(1);
    expect(`${stdout}${stderr}`).not.toMatch(/9f8e|WECHAT|oSecret/);
    expect(JSON.parse(stdout)).toEqual([
      expect.objectContaining({
        code: 'recipients-file-hidden',
        file: 'tasks.yaml',
        line: 10,
        column: 22,
        message: `recipients_file "${given}" ${why} (a name starting with "."); it is not read`,
        hint: expect.stringContaining('give the list a name that is not hidden'),
      }),
    ]);
  });

  it('a path naming the folder itself says it is a folder', async () => {
    const dir = await setUp('customers/..');
    const { code, stdout } = await validate(dir);
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toEqual([
      expect.objectContaining({
        code: 'recipients-file-not-found',
        message: 'recipients_file "customers/.." cannot be read: this is a folder, not a file',
      }),
    ]);
  });

  it('reads a list in a folder below, and names a bad line of it without quoting the line', async () => {
    const dir = await setUp('customers/vip.csv');
    await ws().write('repo/customers/vip.csv', `oA\nWECHAT_SECRET=${SECRET}\n${'o'.repeat(70)}\n`);
    const { code, stdout } = await runCli(['validate', 'tasks.yaml'], { cwd: dir });
    expect(code).toBe(1);
    expect(stdout).not.toMatch(/9f8e|WECHAT/);
    expect(stdout).toContain(
      'customers/vip.csv:2:1: error: not an openid: its character 14 (of 46) is a character an openid cannot hold;',
    );
    expect(stdout).toContain('customers/vip.csv:3:1: error: not an openid: it is 70 characters;');
    await ws().write('repo/customers/vip.csv', 'oA\noB\n');
    expect(await runCli(['validate', 'tasks.yaml'], { cwd: dir })).toMatchObject({ code: 0 });
  });
});
