import { readFile, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret, hashToken, settleCredentials } from '../../src/service/credentials.js';
import { GuideService } from '../../src/service/index.js';
import { Store } from '../../src/service/store.js';
import { type Workspace, workspace } from '../helpers/cli.js';
import { fetchToken, frozenClock, rawRequest } from '../helpers/service.js';

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace();
});
afterAll(() => ws.remove());

const A = { appid: 'wx00000000000000a1', secret: 'secret-of-a1' };

async function groupList(url: string, token: string): Promise<number> {
  const answer = await rawRequest(`${url}/cgi-bin/guide/getguidegrouplist?access_token=${token}`, {
    method: 'POST',
    body: '{}',
  });
  return Number(answer.json['errcode']);
}

async function withService<T>(
  options: Parameters<typeof GuideService.start>[0],
  fn: (s: GuideService) => Promise<T>,
): Promise<T> {
  const service = await GuideService.start(options);
  try {
    return await fn(service);
  } finally {
    await service.close();
  }
}

describe('tokens are tied to the app', () => {
  it('a token works across a restart with the same credentials, and not for another appid or secret', async () => {
    const db = join(ws.dir, 'tied.db');
    const token = await withService({ db, ...A }, (s) => fetchToken(s.url, A.appid, A.secret));
    expect(await withService({ db, ...A }, (s) => groupList(s.url, token))).toBe(0);
    // Another appid: the token is not valid for it.
    expect(
      await withService({ db, appid: 'wx00000000000000b2', secret: A.secret }, (s) =>
        groupList(s.url, token),
      ),
    ).toBe(40001);
    // Back to the first appid: the change of appid revoked the token for good.
    expect(await withService({ db, ...A }, (s) => groupList(s.url, token))).toBe(40001);
    const second = await withService({ db, ...A }, (s) => fetchToken(s.url, A.appid, A.secret));
    // A new secret revokes the tokens issued under the old one.
    expect(
      await withService({ db, appid: A.appid, secret: 'a-new-secret' }, (s) => groupList(s.url, second)),
    ).toBe(40001);
  });
});

describe('secrets at rest', () => {
  it('keeps a salted scrypt hash of the secret and hashes of tokens, in files only the owner can read', async () => {
    const db = join(ws.dir, 'rest.db');
    const token = await withService({ db, ...A }, async (s) => {
      const t = await fetchToken(s.url, A.appid, A.secret);
      // Read the modes while the WAL and SHM files exist.
      for (const file of [db, `${db}-wal`, `${db}-shm`]) {
        expect(((await stat(file)).mode & 0o777).toString(8), file).toBe('600');
      }
      return t;
    });
    const bytes = await readFile(db);
    expect(bytes.includes(A.secret)).toBe(false);
    expect(bytes.includes(token)).toBe(false);
    const check = new Database(db, { readonly: true });
    try {
      const meta = check.prepare("SELECT value FROM meta WHERE key = 'secret_hash'").get() as {
        value: string;
      };
      expect(meta.value).toMatch(/^scrypt\$16384\$8\$1\$/);
      expect(check.prepare("SELECT COUNT(*) AS n FROM meta WHERE key = 'secret'").get()).toEqual({ n: 0 });
    } finally {
      check.close();
    }
    // The secret still opens the door after a restart without --secret (checked against the hash).
    expect(
      await withService({ db }, async (s) => groupList(s.url, await fetchToken(s.url, A.appid, A.secret))),
    ).toBe(0);
    expect(await withService({ db }, (s) => groupList(s.url, token))).toBe(0);
  });

  it('replaces an empty stored secret (from before it was refused) at start, revoking its tokens', async () => {
    const db = join(ws.dir, 'empty-secret.db');
    // What `serve --secret ''` left before it was refused: the hash of "", and a token taken with it.
    const old = new Store(db);
    old.setMeta('appid', A.appid);
    old.setMeta('secret_hash', hashSecret(''));
    old.run(
      "INSERT INTO tokens (token_hash, appid, kind, issued_at, expires_at) VALUES (?, ?, 'token', 0, 9999999999)",
      hashToken('taken-with-empty'),
      A.appid,
    );
    old.close();
    const logged: string[] = [];
    await withService({ db, log: (line) => logged.push(line) }, async (s) => {
      expect(logged).toEqual([
        'the stored app secret was empty (taken by an older guidectl): a new one was generated, and every token issued under the empty one is revoked',
      ]);
      expect(s.credentialsGenerated).toBe(true);
      expect(await groupList(s.url, 'taken-with-empty')).toBe(40001);
      expect(await groupList(s.url, await fetchToken(s.url, A.appid, s.credentials.secret))).toBe(0);
    });
  });

  it('spends scrypt on the secret only for a database that outlives the process', () => {
    const memory = new Store(':memory:');
    const file = new Store(join(ws.dir, 'settle.db'));
    try {
      for (const store of [memory, file]) expect(settleCredentials(store, {}).generated).toBe(true);
      expect(memory.getMeta('secret_hash')).toBeUndefined();
      expect(file.getMeta('secret_hash')).toMatch(/^scrypt\$/);
    } finally {
      memory.close();
      file.close();
    }
  });

  it('migrates a database of the previous version: clear secret and tokens become hashes, tokens keep working', async () => {
    const db = join(ws.dir, 'v1.db');
    await withService({ db, ...A }, async () => {});
    // Turn it into what the previous version wrote (schema 1: secret and tokens in clear, no quotas).
    const old = new Database(db);
    old.exec(`DROP TABLE tokens; DROP TABLE quota_used; DROP TABLE quota_clears;
      CREATE TABLE tokens (token TEXT PRIMARY KEY, kind TEXT NOT NULL, issued_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL, superseded INTEGER NOT NULL DEFAULT 0) STRICT;
      DELETE FROM meta WHERE key = 'secret_hash';
      INSERT INTO meta (key, value) VALUES ('secret', '${A.secret}');
      PRAGMA user_version = 1;`);
    const oldToken = 'an-old-clear-token-0123456789abcdefghijklmnopqrstuvwxyz';
    const now = Math.floor(frozenClock().now() / 1000);
    old.prepare("INSERT INTO tokens VALUES (?, 'stable', ?, ?, 0)").run(oldToken, now, now + 7200);
    old.close();
    expect((await readFile(db)).includes(A.secret)).toBe(true);

    await withService({ db, clock: frozenClock() }, async (s) => {
      expect(s.appid).toBe(A.appid);
      expect(await groupList(s.url, oldToken)).toBe(0);
      expect(await groupList(s.url, await fetchToken(s.url, A.appid, A.secret))).toBe(0);
    });
    const bytes = await readFile(db);
    expect(bytes.includes(A.secret)).toBe(false);
    expect(bytes.includes(oldToken)).toBe(false);
  });
});

