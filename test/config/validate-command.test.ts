import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/config/index.js';
import { ALICE_ALONE, runCli } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Run {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `guidectl validate …` (or `command`) in-process, from the repository's root (where the examples and fixtures are). */
async function run(
  args: readonly string[],
  options: { tty?: boolean; env?: Record<string, string>; command?: readonly string[] } = {},
): Promise<Run> {
  const { command, ...rest } = options;
  const { code, stdout, stderr } = await runCli([...(command ?? ['validate']), ...args], {
    ...rest,
    cwd: ROOT,
  });
  return { status: code, stdout, stderr };
}

describe('guidectl validate', () => {
  it('exit 0 and a summary for valid files', async () => {
    const { status, stdout, stderr } = await run(['examples/retail-chain/']);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toBe('valid: 5 files, 50 guides, 13 groups\n');
  });

  it('exit 1 with file:line:col lines, the source line, a hint and a summary', async () => {
    const { status, stdout } = await run(['test/config/fixtures/nickname-too-long.yaml']);
    expect(status).toBe(1);
    expect(stdout).toBe(
      [
        'test/config/fixtures/nickname-too-long.yaml:5:15: error: nickname "Alexandra the Great" is 19 characters; the limit is 16 [nickname-too-long]',
        '  5 |     nickname: Alexandra the Great',
        '    |               ^^^^^^^^^^^^^^^^^^^',
        '1 error in 1 file',
        '',
      ].join('\n'),
    );
  });

  it('warnings alone exit 0', async () => {
    const { status, stdout } = await run(['test/config/fixtures/member-unknown.yaml']);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^test\/config\/fixtures\/member-unknown\.yaml:6:25: warning: member carol_wx /);
    expect(stdout).toMatch(/\nvalid with 1 warning: 1 file, 1 guide, 1 group\n$/);
  });

  it('--json prints the diagnostics as a JSON array and nothing else', async () => {
    const { status, stdout, stderr } = await run(['--json', 'test/config/fixtures/guide-duplicate']);
    expect(status).toBe(1);
    expect(stderr).toBe('');
    const parsed: unknown = JSON.parse(stdout);
    expect(parsed).toEqual([
      {
        severity: 'error',
        code: 'guide-duplicate',
        message: 'guide alice_wx is also defined at test/config/fixtures/guide-duplicate/a.yaml:3:5',
        file: 'test/config/fixtures/guide-duplicate/b.yaml',
        line: 3,
        column: 14,
        endLine: 3,
        endColumn: 22,
        hint: 'each guide is defined once; merge the two definitions',
        related: [
          {
            file: 'test/config/fixtures/guide-duplicate/a.yaml',
            line: 3,
            column: 5,
            message: 'guide alice_wx first defined here',
          },
        ],
      },
      expect.objectContaining({ code: 'guide-duplicate', line: 9, column: 13 }),
    ]);
  });

  it('--json on valid files prints an empty array', async () => {
    const { status, stdout } = await run(['examples/small-store.yaml', '--json']);
    expect(status).toBe(0);
    expect(stdout).toBe('[]\n');
  });

  it('a missing path is a diagnostic and exit 1, not a stack trace', async () => {
    const { status, stdout, stderr } = await run(['no/such/guides.yaml']);
    expect(status).toBe(1);
    expect(stderr).toBe('');
    expect(stdout).toContain('no/such/guides.yaml:1:1: error: no such file or folder [path-not-found]');
  });

  it('a mistyped path: "did you mean" the near name in its folder', async () => {
    const typo = await run(['examples/small-stor.yaml']);
    expect(typo.status).toBe(1);
    expect(typo.stdout).toContain(
      'examples/small-stor.yaml:1:1: error: no such file or folder; did you mean examples/small-store.yaml? [path-not-found]',
    );
    // A folder too; and nothing is guessed when no name is near.
    expect((await run(['exampels'])).stdout).toContain('did you mean examples?');
    expect((await run(['examples/guides-of-another-shop.yaml'])).stdout).not.toContain('did you mean');
    // plan and apply load their files the same way (and read nothing when they are wrong).
    for (const command of [['plan'], ['apply', '--auto-approve']]) {
      const refused = await run(['examples/small-stor.yaml', '--local-db', ':memory:'], { command });
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain(
        'examples/small-stor.yaml:1:1: error: no such file or folder; did you mean examples/small-store.yaml?',
      );
    }
  });

  it('a mistyped folder in the path: "did you mean" the path with the first missing folder mended', async () => {
    const typo = await run(['exmaples/small-store.yaml']);
    expect(typo.status).toBe(1);
    expect(typo.stdout).toContain(
      'exmaples/small-store.yaml:1:1: error: no such file or folder; did you mean examples/small-store.yaml? [path-not-found]',
    );
    // Each missing segment after it is mended too; when one has no near name, the folder is the guess.
    expect((await run(['exmaples/retial-chain/chian.yaml'])).stdout).toContain(
      'did you mean examples/retail-chain/chain.yaml?',
    );
    expect((await run(['exmaples/guides-of-another-shop.yaml'])).stdout).toContain(
      `did you mean examples${nodePath.sep}?`,
    );
    // No guess below a file, or when no folder name is near.
    expect((await run(['examples/small-store.yaml/x.yaml'])).stdout).not.toContain('did you mean');
    expect((await run(['nothing-like-it/small-store.yaml'])).stdout).not.toContain('did you mean');
  });

  it('needs at least one path', async () => {
    const { status, stderr } = await run([]);
    expect(status).toBe(1);
    expect(stderr).toContain("missing required argument 'paths'");
  });

  it('colour only on a terminal, and never with NO_COLOR', async () => {
    const file = 'test/config/fixtures/nickname-too-long.yaml';
    expect((await run([file], { tty: true })).stdout).toContain('\u001b[31m');
    expect((await run([file], { tty: true, env: { NO_COLOR: '1' } })).stdout).not.toContain('\u001b[');
    expect((await run([file])).stdout).not.toContain('\u001b[');
    expect((await run([file, '--json'], { tty: true })).stdout).not.toContain('\u001b[');
  });

  it('shows paths relative to the working folder', async () => {
    const absolute = nodePath.join(ROOT, 'test/config/fixtures/yaml-tab-indent.txt');
    const { stdout } = await run([absolute]);
    expect(stdout.startsWith('test/config/fixtures/yaml-tab-indent.txt:5:1: error: ')).toBe(true);
  });
});

