import { spawn } from 'node:child_process';
import { access, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runProgram } from '../../src/cli/program.js';
import { type CliRun, captureIo, runCli, type Workspace, workspace } from '../helpers/cli.js';
import { spawnCli } from '../helpers/spawn.js';

/**
 * The lock of the embedded local database. Two applies of one file at once used to create every
 * new group twice, after which no plan could be made (`group "Store a 00" matches 2 live groups`).
 * apply now holds `DB.lock` from its read to its convergence check; a second apply refuses naming
 * the holder (or waits, with --lock-timeout); a dead holder's lock is taken over; plan reads
 * without it.
 */

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
});
afterEach(() => ws.remove());

const cli = (args: string[]): Promise<CliRun> =>
  runCli([...args, '--local-db', 'd.db'], { cwd: ws.dir, env: {} });

/**
 * Runs guidectl in-process on the local database d.db with --lock-timeout 600, until it says it
 * waits for the lock; `running` then ends with its exit status.
 */
async function runUntilWaiting(
  args: readonly string[],
): Promise<{ io: ReturnType<typeof captureIo>; running: Promise<number> }> {
  let waiting: () => void = () => {};
  const saidWaiting = new Promise<void>((resolve) => (waiting = resolve));
  const io = captureIo({}, ws.dir, {
    onStderr: (text) => {
      if (text.includes('waiting up to 600 s for the local database d.db')) waiting();
    },
  });
  const running = runProgram([...args, '--local-db', 'd.db', '--lock-timeout', '600'], io);
  await saidWaiting;
  return { io, running };
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('close', resolve));
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

function bigFile(groups: number, perGroup: number): string {
  const lines = ['version: 1', 'groups:'];
  const guides: string[] = [];
  for (let g = 0; g < groups; g++) {
    const members = Array.from({ length: perGroup }, (_, i) => `g${g}_${i}_wx`);
    lines.push(`  - name: Store a ${String(g).padStart(2, '0')}`, `    members: [${members.join(', ')}]`);
    for (const m of members)
      guides.push(`  - account: ${m}\n    nickname: ${m}\n    head_image_url: https://img.example/${m}`);
  }
  return `${lines.join('\n')}\nguides:\n${guides.join('\n')}\n`;
}

const SMALL =
  'version: 1\ngroups:\n  - name: Flagship\n    members: [alice_wx]\nguides:\n  - account: alice_wx\n    nickname: Alice\n    head_image_url: https://img.example/a\n';

async function holdLock(pid: number, host = hostname()): Promise<string> {
  const file = join(ws.dir, 'd.db.lock');
  const holder = {
    pid,
    host,
    command: 'guidectl apply other.yaml',
    since: '2026-11-23T12:00:00.000Z',
    token: 'f00d',
  };
  await writeFile(file, JSON.stringify(holder));
  return file;
}

