import { spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fetchToken, rawRequest } from './service.js';
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
export function runProcess(
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
): Promise<ShellRun> {
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

const GUIDES = `
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/alice/0
`;

/**
 * A repository of several accounts: envs/ declares staging, then production (not in alphabetical
 * order), each at its serve's URL, and dev (a local database, which CI leaves out); alice_wx is in
 * both, qa_bot_wx in staging only.
 */
export function envsRepo(machine: CiMachine, staging: { url: string }, production: { url: string }): string {
  const repo = machine.folder('repo-envs');
  mkdirSync(join(repo, 'envs'));
  writeFileSync(
    join(repo, 'envs', 'environments.yaml'),
    `version: 1\nenvironments:\n  staging:\n    base_url: ${staging.url}\n    credentials: STAGING\n  production:\n    base_url: ${production.url}\n    credentials: PROD\n  dev: {}\n`,
  );
  writeFileSync(
    join(repo, 'envs', 'guides.yaml'),
    `version: 1${GUIDES}  - account: qa_bot_wx\n    only_in: [staging]\n    nickname: QA\n    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/qa/0\n`,
  );
  return repo;
}

/** A repository of one account: guides/store.yaml with alice_wx, no environments. */
export function singleRepo(machine: CiMachine): string {
  const repo = machine.folder('repo-single');
  mkdirSync(join(repo, 'guides'));
  writeFileSync(join(repo, 'guides', 'store.yaml'), `version: 1${GUIDES}`);
  return repo;
}

interface Account {
  url: string;
  appid: string;
  secret: string;
}

/** The guide `account` as the account's API answers it, or undefined when it has none. */
export async function guideOf(serve: Account, account: string): Promise<Record<string, unknown> | undefined> {
  const answer = await guideCall(serve, 'getguideacct', { guide_account: account });
  return answer['errcode'] === 0 ? answer : undefined;
}

/** Someone renames a guide by hand, outside the files. */
export async function renameByHand(serve: Account, account: string, nickname: string): Promise<void> {
  const answer = await guideCall(serve, 'updateguideacct', {
    guide_account: account,
    guide_nickname: nickname,
  });
  if (answer['errcode'] !== 0) throw new Error(`updateguideacct: ${JSON.stringify(answer)}`);
}

async function guideCall(serve: Account, op: string, body: unknown): Promise<Record<string, unknown>> {
  const token = await fetchToken(serve.url, serve.appid, serve.secret);
  const answer = await rawRequest(`${serve.url}/cgi-bin/guide/${op}?access_token=${token}`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
  return answer.json;
}
