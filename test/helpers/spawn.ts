import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

/**
 * The built CLI (tests that spawn it need `npx tsc -p tsconfig.json` first; `npm test` builds),
 * from the package root, where vitest and `npm run bench` run: the bench runs compiled, from
 * node_modules/.cache, where a path relative to this file would miss dist/.
 */
export const CLI = resolve(process.cwd(), 'dist/cli/main.js');

export interface Spawned {
  readonly child: ChildProcess;
  /** Resolves once the process has exited and its stderr is read to the end. */
  readonly ended: Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>;
}

/**
 * Runs `guidectl ARGS` as a child process. With `closeStdout`, the reading end of its stdout is
 * closed at once, as `guidectl … | head -1` does once head has its line: every write then fails
 * with EPIPE.
 */
export function spawnCli(
  args: readonly string[],
  options: {
    cwd: string;
    env?: Record<string, string>;
    closeStdout?: boolean;
    preload?: string;
    /** A file descriptor to write stdout to (say, of /dev/full), instead of a pipe read here. */
    stdoutFd?: number;
  },
): Spawned {
  const preload = options.preload === undefined ? [] : ['--require', options.preload];
  const child = spawn(process.execPath, [...preload, CLI, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...options.env },
    stdio: ['ignore', options.stdoutFd ?? 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  if (options.closeStdout === true) child.stdout?.destroy();
  else child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ended = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, ended };
}

/**
 * Resolves with the first match of `pattern` in what `stream` prints from now on (say, a serve's
 * `listening on URL`); rejects when the stream ends without it.
 */
export function untilOutput(stream: NodeJS.ReadableStream | null, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    if (stream === null) return reject(new Error('no such stream'));
    let text = '';
    const onData = (chunk: Buffer | string): void => {
      text += chunk.toString();
      const match = pattern.exec(text);
      if (match === null) return;
      stream.off('data', onData);
      resolve(match);
    };
    stream.on('data', onData);
    stream.once('end', () => reject(new Error(`no output matching ${pattern} in: ${text}`)));
  });
}

/**
 * Runs a line a user would paste into sh, with `guidectl` the built CLI: what a printed hint
 * does when copied. Only PATH of the environment is kept, with `env` added.
 */
export async function pasted(
  line: string,
  cwd: string,
  env: Readonly<Record<string, string>> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = `guidectl() { "${process.execPath}" "${CLI}" "$@"; }\n${line}`;
  try {
    const { stdout, stderr } = await promisify(execFile)('sh', ['-c', script], {
      cwd,
      env: { PATH: process.env['PATH'] ?? '', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
