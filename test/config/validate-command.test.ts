import * as nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { runProgram } from '../../src/cli/program.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Run {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function run(
  args: readonly string[],
  options: { tty?: boolean; env?: Record<string, string> } = {},
): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: {
      write: (s) => {
        stdout += s;
      },
      isTTY: options.tty === true,
    },
    stderr: {
      write: (s) => {
        stderr += s;
      },
      isTTY: false,
    },
    env: options.env ?? {},
    cwd: ROOT,
    stopSignal: new AbortController().signal,
  };
  const status = await runProgram(['validate', ...args], io);
  return { status, stdout, stderr };
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
