import { spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CLI } from './spawn.js';

/**
 * What the CI example tests share: a machine with shims on PATH, so that `npm ci` installs nothing
 * and `npx guidectl` (or `guidectl`) runs the repository's built CLI, as a runner's does once
 * `npm ci` has installed guidectl as a devDependency.
 */
export interface CiMachine {
  readonly dir: string;
  /** The PATH of every job: the shims, this node, then the system's (bash, jq, cp, …). */
  readonly path: string;
  /** A new empty folder under the machine's (a job's workspace, an artifact store). */
  folder(name: string): string;
  remove(): void;
}

export function ciMachine(): CiMachine {
  const dir = mkdtempSync(join(tmpdir(), 'guidectl-ci-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const shim = (name: string, text: string): void => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${text}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  shim('guidectl', `exec "${process.execPath}" "${CLI}" "$@"`);
  shim(
    'npx',
    `if [ "$1" != guidectl ]; then echo "npx (test shim): only guidectl is installed, not $1" >&2; exit 127; fi\nshift\nexec "${process.execPath}" "${CLI}" "$@"`,
  );
  shim(
    'npm',
    `case "$1" in ci) echo "npm ci (test shim): guidectl is the repository's built CLI";; *) echo "npm (test shim): only npm ci, not $*" >&2; exit 127;; esac`,
  );
  let folders = 0;
  return {
    dir,
    path: [bin, dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    folder(name) {
      folders += 1;
      const path = join(dir, `${folders}-${name.replace(/[^A-Za-z0-9_.-]+/g, '_')}`);
      mkdirSync(path, { recursive: true });
      return path;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A copy of the repository's files in a new folder, as a checkout gives a job. */
export function checkout(machine: CiMachine, repo: string, name: string): string {
  const workspace = machine.folder(name);
  cpSync(repo, workspace, { recursive: true });
  return workspace;
}

export interface ShellRun {
  code: number;
  /** stdout and stderr as a job log shows them, interleaved as they came. */
  log: string;
}

/** Runs `args[0] args…` in `cwd` with exactly `env` (nothing of this process's), no stdin. */
export function runProcess(args: readonly string[], cwd: string, env: Record<string, string>): Promise<ShellRun> {
  return new Promise((resolve, reject) => {
    const [command, ...rest] = args;
    if (command === undefined) throw new Error('no command');
    const child = spawn(command, rest, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code: code ?? (signal === null ? 1 : 128), log }));
  });
}
