import { type ChildProcess, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuideService } from '../../src/service/index.js';
import { startServeProcess } from '../helpers/serve-process.js';
import { fetchToken, guideBody, rawRequest } from '../helpers/service.js';
import { untilOutput } from '../helpers/spawn.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'guidectl-store-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const creds = { appid: 'wx00000000000000cc', secret: 'persist-secret-00001' };

async function add(url: string, token: string, account: string): Promise<number> {
  const answer = await rawRequest(`${url}/cgi-bin/guide/addguideacct?access_token=${token}`, {
    method: 'POST',
    body: JSON.stringify(guideBody(account)),
  });
  return Number(answer.json['errcode']);
}

/** `guidectl serve` over `db` (the built CLI) with the test's credentials, once it listens. */
const serve = async (db: string, args: string[] = []): Promise<{ child: ChildProcess; url: string }> => {
  const { spawned, url } = await startServeProcess([
    '--db',
    db,
    '--appid',
    creds.appid,
    '--secret',
    creds.secret,
    ...args,
  ]);
  return { child: spawned.child, url };
};

/**
 * An add sent in two steps: `arrived` resolves when the service has read the headers and asked
 * for the body (HTTP 100 Continue); the body goes only when `sendBody` is called.
 */
function addInTwoSteps(
  url: string,
  token: string,
  account: string,
): { arrived: Promise<unknown>; sendBody(): void; errcode: Promise<number> } {
  const body = JSON.stringify(guideBody(account));
  const req = request(`${url}/cgi-bin/guide/addguideacct?access_token=${token}`, {
    method: 'POST',
    agent: false,
    headers: {
      expect: '100-continue',
      connection: 'close',
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    },
  });
  const arrived = once(req, 'continue');
  const errcode = new Promise<number>((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.once('end', () => resolve(Number((JSON.parse(text) as { errcode: unknown }).errcode)));
    });
  });
  req.flushHeaders();
  return { arrived, sendBody: () => req.end(body), errcode };
}

