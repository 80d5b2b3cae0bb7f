import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { access, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Workspace, workspace } from '../helpers/cli.js';
import { startServeProcess } from '../helpers/serve-process.js';
import { type Spawned, spawnCli, untilOutput } from '../helpers/spawn.js';

/**
 * `guidectl serve --db FILE` holds the lock of FILE for as long as it runs, as apply does while
 * it applies: any client may write through the serve at any time, so an apply over the same file
 * (or a second serve) used to race it unseen. An in-memory serve takes none.
 */

let ws: Workspace;
const running: Spawned[] = [];
beforeEach(async () => {
  ws = await workspace();
  await ws.write(
    'g.yaml',
    'version: 1\nguides:\n  - account: alice_wx\n    nickname: Alice\n    head_image_url: https://img.example/a\n',
  );
});
afterEach(async () => {
  for (const s of running.splice(0)) {
    s.child.kill('SIGKILL');
    await s.ended;
  }
  await ws.remove();
});

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** A serve over `db` in the workspace, once it listens (killed after the test if still running). */
async function serve(
  db: string,
  args: string[] = [],
): Promise<{ spawned: Spawned; url: string; pid: number; secret: string }> {
  const started = await startServeProcess(['--db', db, ...args], { cwd: ws.dir });
  const { spawned, url } = started;
  running.push(spawned);
  if (spawned.child.pid === undefined) throw new Error('no pid');
  return { spawned, url, pid: spawned.child.pid, secret: started.secret };
}

/** Runs guidectl to its end (killed after the test if it does not end, like a serve that starts). */
function cli(args: string[]): Spawned['ended'] {
  const spawned = spawnCli(args, { cwd: ws.dir });
  running.push(spawned);
  return spawned.ended;
}