/** POST /cgi-bin/stable_token from a chosen local address (127.0.0.x are all this machine). */
function tokenFrom(url: string, localAddress: string, secret: string): Promise<number | string> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/cgi-bin/stable_token`,
      { method: 'POST', localAddress, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => {
          const json = JSON.parse(text) as Record<string, unknown>;
          resolve(typeof json['access_token'] === 'string' ? 'token' : Number(json['errcode']));
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ grant_type: 'client_credential', appid: A.appid, secret }));
  });
}

describe('failed token requests are throttled', () => {
  it('after 10 failures in a minute from one address, refuses it with 45011, the right secret too, until the minute passes', async () => {
    await withService({ ...A, clock: frozenClock() }, async (s) => {
      const wrong = await Promise.all(
        Array.from({ length: 30 }, () => tokenFrom(s.url, '127.0.0.1', 'guess')),
      );
      expect(wrong.filter((c) => c === 40125).length).toBe(10);
      expect(wrong.filter((c) => c === 45011).length).toBe(20);
      expect(await tokenFrom(s.url, '127.0.0.1', A.secret)).toBe(45011);
      s.clock.advance(61);
      expect(await tokenFrom(s.url, '127.0.0.1', A.secret)).toBe('token');
    });
  });

  it('counts failures per appid across addresses too', async () => {
    await withService({ ...A, clock: frozenClock() }, async (s) => {
      for (let i = 0; i < 10; i++) expect(await tokenFrom(s.url, `127.0.0.${10 + i}`, 'guess')).toBe(40125);
      expect(await tokenFrom(s.url, '127.0.0.99', A.secret)).toBe(45011);
      s.clock.advance(61);
      expect(await tokenFrom(s.url, '127.0.0.99', A.secret)).toBe('token');
    });
  });

  it('does not count right secrets', async () => {
    await withService({ ...A, clock: frozenClock() }, async (s) => {
      for (let i = 0; i < 15; i++) expect(await tokenFrom(s.url, '127.0.0.1', A.secret)).toBe('token');
      for (let i = 0; i < 9; i++) expect(await tokenFrom(s.url, '127.0.0.1', 'guess')).toBe(40125);
      expect(await tokenFrom(s.url, '127.0.0.1', A.secret)).toBe('token');
    });
  });
});

describe('the simulation interface off loopback', () => {
  it('needs a token of the app when the service listens beyond loopback', async () => {
    await withService({ ...A, host: '0.0.0.0', simulation: true }, async (s) => {
      expect(s.simNeedsToken).toBe(true);
      const url = `http://127.0.0.1:${new URL(s.url).port}`;
      const sim = (query: string) => rawRequest(`${url}/__sim/clock${query}`, { method: 'POST', body: '{}' });
      expect((await sim('')).json['errcode']).toBe(41001);
      expect((await sim('?access_token=made-up')).json['errcode']).toBe(40001);
      const token = await fetchToken(url, A.appid, A.secret);
      expect((await sim(`?access_token=${token}`)).json['errcode']).toBe(0);
      // Nothing was reset by the refused calls: a reset with no token is refused too.
      expect((await rawRequest(`${url}/__sim/reset`, { method: 'POST', body: '{}' })).json['errcode']).toBe(
        41001,
      );
    });
  });

  it('is off without --simulation, and the answer says how to turn it on', async () => {
    await withService({ ...A }, async (s) => {
      const answer = await rawRequest(`${s.url}/__sim/reset`, { method: 'POST', body: '{}' });
      expect(answer.json).toEqual({
        errcode: 40066,
        errmsg:
          'invalid url: /__sim/reset is the simulation interface, which is off; start guidectl serve with --simulation',
      });
    });
  });

  it('needs none on loopback', async () => {
    await withService({ ...A, simulation: true }, async (s) => {
      expect(s.simNeedsToken).toBe(false);
      expect((await rawRequest(`${s.url}/__sim/clock`, { method: 'POST', body: '{}' })).json['errcode']).toBe(
        0,
      );
    });
  });
});