// Heavy work, not waiting: each test starts `guidectl serve` (a Node process) or reopens a store,
// and checks the app secret with scrypt at each start and token request (about 0.2 s of CPU each,
// 1.5 s per test on an idle machine). On a loaded 2-core machine that passed the default 5 s.
describe('durability', { timeout: 20_000 }, () => {
  it('keeps everything and the credentials across a restart', async () => {
    const db = join(dir, 'restart.db');
    const first = await GuideService.start({ db });
    const generated = first.credentials;
    const token = await fetchToken(first.url, generated.appid, generated.secret);
    await add(first.url, token, 'kept_wx');
    const group = await rawRequest(`${first.url}/cgi-bin/guide/newguidegroup?access_token=${token}`, {
      method: 'POST',
      body: '{"group_name": "kept"}',
    });
    const groupId = /"group_id":([0-9]+)/.exec(group.text)?.[1];
    await first.close();

    const second = await GuideService.start({ db });
    try {
      expect(second.appid).toBe(generated.appid);
      expect(second.credentialsGenerated).toBe(false);
      // Only a hash of the secret is kept: the secret is not known until a client presents it.
      expect(() => second.credentials).toThrow(/keeps only its hash/);
      await fetchToken(second.url, generated.appid, generated.secret);
      expect(second.credentials).toEqual(generated);
      // The token issued before the restart is still valid.
      const list = await rawRequest(`${second.url}/cgi-bin/guide/getguidegrouplist?access_token=${token}`, {
        method: 'POST',
        body: '{}',
      });
      expect(list.text).toContain(`"id":${groupId}`);
      const guide = await rawRequest(`${second.url}/cgi-bin/guide/getguideacct?access_token=${token}`, {
        method: 'POST',
        body: '{"guide_account": "kept_wx"}',
      });
      expect(guide.json['errcode']).toBe(0);
    } finally {
      await second.close();
    }
  });

  it('finishes the calls in flight on SIGTERM, then exits 0', async () => {
    const { child, url } = await serve(join(dir, 'term.db'));
    const token = await fetchToken(url, creds.appid, creds.secret);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // The call is in flight from the moment the service has its headers until it has answered:
    // its body is sent only once the service is stopping, so SIGTERM certainly lands mid-call.
    const inFlight = addInTwoSteps(url, token, 'in_flight_wx');
    await inFlight.arrived;
    const stopping = untilOutput(child.stderr, /stopping: .*\n/);
    child.kill('SIGTERM');
    // Words true after a SIGTERM too: it is not a Ctrl-C.
    expect((await stopping)[0]).toBe(
      'stopping: finishing calls in flight (a second Ctrl-C or SIGTERM stops at once)\n',
    );
    inFlight.sendBody();
    expect(await inFlight.errcode).toBe(0);
    expect(await exited).toBe(0);
    const after = await GuideService.start({ db: join(dir, 'term.db') });
    const afterToken = await fetchToken(after.url, creds.appid, creds.secret);
    const got = await rawRequest(`${after.url}/cgi-bin/guide/getguideacct?access_token=${afterToken}`, {
      method: 'POST',
      body: '{"guide_account": "in_flight_wx"}',
    });
    await after.close();
    expect(got.json['errcode']).toBe(0);
  });

  it('stops at once on a second SIGINT, leaving the call in flight unanswered, and releases its lock', async () => {
    const db = join(dir, 'twice.db');
    // Every guide call waits a minute: without the second signal, the stop would wait for it.
    const { child, url } = await serve(db, ['--faults', 'latency=60s']);
    const token = await fetchToken(url, creds.appid, creds.secret);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const inFlight = addInTwoSteps(url, token, 'abandoned_wx');
    await inFlight.arrived;
    inFlight.sendBody();
    const answered = inFlight.errcode.then(
      (errcode) => errcode,
      () => 'unanswered',
    );
    const stopping = untilOutput(child.stderr, /stopping: .*\n/);
    child.kill('SIGINT');
    expect((await stopping)[0]).toBe(
      'stopping: finishing calls in flight (a second Ctrl-C or SIGTERM stops at once)\n',
    );
    child.kill('SIGINT');
    expect(await exited).toBe(1);
    expect(await answered).toBe('unanswered');
    expect(stderr).toContain('guidectl serve: stopped at once: the calls in flight were not answered\n');
    expect(stderr).not.toContain('internal error');
    expect(await readdir(dir)).not.toContain('twice.db.lock');
  });

  it('says what a stop waits for when a client is still sending its request', async () => {
    const logged: string[] = [];
    const service = await GuideService.start({ ...creds, log: (line) => logged.push(line) });
    const token = await fetchToken(service.url, creds.appid, creds.secret);
    const slow = addInTwoSteps(service.url, token, 'slow_wx');
    await slow.arrived;
    const closing = service.close();
    expect(logged).toEqual([
      'stopping: waiting up to 10 s for 1 request whose body is still arriving, then closing its connection',
    ]);
    slow.sendBody();
    expect(await slow.errcode).toBe(0);
    await closing;
  });

  it('loses nothing acknowledged when the process is killed with SIGKILL under load', async () => {
    const db = join(dir, 'kill.db');
    const { child, url } = await serve(db);
    const token = await fetchToken(url, creds.appid, creds.secret);
    const acknowledged: string[] = [];
    // Killed once this many adds were acknowledged, with the other workers' adds in flight.
    const enough = 40;
    let reachedEnough = (): void => {};
    const reached = new Promise<void>((resolve) => {
      reachedEnough = resolve;
    });
    let stop = false;
    const worker = async (w: number): Promise<void> => {
      for (let i = 0; !stop && i < 5000; i++) {
        const account = `load_${w}_${i}`;
        try {
          if ((await add(url, token, account)) === 0) acknowledged.push(account);
          if (acknowledged.length === enough) reachedEnough();
        } catch {
          return; // the process is gone
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    await Promise.race([reached, Promise.all(workers)]);
    child.kill('SIGKILL');
    stop = true;
    await Promise.all(workers);
    expect(acknowledged.length).toBeGreaterThanOrEqual(enough);

    const after = await GuideService.start({ db, ...creds });
    try {
      const afterToken = await fetchToken(after.url, creds.appid, creds.secret);
      const stored = new Set<string>();
      for (let page = 0; ; page++) {
        const answer = await rawRequest(
          `${after.url}/cgi-bin/guide/getguideacctlist?access_token=${afterToken}`,
          {
            method: 'POST',
            body: JSON.stringify({ page, num: 100 }),
          },
        );
        const list = answer.json['list'] as Array<{ guide_account: string }>;
        if (list.length === 0) break;
        for (const g of list) stored.add(g.guide_account);
      }
      const lost = acknowledged.filter((a) => !stored.has(a));
      expect(lost).toEqual([]);
    } finally {
      await after.close();
    }
  });
});

describe('a database that cannot be used', () => {
  it('is a StoreError that names the file, not a crash', async () => {
    const file = join(dir, 'not-a-database.db');
    await writeFile(file, 'hello, I am text\n'.repeat(100));
    await expect(GuideService.start({ db: file })).rejects.toMatchObject({
      code: 'SERVICE_STORE',
      message: expect.stringContaining(`cannot use the database ${file}: file is not a database`),
    });
    await expect(GuideService.start({ db: dir })).rejects.toMatchObject({ code: 'SERVICE_STORE' });
  });

  it('refuses a database file it may not write at start, instead of failing every call it answers', async () => {
    const file = join(dir, 'read-only.db');
    await (await GuideService.start({ db: file, ...creds })).close();
    // Root writes a file whatever its mode: there, only the immutable flag makes it read-only.
    const root = process.getuid?.() === 0;
    if (root) execFileSync('chattr', ['+i', file]);
    else await chmod(file, 0o444);
    try {
      await expect(GuideService.start({ db: file })).rejects.toMatchObject({
        code: 'SERVICE_STORE',
        message: `cannot use the database ${file}: it is read-only, and guidectl writes it even to read it (tokens, the clock); make it writable for this user`,
      });
    } finally {
      if (root) execFileSync('chattr', ['-i', file]);
    }
  });

  it('in a folder it may not write, names the folder and why SQLite writes there', async () => {
    const folder = join(dir, 'read-only-folder');
    await mkdir(folder);
    const file = join(folder, 'x.db');
    await (await GuideService.start({ db: file, ...creds })).close();
    const root = process.getuid?.() === 0;
    if (root) execFileSync('chattr', ['+i', folder]);
    else await chmod(folder, 0o555);
    try {
      await expect(GuideService.start({ db: file })).rejects.toMatchObject({
        code: 'SERVICE_STORE',
        message: `cannot use the database ${file}: it is a folder, its folder does not exist, or this user may not write it or its folder ${folder} (SQLite keeps x.db-wal and x.db-shm beside it)`,
      });
    } finally {
      if (root) execFileSync('chattr', ['-i', folder]);
      else await chmod(folder, 0o755);
    }
  });
});
