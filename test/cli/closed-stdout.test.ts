import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/wire/json.js';
import { useServiceTarget } from '../helpers/cli.js';
import { spawnCli } from '../helpers/spawn.js';

// `guidectl … | head -1`: the reader of stdout goes away after its first line. A closed stdout
// must never crash guidectl nor cut an apply short.

const target = useServiceTarget({ reset: true });
const service = () => target.service;
const ws = () => target.ws;
const env = target.env;

/** 40 guides in 2 groups: 42 calls to an empty account. */
function bigFile(): string {
  const guides = Array.from(
    { length: 40 },
    (_, i) =>
      `  - account: guide_${String(i).padStart(3, '0')}\n    nickname: Guide ${i}\n    head_image_url: https://img.example/${i}\n`,
  ).join('');
  return `version: 1\ngroups:\n  - name: North\n  - name: South\nguides:\n${guides}`;
}

function noCrash(stderr: string): void {
  expect(stderr).not.toContain('EPIPE');
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(stderr).not.toContain('internal error');
}

describe('a closed stdout', () => {
  it('does not stop an apply: every call is made, the exit status says how they went', async () => {
    await ws().write('big.yaml', bigFile());
    const args = ['apply', 'big.yaml', '--auto-approve', '--base-url', service().url];
    const { code, stderr } = await spawnCli(args, { cwd: ws().dir, env: env(), closeStdout: true }).ended;
    noCrash(stderr);
    expect(code, stderr).toBe(0);
    const writes = service()
      .calls()
      .filter((c) => c.writes);
    expect(writes).toHaveLength(42);
    const after = await target.cli(['plan', 'big.yaml', '--json']);
    expect((parseJson(after.stdout) as { summary: { calls: number } }).summary.calls).toBe(0);
  });

  it.each([
    ['plan', ['plan', 'big.yaml']],
    ['plan --json', ['plan', 'big.yaml', '--json']],
    ['export', ['export']],
  ])('%s stops quietly with its usual exit status', async (_name, command) => {
    await ws().write('big.yaml', bigFile());
    const args = [...command, '--base-url', service().url];
    const { code, stderr } = await spawnCli(args, { cwd: ws().dir, env: env(), closeStdout: true }).ended;
    noCrash(stderr);
    expect(code, stderr).toBe(0);
  });

  it.each([
    ['help plan', ['help', 'plan']],
    ['validate', ['validate', 'big.yaml']],
  ])('%s stops quietly with its usual exit status', async (_name, args) => {
    await ws().write('big.yaml', bigFile());
    const { code, stderr } = await spawnCli(args, { cwd: ws().dir, closeStdout: true }).ended;
    noCrash(stderr);
    expect(code, stderr).toBe(0);
  });
});

describe('a stdout that cannot be written (a full disk)', () => {
  it.each([
    ['validate --json', ['validate', 'big.yaml', '--json']],
    ['plan --json', ['plan', 'big.yaml', '--json', '--base-url', 'URL']],
    ['export', ['export', '--base-url', 'URL']],
  ])('%s says the output is incomplete and exits 1, not 0', async (_name, command) => {
    await ws().write('big.yaml', bigFile());
    const args = command.map((a) => (a === 'URL' ? service().url : a));
    const full = openSync('/dev/full', 'w');
    try {
      const run = spawnCli(args, { cwd: ws().dir, env: env(), stdoutFd: full });
      const { code, stderr } = await run.ended;
      noCrash(stderr);
      expect(stderr).toContain(
        'guidectl: the output could not be written (ENOSPC); what it printed is incomplete',
      );
      expect(code).toBe(1);
    } finally {
      closeSync(full);
    }
  });

  it('is no failure when what was printed is empty (chats of a guide with no records)', async () => {
    await target.ok('addguideacct', {
      guide_account: 'quiet_wx',
      guide_headimgurl: 'https://img.example/q',
      guide_nickname: 'Q',
    });
    const full = openSync('/dev/full', 'w');
    try {
      const args = ['chats', 'quiet_wx', '--base-url', service().url];
      const { code, stderr } = await spawnCli(args, { cwd: ws().dir, env: env(), stdoutFd: full }).ended;
      expect(stderr).not.toContain('could not be written');
      expect(code, stderr).toBe(0);
    } finally {
      closeSync(full);
    }
  });

  it('is no failure when nothing was printed on it (export -o writes a file)', async () => {
    const full = openSync('/dev/full', 'w');
    try {
      const args = ['export', '-o', 'e.yaml', '--base-url', service().url];
      const { code, stderr } = await spawnCli(args, { cwd: ws().dir, env: env(), stdoutFd: full }).ended;
      expect(stderr).not.toContain('could not be written');
      expect(code, stderr).toBe(0);
      expect(readFileSync(join(ws().dir, 'e.yaml'), 'utf8')).toContain('version: 1');
    } finally {
      closeSync(full);
    }
  });
});