describe('guidectl serve --db holds the lock of its database', () => {
  it('an apply over the same file is refused, naming the serve, and applies once it stopped', async () => {
    const { spawned, url, pid } = await serve('d.db');
    const lock = JSON.parse(await readFile(join(ws.dir, 'd.db.lock'), 'utf8'));
    expect(lock).toMatchObject({ pid, command: 'guidectl serve --db d.db', url });

    const refused = await cli(['apply', 'g.yaml', '--auto-approve', '--local-db', 'd.db']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `guidectl: the local database d.db is in use by another guidectl: pid ${pid} on ${hostname()} (guidectl serve --db d.db, serving ${url}), since `,
    );
    expect(refused.stderr).toContain(
      `A guidectl serve holds it until it is stopped: send the calls to that serve instead (--base-url ${url}, with WECHAT_APPID and WECHAT_SECRET set to its credentials), or stop it first.`,
    );
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    expect(refused.stdout).toBe('');

    // Stopped, it releases the lock; the apply then goes through.
    spawned.child.kill('SIGTERM');
    expect((await spawned.ended).code).toBe(0);
    expect(await exists(join(ws.dir, 'd.db.lock'))).toBe(false);
    const applied = await cli(['apply', 'g.yaml', '--auto-approve', '--local-db', 'd.db']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Converged');
  }, 30_000);

  it('apply --lock-timeout waits for the serve, saying so, and applies once it stops', async () => {
    const { spawned, pid } = await serve('d.db');
    const apply = spawnCli(
      ['apply', 'g.yaml', '--auto-approve', '--local-db', 'd.db', '--lock-timeout', '600'],
      {
        cwd: ws.dir,
      },
    );
    running.push(apply);
    const waiting = await untilOutput(
      apply.child.stderr,
      /waiting up to 600 s for the local database d\.db.*\n/,
    );
    expect(waiting[0]).toContain(
      `in use by another guidectl: pid ${pid} on ${hostname()} (guidectl serve --db d.db`,
    );
    spawned.child.kill('SIGTERM');
    const applied = await apply.ended;
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Converged');
  }, 30_000);

  it('a second serve over the same file refuses at start, naming the first and the fix', async () => {
    const { url, pid } = await serve('d.db');
    const second = await cli(['serve', '--port', '0', '--db', 'd.db']);
    expect(second.code).toBe(1);
    expect(second.stdout).toBe('');
    expect(second.stderr).toContain(
      `guidectl: the local database d.db is in use by another guidectl: pid ${pid} on ${hostname()} (guidectl serve --db d.db, serving ${url}), since `,
    );
    expect(second.stderr).toContain(
      `Stop that serve first, or give this one another --db; clients can use the running one at ${url}.`,
    );
    expect(second.stderr).not.toMatch(/\n\s+at /);
    // The first one's lock is untouched.
    expect(JSON.parse(await readFile(join(ws.dir, 'd.db.lock'), 'utf8'))).toMatchObject({ pid });
  }, 30_000);

  it('a symlink to the database, or to its folder, shares its lock: a serve or an apply through it is refused', async () => {
    const { url, pid } = await serve('d.db');
    await mkdir(join(ws.dir, 'linkdir'));
    await symlink(join(ws.dir, 'd.db'), join(ws.dir, 'linkdir', 'alias.db'));
    await symlink(ws.dir, join(ws.dir, 'samedir'));
    for (const db of ['linkdir/alias.db', 'samedir/d.db']) {
      const second = await cli(['serve', '--port', '0', '--db', db]);
      expect(second.code, second.stdout).toBe(1);
      expect(second.stderr).toContain(
        `guidectl: the local database ${db} is in use by another guidectl: pid ${pid} on ${hostname()} (guidectl serve --db d.db, serving ${url}), since `,
      );
      const apply = await cli(['apply', 'g.yaml', '--auto-approve', '--local-db', db]);
      expect(apply.code).toBe(1);
      expect(apply.stderr).toContain(`the local database ${db} is in use by another guidectl: pid ${pid}`);
    }
    expect((await readdir(join(ws.dir, 'linkdir'))).sort()).toEqual(['alias.db']);
  }, 30_000);

  it('the lock of a serve killed with -9 is taken over by the next serve', async () => {
    const first = await serve('d.db');
    first.spawned.child.kill('SIGKILL');
    await first.spawned.ended;
    expect(await exists(join(ws.dir, 'd.db.lock'))).toBe(true);
    // The database keeps only the hash of the secret the first serve generated.
    const second = await serve('d.db', ['--secret', first.secret]);
    const lock = JSON.parse(await readFile(join(ws.dir, 'd.db.lock'), 'utf8'));
    expect(lock).toMatchObject({ pid: second.pid, url: second.url });
  }, 30_000);

  // A process killed with -9 stays a zombie (state Z) until its parent reaps it, and a zombie
  // answers signal 0: the lock took it for a live holder. Linux only (/proc/PID/stat).
  it.runIf(existsSync('/proc/self/stat'))(
    'the lock of a killed serve still a zombie (not reaped yet) is taken over by the next serve',
    async () => {
      // sh starts a child, kills it, and becomes `sleep`, which never reaps it: a zombie.
      const parent = spawn('sh', ['-c', 'sleep 100 & echo $!; kill -9 $!; exec sleep 60'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      try {
        const pid = Number((await untilOutput(parent.stdout, /^(\d+)\n/))[1]);
        const stat = (): string => readFileSync(`/proc/${pid}/stat`, 'utf8');
        await vi.waitFor(() => expect(stat()).toMatch(/\) Z /), { timeout: 10_000 });
        expect(() => process.kill(pid, 0)).not.toThrow();
        await writeFile(
          join(ws.dir, 'd.db.lock'),
          JSON.stringify({
            pid,
            host: hostname(),
            command: 'guidectl serve --db d.db',
            since: new Date().toISOString(),
            token: 'feedfacefeedface',
          }),
        );
        const next = await serve('d.db');
        const lock = JSON.parse(await readFile(join(ws.dir, 'd.db.lock'), 'utf8'));
        expect(lock).toMatchObject({ pid: next.pid, url: next.url });
      } finally {
        parent.kill('SIGKILL');
      }
    },
    30_000,
  );

  it('an in-memory serve takes no lock', async () => {
    await serve(':memory:');
    expect((await readdir(ws.dir)).filter((name) => name.endsWith('.lock'))).toEqual([]);
  }, 30_000);
});
