import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProgram } from '../../src/cli/program.js';
import { GuideService } from '../../src/service/index.js';
import { captureIo, runCli, type Workspace, workspace } from '../helpers/cli.js';
import { fetchToken, rawRequest } from '../helpers/service.js';

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace();
});
afterAll(() => ws.remove());

describe('guidectl serve --db', () => {
  it('refuses a database in a folder that does not exist, naming it, and creates nothing', async () => {
    const missing = join(ws.dir, 'missing', 'dir');
    const run = await runCli(['serve', '--port', '0', '--db', join(missing, 'x.db')], { cwd: ws.dir });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`the folder ${missing} of --db does not exist`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stdout).toBe('');
    expect(existsSync(join(ws.dir, 'missing'))).toBe(false);
  });

  it('refuses --faults with a delay longer than a timer can wait, with the range', async () => {
    const run = await runCli(
      ['serve', '--port', '0', '--db', ':memory:', '--faults', 'latency=99999999999ms'],
      {
        cwd: ws.dir,
      },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "option '--faults <spec>' argument 'latency=99999999999ms' is invalid. faults: latency=99999999999ms is too long; a duration is 0 to 2147483647ms (about 24.8 days)\n",
    );
    expect(run.stdout).toBe('');
  });

  it('refuses an empty --db, which would name the working folder, with the fix', async () => {
    const run = await runCli(['serve', '--port', '0', '--db', ''], { cwd: ws.dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'guidectl: --db takes a database file, e.g. --db guides.db, or :memory:; it is empty\n',
    );
    expect(run.stdout).toBe('');
  });
});

describe('guidectl serve --secret', () => {
  it('refuses an empty or blank --secret or GUIDECTL_SERVICE_SECRET, and leaves the stored one', async () => {
    const db = join(ws.dir, 'secret.db');
    const first = await GuideService.start({ db, appid: 'wx00000000000000ee', secret: 'kept' });
    await first.close();
    const runs = [
      { args: ['--secret', ''], env: {}, named: '--secret' },
      { args: ['--secret', '  '], env: {}, named: '--secret' },
      { args: [], env: { GUIDECTL_SERVICE_SECRET: '' }, named: 'GUIDECTL_SERVICE_SECRET' },
    ];
    for (const { args, env, named } of runs) {
      const run = await runCli(
        ['serve', '--port', '0', '--db', db, '--appid', 'wx00000000000000ee', ...args],
        {
          cwd: ws.dir,
          env,
        },
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`${named} is empty: an empty app secret would give a token to anyone`);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(run.stdout).toBe('');
    }
    const again = await GuideService.start({ db });
    try {
      expect(await fetchToken(again.url, 'wx00000000000000ee', 'kept')).toMatch(/./);
    } finally {
      await again.close();
    }
  });
});

describe('guidectl serve --appid and a short --secret', () => {
  it('refuses an appid that is empty, blank or not one, and a secret under 16 characters; the stored ones stay', async () => {
    const db = join(ws.dir, 'appid.db');
    const secret = 'kept-secret-0123456789';
    const first = await GuideService.start({ db, appid: 'wx00000000000000aa', secret });
    const token = await fetchToken(first.url, 'wx00000000000000aa', secret);
    await first.close();
    const runs: [string[], Record<string, string>, string][] = [
      [['--appid', ''], {}, '--appid is empty: give wx and 16 lower-case hex digits'],
      [['--appid', ' '], {}, '--appid is empty: give wx and 16 lower-case hex digits'],
      [['--appid', 'bad'], {}, '--appid "bad" is not an appid: give wx and 16 lower-case hex digits'],
      [['--appid', 'wx00000000000000AA'], {}, '--appid "wx00000000000000AA" is not an appid'],
      [['--secret', 'x'], {}, '--secret is too short (1 character): a short secret is easily guessed'],
      [
        [],
        { GUIDECTL_SERVICE_SECRET: 'fifteen-chars-x' },
        'GUIDECTL_SERVICE_SECRET is too short (15 characters)',
      ],
    ];
    for (const [args, env, message] of runs) {
      const run = await runCli(['serve', '--port', '0', '--db', db, ...args], { cwd: ws.dir, env });
      expect(run.code, message).toBe(1);
      expect(run.stderr).toContain(`guidectl: ${message}`);
      expect(run.stderr).toContain('or leave');
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(run.stdout).toBe('');
    }
    // The library refuses an empty appid too (it would be stored, and revoke the tokens).
    expect(() => GuideService.open({ db, appid: ' ' })).toThrow('the appid is empty');
    // Nothing was stored: the appid, the secret and the token taken before all still work.
    const again = await GuideService.start({ db });
    try {
      expect(again.appid).toBe('wx00000000000000aa');
      expect(await fetchToken(again.url, 'wx00000000000000aa', secret)).toMatch(/./);
      const read = await rawRequest(`${again.url}/cgi-bin/guide/getguideacctlist?access_token=${token}`, {
        method: 'POST',
        body: '{"page": 0, "num": 10}',
      });
      expect(read.json['errcode']).toBe(0);
    } finally {
      await again.close();
    }
  });
});

/** Runs `guidectl serve ARGS` in-process until it listens, then stops it; returns its output. */
async function serveUntilListening(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stop = new AbortController();
  const io = captureIo({}, ws.dir, { stop: stop.signal });
  const running = runProgram(['serve', '--port', '0', '--db', ':memory:', ...args], io);
  let done = false;
  void running.finally(() => {
    done = true;
  });
  while (!done && !io.out().includes('listening on')) await new Promise((r) => setTimeout(r, 10));
  stop.abort();
  const code = await running;
  return { code, out: io.out(), err: io.err() };
}

describe('guidectl serve --simulation', () => {
  it('warns when the simulation listens beyond loopback', async () => {
    const open = await serveUntilListening(['--host', '0.0.0.0', '--simulation']);
    expect(open.code).toBe(0);
    expect(open.err).toContain('guidectl serve: warning: the simulation is on at 0.0.0.0');
    expect(open.err).toContain('?access_token=');
    const local = await serveUntilListening(['--simulation']);
    expect(local.code).toBe(0);
    expect(local.err).not.toContain('warning');
  });
});

describe('guidectl serve --durability', () => {
  it('the banner says the durability beside a database file', async () => {
    const full = await serveUntilListening(['--db', join(ws.dir, 'full.db'), '--durability', 'full']);
    expect(full.code).toBe(0);
    expect(full.out).toContain(`  database   ${join(ws.dir, 'full.db')} (durability full)\n`);
    const normal = await serveUntilListening(['--db', join(ws.dir, 'normal.db')]);
    expect(normal.out).toContain(`  database   ${join(ws.dir, 'normal.db')} (durability normal)\n`);
    const memory = await serveUntilListening([]);
    expect(memory.out).toContain('  database   :memory:\n');
  });
});