describe('the lock of the embedded local database', () => {
  it('two applies of one file at once end converged, with no group doubled', async () => {
    await ws.write('big.yaml', bigFile(12, 6));
    const args = ['apply', 'big.yaml', '--auto-approve', '--local-db', 'd.db'];
    const [a, b] = await Promise.all([
      spawnCli(args, { cwd: ws.dir }).ended,
      spawnCli(args, { cwd: ws.dir }).ended,
    ]);
    for (const run of [a, b]) {
      // Each either applied, or refused at once naming the other (nothing written).
      if (run.code !== 0) expect(run.stderr).toMatch(/d\.db is in use by another guidectl: pid [0-9]+ on /);
    }
    expect([a.code, b.code]).toContain(0);
    const plan = await cli(['plan', 'big.yaml', '--detailed-exitcode']);
    expect(plan.code, plan.stderr + plan.stdout).toBe(0);
    const groups = await cli(['api', 'getguidegrouplist']);
    const names = [...groups.stdout.matchAll(/"name": "([^"]+)"/g)].map((m) => m[1]);
    expect(names).toHaveLength(12);
    expect(new Set(names).size).toBe(12);
    expect(await exists(join(ws.dir, 'd.db.lock'))).toBe(false);
  }, 60_000);

  it('refuses while another live guidectl holds it, naming pid, host, command and since when', async () => {
    await ws.write('g.yaml', SMALL);
    const lock = await holdLock(process.pid);
    // When it was taken is said in the user's time zone, as every time guidectl prints.
    const run = await runCli(['apply', 'g.yaml', '--auto-approve', '--local-db', 'd.db'], {
      cwd: ws.dir,
      env: { TZ: 'Asia/Shanghai' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `guidectl: the local database d.db is in use by another guidectl: pid ${process.pid} on ${hostname()} (guidectl apply other.yaml), since 2026-11-23 20:00 +08:00. Wait for it to finish, or pass --lock-timeout SECONDS to wait for it.`,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
    // Its lock is left as it was; plan reads without the lock, and finds nothing was applied.
    expect(JSON.parse(await readFile(lock, 'utf8'))).toMatchObject({ pid: process.pid, token: 'f00d' });
    const plan = await cli(['plan', 'g.yaml', '--detailed-exitcode']);
    expect(plan.code, plan.stderr).toBe(2);
    // api calls that write take the lock too; reads do not.
    expect((await cli(['api', 'newguidegroup', '{"group_name": "X"}'])).stderr).toContain(
      'is in use by another guidectl',
    );
    expect((await cli(['api', 'getguidegrouplist'])).code).toBe(0);
  });

  it('against the default database, says which database it uses before it says the lock is taken', async () => {
    await ws.write('g.yaml', SMALL);
    await mkdir(join(ws.dir, '.guidectl'));
    await writeFile(
      join(ws.dir, '.guidectl', 'local.db.lock'),
      JSON.stringify({
        pid: process.pid,
        host: hostname(),
        command: 'guidectl apply other.yaml',
        since: 'then',
        token: 'f00d',
      }),
    );
    for (const lockTimeout of [[], ['--lock-timeout', '1']]) {
      const run = await runCli(['apply', 'g.yaml', '--auto-approve', ...lockTimeout], {
        cwd: ws.dir,
        env: {},
      });
      expect(run.code).toBe(1);
      const lines = run.stderr.split('\n');
      expect(lines[0]).toBe(
        'guidectl: no target given; using the embedded local service (database .guidectl/local.db)',
      );
      expect(lines.at(-2)).toMatch(
        /^guidectl: the local database \.guidectl\/local\.db is in use by another guidectl/,
      );
    }
  });

  it('a lock of another host is never taken over, and says what to do if that process is gone', async () => {
    await ws.write('g.yaml', SMALL);
    await holdLock(1, 'build-box-7');
    const run = await cli(['apply', 'g.yaml', '--auto-approve']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('pid 1 on build-box-7');
    expect(run.stderr).toContain(
      'runs on another host and cannot be checked from here: if it is gone, delete d.db.lock',
    );
  });

  it('takes over the lock of a process that is gone, and releases its own', async () => {
    await ws.write('g.yaml', SMALL);
    const lock = await holdLock(await deadPid());
    const run = await cli(['apply', 'g.yaml', '--auto-approve']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Converged');
    expect(await exists(lock)).toBe(false);
  });

  it('with --lock-timeout, waits for the holder, saying so, then applies', async () => {
    await ws.write('g.yaml', SMALL);
    const lock = await holdLock(process.pid);
    const { io, running } = await runUntilWaiting(['apply', 'g.yaml', '--auto-approve']);
    expect(io.err()).toContain(`in use by another guidectl: pid ${process.pid}`);
    expect(io.out()).toBe('');
    await rm(lock);
    expect(await running, io.err()).toBe(0);
    expect(io.out()).toContain('Converged');
  });

  it('every command the refusal names it to takes --lock-timeout: api, qrcode and path-menu wait too', async () => {
    await ws.write('g.yaml', SMALL);
    expect((await cli(['apply', 'g.yaml', '--auto-approve'])).code).toBe(0);
    for (const args of [
      ['api', 'newguidegroup', '{"group_name": "Waited"}'],
      ['qrcode', 'alice_wx'],
      ['path-menu', 'alice_wx', '--appid', 'wx0123456789abcdef'],
    ]) {
      const lock = await holdLock(process.pid);
      const { io, running } = await runUntilWaiting(args);
      expect(io.out(), args[0]).toBe('');
      await rm(lock);
      expect(await running, io.err()).toBe(0);
    }
  });

  it('Ctrl-C while waiting for the lock: --json-stream tells the interrupt, and the summary says interrupted', async () => {
    await ws.write('g.yaml', SMALL);
    await holdLock(process.pid);
    const stop = new AbortController();
    const io = captureIo({}, ws.dir, {
      stop: stop.signal,
      onStderr: (text) => {
        if (text.includes('waiting up to 600 s for the local database d.db')) stop.abort();
      },
    });
    const args = [
      'apply',
      'g.yaml',
      '--auto-approve',
      '--json-stream',
      '--local-db',
      'd.db',
      '--lock-timeout',
      '600',
    ];
    expect(await runProgram(args, io)).toBe(1);
    expect(io.err()).toContain('stopped while waiting for the lock on d.db');
    const stream = io
      .out()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(stream.slice(-2)).toMatchObject([
      { type: 'interrupt', action: 'stop', in_flight: 0 },
      { type: 'summary', interrupted: true, converged: false, done: 0 },
    ]);
  });

  it('refuses a lock file it cannot read, without guessing', async () => {
    await ws.write('g.yaml', SMALL);
    await writeFile(join(ws.dir, 'd.db.lock'), 'garbage');
    const run = await cli(['apply', 'g.yaml', '--auto-approve']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('d.db.lock, exists but does not say who holds it');
  });

  it('a folder where the lock cannot be written is a plain error naming it and the fix, for apply and serve', async () => {
    // /proc takes no new file, whoever asks (root too): the lock is refused as by a read-only folder.
    await ws.write('g.yaml', SMALL);
    const runs = [
      await runCli(['apply', 'g.yaml', '--auto-approve', '--local-db', '/proc/guidectl-x.db'], {
        cwd: ws.dir,
      }),
      await runCli(['serve', '--port', '0', '--db', '/proc/guidectl-x.db'], { cwd: ws.dir }),
    ];
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(
        /guidectl: cannot write in the folder \/proc \(E[A-Z]+\): a guidectl that writes a local database keeps its lock, guidectl-x\.db\.lock, beside it\. Use a database in a folder you can write to, or make \/proc writable\n/,
      );
      expect(run.stderr).not.toContain('internal error');
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('on a full disk, says the disk is full (not to make the folder writable) and leaves no file behind', async (ctx) => {
    // A full disk of its own: a 64 KiB tmpfs, filled. Mounting needs root (as in the CI container);
    // skipped elsewhere.
    const tiny = join(ws.dir, 'tiny');
    await mkdir(tiny);
    const mounted = await run('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', tiny]);
    if (!mounted) ctx.skip();
    try {
      await writeFile(join(tiny, 'fill'), Buffer.alloc(1 << 20)).catch(() => undefined);
      await ws.write('g.yaml', SMALL);
      for (let i = 0; i < 2; i++) {
        const apply = await runCli(['apply', 'g.yaml', '--auto-approve', '--local-db', 'tiny/x.db'], {
          cwd: ws.dir,
        });
        expect(apply.code, apply.stderr).toBe(1);
        expect(apply.stderr).toContain(
          `guidectl: cannot write the lock x.db.lock in the folder ${tiny}: the disk is full (ENOSPC). A guidectl that writes a local database keeps its lock beside it, and the database needs room too: free some space\n`,
        );
        expect(apply.stderr).not.toContain('writable');
      }
      expect(await readdir(tiny)).toEqual(['fill']);
    } finally {
      if (mounted) await run('umount', [tiny]);
    }
  });
});

/** Whether `command ARGS` ran and exited 0. */
function run(command: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('close', (code) => resolve(code === 0));
  });
}