describe('files that are not desired-state files are never quoted', () => {
  const SECRET = 'WECHAT_SECRET=0123456789abcdef0123456789abcdef';
  const tmp = mkdtempSync(nodePath.join(tmpdir(), 'guidectl-validate-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const GUIDE = ALICE_ALONE;

  it('a *.yaml link out of the folder is refused, naming the link, and its target is not read', async () => {
    const folder = nodePath.join(tmp, 'desired');
    mkdirSync(nodePath.join(folder, 'sub'), { recursive: true });
    writeFileSync(nodePath.join(folder, 'a.yaml'), GUIDE);
    writeFileSync(nodePath.join(folder, 'sub', 'real.yml'), 'version: 1\n');
    symlinkSync(nodePath.join(folder, 'sub', 'real.yml'), nodePath.join(folder, 'inside.yaml'));
    writeFileSync(nodePath.join(tmp, 'env'), `${SECRET}\n`);
    symlinkSync(nodePath.join(tmp, 'env'), nodePath.join(folder, 'z-link.yaml'));

    const result = await loadDesiredState([folder]);
    expect(result.diagnostics).toMatchObject([
      {
        code: 'file-outside-folder',
        file: nodePath.join(folder, 'z-link.yaml'),
        line: 1,
        column: 1,
        message: `this is a symbolic link to ${nodePath.join(tmp, 'env')}, outside the folder given; it is not read`,
      },
    ]);
    expect(result.files.map((f) => nodePath.basename(f.file))).toEqual(['a.yaml', 'inside.yaml']);
    const { status, stdout } = await run([folder]);
    expect(status).toBe(1);
    expect(stdout).toContain('z-link.yaml:1:1: error: this is a symbolic link');
    expect(stdout).not.toContain('0123456789abcdef');
  });

  it('a file that is not a YAML mapping: no line and no value of it is shown', async () => {
    const env = nodePath.join(tmp, 'secrets.yaml');
    writeFileSync(env, `# deploy settings\n${SECRET}\n`);
    const result = await loadDesiredState([env]);
    expect(result.diagnostics.map((d) => `${d.code} ${d.line}:${d.column} ${d.message}`)).toEqual([
      'top-level-not-mapping 2:1 the top level of the file is text; it must be a mapping of keys such as "version", "guides" and "groups"',
    ]);
    expect(result.files).toEqual([]);
    const { stdout } = await run([env]);
    expect(stdout).not.toContain('0123456789abcdef');
    expect(stdout).not.toContain('deploy settings');
  });

  it('YAML that cannot be read is not quoted before its "version:" line (tabs, syntax errors), in every command', async () => {
    const folder = nodePath.join(tmp, 'broken');
    mkdirSync(folder);
    writeFileSync(nodePath.join(folder, 'guides.yaml'), 'version: 1\nguides: []\n');
    writeFileSync(nodePath.join(folder, 'secrets.yaml'), 'db:\n  password: "hunter2"x\n');
    writeFileSync(nodePath.join(folder, 'ci.yaml'), 'api:\n\ttoken: tok_live_123\n');
    writeFileSync(nodePath.join(folder, 'late.yaml'), 'key: sk_9f8e7d\n\tx: 1\nversion: 1\n');
    for (const command of [['validate'], ['validate', '--json'], ['plan'], ['plan', '--json']]) {
      const { status, stdout, stderr } = await run([folder], { command });
      expect(status).toBe(1);
      expect(stdout + stderr).toMatch(/ci\.yaml"?[,:]/);
      for (const secret of ['hunter2', 'tok_live_123', 'sk_9f8e7d'])
        expect(stdout + stderr).not.toContain(secret);
    }
    const { stdout } = await run([folder]);
    expect(stdout).toContain('ci.yaml:2:1: error: a tab is used for indentation');
    expect(stdout).toContain('secrets.yaml:2:22: error: invalid YAML');
    // From the "version:" line on, the file is a desired-state file: its lines are shown.
    writeFileSync(nodePath.join(folder, 'ci.yaml'), 'version: 1\nguides:\n\t- nickname: Tab\n');
    expect((await run([folder])).stdout).toContain('3 |     - nickname: Tab');
  });

  it('an unknown top-level key of a desired-state file is named, its value (and line) not shown', async () => {
    const file = nodePath.join(tmp, 'pasted.yaml');
    writeFileSync(file, `version: 1\nWECHAT_SECRET: 0123456789abcdef0123456789abcdef\n`);
    const { status, stdout } = await run([file]);
    expect(status).toBe(1);
    expect(stdout).toContain(
      'pasted.yaml:2:1: error: unknown key "WECHAT_SECRET" in the top level of the file',
    );
    expect(stdout).not.toContain('0123456789abcdef');
  });

  it('a file without "version" shows none of its lines, though it has a key of the format', async () => {
    const file = nodePath.join(tmp, 'deploy.yaml');
    writeFileSync(file, 'WECHAT_SECRET: topsecret123\naccount: admin\n');
    for (const command of [['validate'], ['validate', '--json'], ['plan']]) {
      const { status, stdout, stderr } = await run([file], { command });
      expect(status).toBe(1);
      expect(stdout + stderr).toContain('version-missing');
      expect(stdout + stderr).not.toContain('topsecret123');
      expect(stdout + stderr).not.toMatch(/^\s*\d+ \| /m);
    }
  });

  it('a mapping with none of the keys of the format is not a desired-state file: no line of it is shown', async () => {
    const creds = nodePath.join(tmp, 'creds.yaml');
    writeFileSync(creds, 'appid: wx1234567890abcdef\nsecret: 0123456789abcdef0123456789abcdef\n');
    const result = await loadDesiredState([creds]);
    expect(result.diagnostics.map((d) => `${d.code} ${d.line}:${d.column}`)).toEqual([
      'file-not-desired-state 1:1',
    ]);
    expect(result.files).toEqual([]);
    const { status, stdout } = await run([creds]);
    expect(status).toBe(1);
    expect(stdout).not.toContain('0123456789abcdef');
    // A desired-state file with a mistake is still quoted.
    const guide = nodePath.join(tmp, 'guide.yaml');
    writeFileSync(guide, GUIDE.replace('Alice', 'Alexandra the Great'));
    expect((await run([guide])).stdout).toContain('nickname: Alexandra the Great');
  });
});
