import { spawn } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientOf, closeClients, FAST_RETRY, guide } from '../client/helpers.js';
import { ALICE_ALONE, runCli, type Workspace, workspace } from '../helpers/cli.js';
import { startTestService } from '../helpers/service.js';
import { NO_TINY_DISK, useTinyDisk } from '../helpers/tiny-disk.js';

// A database that fails under the service (damaged, disk full, I/O error, read-only) is not
// "system busy": retrying does not mend it. Over HTTP the answer stays -1 (the real API's own),
// saying what is wrong, and the log says it once, in one line; in-process (the embedded local
// service), the command fails at once with the store's own message.

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
  await ws.write('a.yaml', ALICE_ALONE);
});
afterEach(() => ws.remove());

/** Overwrites every page of the `guides` table's root with 0xff: reading guides is then SQLITE_CORRUPT. */
function damageGuides(file: string): void {
  const db = new Database(file, { readonly: true });
  const root = Number(db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'guides'").pluck().get());
  const pageSize = Number(db.pragma('page_size', { simple: true }));
  db.close();
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(pageSize, 0xff), 0, pageSize, (root - 1) * pageSize);
  closeSync(fd);
}

describe('a damaged database', () => {
  it('over HTTP: every call is -1 saying the database is damaged; the log says it once, without a stack', async () => {
    const file = join(ws.dir, 'c.db');
    const first = await startTestService({ db: file, dbName: 'c.db', secret: 'store-failure-secret' });
    await first.ok('addguideacct', {
      guide_account: 'alice_wx',
      guide_nickname: 'Alice',
      guide_headimgurl: 'https://x.example/a',
    });
    await first.close();
    damageGuides(file);

    const log: string[] = [];
    const t = await startTestService({
      db: file,
      dbName: 'c.db',
      secret: 'store-failure-secret',
      log: (line) => log.push(line),
    });
    try {
      for (let i = 0; i < 3; i++) {
        const answer = await t.call('getguideacctlist', { page: 0, num: 10 });
        expect(answer.json).toEqual({
          errcode: -1,
          errmsg: "system error: the service's database is damaged",
        });
      }
      expect(log).toEqual([
        expect.stringMatching(
          /^the local database c\.db is damaged: database disk image is malformed \(SQLITE_CORRUPT\); restore it from a copy, or start over with a new file; every call that needs it is answered -1 \(system error\) meanwhile$/,
        ),
      ]);
    } finally {
      await t.close();
    }
  });

  it('embedded: the command stops at once with the database named, no retries and no stack', async () => {
    const apply = await runCli(['apply', 'a.yaml', '--auto-approve', '--local-db', 'c.db'], { cwd: ws.dir });
    expect(apply.code, apply.stderr).toBe(0);
    damageGuides(join(ws.dir, 'c.db'));
    const plan = await runCli(['plan', 'a.yaml', '--local-db', 'c.db', '--read-retry', '60'], {
      cwd: ws.dir,
    });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('the local database c.db is damaged: database disk image is malformed');
    expect(plan.stderr).not.toContain('system busy');
    expect(plan.stderr).not.toContain('attempts');
    expect(plan.stderr).not.toMatch(/^\s+at /m);
    expect(plan.stderr).not.toContain('internal error');
  });
});

describe('a bug of the service', () => {
  it('is -1 with its stack trace logged once, not at every retry', async () => {
    const log: string[] = [];
    const t = await startTestService({ log: (line) => log.push(line) });
    // A bug: the store used after it was closed (a TypeError of better-sqlite3, no SQLite code).
    Reflect.get(t.service, 'store').close();
    for (let i = 0; i < 3; i++) {
      expect((await t.call('getguideacctlist', { page: 0, num: 10 })).json).toEqual({
        errcode: -1,
        errmsg: 'system error',
      });
    }
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/^internal error: TypeError: The database connection is not open\n\s+at /);
    await t.close();
  });
});

describe('a full disk', () => {
  it('embedded: an apply stops at once saying the disk is full (SQLITE_FULL), no retries', async (ctx) => {
    // A disk of its own: a 512 KiB tmpfs. Mounting needs root (as in the CI container); skipped elsewhere.
    const disk = join(ws.dir, 'disk');
    await mkdir(disk);
    const mounted = await run('mount', ['-t', 'tmpfs', '-o', 'size=512k', 'tmpfs', disk]);
    if (!mounted) ctx.skip();
    try {
      const first = await runCli(['apply', 'a.yaml', '--auto-approve', '--local-db', 'disk/x.db'], {
        cwd: ws.dir,
      });
      expect(first.code, first.stderr).toBe(0);
      // Full but 64 KiB: room for the lock and for SQLite to open, not for 300 guides.
      const fill = join(disk, 'fill');
      await writeFile(fill, Buffer.alloc(1 << 20)).catch(() => undefined);
      await truncate(fill, (await stat(fill)).size - 65536);
      const guides = Array.from(
        { length: 300 },
        (_, i) =>
          `  - account: guide${1000 + i}\n    nickname: G${i}\n    head_image_url: https://x.example/a\n`,
      );
      await ws.write('many.yaml', `version: 1\nguides:\n${guides.join('')}`);
      const apply = await runCli(['apply', 'many.yaml', '--auto-approve', '--local-db', 'disk/x.db'], {
        cwd: ws.dir,
      });
      expect(apply.code).toBe(1);
      expect(apply.stderr).toContain(
        'the local database disk/x.db cannot be written: the disk is full (SQLITE_FULL)',
      );
      expect(apply.stderr).not.toContain('system busy');
      expect(apply.stderr).not.toMatch(/^\s+at /m);
    } finally {
      if (mounted) await run('umount', [disk]);
    }
  });
});

describe('a full disk under a service over HTTP', () => {
  const disk = useTinyDisk('512k');
  afterEach(closeClients);

  it("a write that keeps failing says the service's own reason, not only -1 system busy", async (ctx) => {
    const dir = disk.dir;
    if (dir === undefined) return ctx.skip(NO_TINY_DISK);
    const t = await startTestService({ db: join(dir, 'x.db'), dbName: 'x.db', log: () => undefined });
    try {
      // Retries wait on a clock of the test's own: the write's budget passes without real waiting.
      let now = 0;
      const { client } = clientOf(t.service, {
        retry: { ...FAST_RETRY, budgetMs: 60 },
        clock: { now: () => now },
        sleep: async () => {
          now += 10;
        },
      });
      // The token is had (and written) while there is room; then the disk fills.
      await client.getguideacctlist({ page: 0, num: 10 });
      await disk.fill(0);
      let failure: unknown;
      for (let i = 0; i < 300 && failure === undefined; i++) {
        await client.addguideacct(guide(i)).catch((error: unknown) => {
          failure = error;
        });
      }
      expect(failure).toMatchObject({ code: 'GUIDE_API_ERROR', errcode: -1 });
      expect(String((failure as Error).message)).toMatch(
        /^addguideacct failed: -1 — system busy: the service's database cannot be written: the disk is full \(gave up after \d+ attempts/,
      );
    } finally {
      await t.close();
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
