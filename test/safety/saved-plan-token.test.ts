import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, useWorkspace } from '../helpers/cli.js';
import { fetchToken, startAccounts, type TestService } from '../helpers/service.js';

/**
 * One base URL serves every account, as `api.weixin.qq.com` does: a gateway in front of two guide
 * services sends each token request to the account of its appid, and each call to the account
 * whose token it carries. A plan saved with staging's appid and secret, applied with production's
 * access token (which names no account), deleted production's guides: the two accounts, seeded
 * alike, read alike. With an access token on either side the account cannot be confirmed, so a
 * saved plan is refused unless the reviewed plan's id is given.
 */

let accounts: Awaited<ReturnType<typeof startAccounts<'STAGING' | 'PROD'>>>;
let gateway: { url: string; server: Server };
beforeAll(async () => {
  accounts = await startAccounts('STAGING', 'PROD');
  gateway = await startGateway(Object.values(accounts.accounts));
});
afterAll(async () => {
  await new Promise((resolve) => gateway.server.close(resolve));
  await accounts.close();
});
const ws = useWorkspace();

/** A gateway at one URL in front of `services`, routing as the real API's one host would. */
async function startGateway(services: readonly TestService[]): Promise<{ url: string; server: Server }> {
  const byToken = new Map<string, TestService>();
  const byAppid = new Map(services.map((s) => [s.service.credentials.appid, s]));
  const server = createServer(async (req, res) => {
    const body = await read(req);
    const url = new URL(req.url ?? '/', 'http://gateway');
    const isToken = url.pathname === '/cgi-bin/stable_token' || url.pathname === '/cgi-bin/token';
    const appid = url.pathname === '/cgi-bin/token' ? url.searchParams.get('appid') : appidOf(body);
    const to = isToken ? byAppid.get(appid ?? '') : byToken.get(url.searchParams.get('access_token') ?? '');
    if (to === undefined) {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ errcode: isToken ? 40013 : 40001, errmsg: 'invalid credential' }));
      return;
    }
    const answer = await fetch(`${to.url}${req.url}`, {
      method: req.method ?? 'GET',
      headers: { 'content-type': 'application/json' },
      ...(req.method === 'POST' ? { body } : {}),
    });
    const text = await answer.text();
    if (isToken) {
      const token = (JSON.parse(text) as { access_token?: string }).access_token;
      if (token !== undefined) byToken.set(token, to);
    }
    res.statusCode = answer.status;
    res.setHeader('content-type', 'application/json');
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function appidOf(body: string): string | undefined {
  try {
    const appid = (JSON.parse(body) as { appid?: unknown }).appid;
    return typeof appid === 'string' ? appid : undefined;
  } catch {
    return undefined;
  }
}

const TEN = Array.from({ length: 10 }, (_, i) => `guide_${i}`);
const guides = (accounts: readonly string[]): string =>
  accounts
    .map((a) => `  - account: ${a}\n    nickname: ${a}\n    head_image_url: https://img.example/${a}\n`)
    .join('');

const appCredentials = (account: TestService) => ({
  WECHAT_APPID: account.service.credentials.appid,
  WECHAT_SECRET: account.service.credentials.secret,
});
const cli = (args: readonly string[], env: Record<string, string>) =>
  runCli([...args, '--base-url', gateway.url], { cwd: ws().dir, env });

const guidesOf = async (account: TestService): Promise<number> =>
  Number((await account.ok('getguideacctlist', { page: 0, num: 100 }))['total_num']);

beforeEach(async () => {
  const { STAGING: staging, PROD: production } = accounts.accounts;
  await ws().write('all.yaml', `version: 1\nguides:\n${guides(TEN)}`);
  for (const account of [staging, production]) {
    await account.sim('reset');
    const seeded = await cli(['apply', 'all.yaml', '--auto-approve'], appCredentials(account));
    expect(seeded.code, seeded.stderr).toBe(0);
  }
  // Two guides fewer, pruned: 2 of 10, within the guard.
  await ws().write('all.yaml', `version: 1\nprune:\n  guides: true\nguides:\n${guides(TEN.slice(2))}`);
});

describe('a saved plan applied with an access token', () => {
  it("made with staging's appid, applied with production's token on the same base URL: refused, production untouched", async () => {
    const { STAGING: staging, PROD: production } = accounts.accounts;
    const plan = await cli(['plan', 'all.yaml', '--out', 'staging.json'], appCredentials(staging));
    expect(plan.code, plan.stderr).toBe(0);
    const productionToken = await fetchToken(
      gateway.url,
      production.service.credentials.appid,
      production.service.credentials.secret,
    );

    const apply = await cli(['apply', 'staging.json'], { WECHAT_ACCESS_TOKEN: productionToken });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toBe(
      `guidectl: staging.json was made against ${gateway.url} (WECHAT_APPID/WECHAT_SECRET); the target now is ${gateway.url} (WECHAT_ACCESS_TOKEN). The target now uses an access token, which does not say which account it belongs to (one base URL serves many accounts), so guidectl cannot confirm that this is the account the plan was made for. Nothing was changed: if it is, give the id of the plan you reviewed (the "Plan id:" that plan printed): guidectl apply staging.json --plan-id ID; or use the account's appid and secret both to plan and to apply; or plan again for this target\n`,
    );
    expect(apply.stdout + apply.stderr).not.toContain(productionToken);
    expect(await guidesOf(production)).toBe(10);
  });

  it('made with a token, applied with a token: refused unless the reviewed plan id is given', async () => {
    const { STAGING: staging } = accounts.accounts;
    const token = await fetchToken(
      gateway.url,
      staging.service.credentials.appid,
      staging.service.credentials.secret,
    );
    const plan = await cli(['plan', 'all.yaml', '--out', 'staging.json'], { WECHAT_ACCESS_TOKEN: token });
    expect(plan.code, plan.stderr).toBe(0);
    const id = /^Plan id: ([0-9a-f]{12})$/m.exec(plan.stdout)?.[1] ?? '';
    expect(id).toMatch(/^[0-9a-f]{12}$/);

    const unpinned = await cli(['apply', 'staging.json'], { WECHAT_ACCESS_TOKEN: token });
    expect(unpinned.code).toBe(1);
    expect(unpinned.stderr).toContain(
      'Both use an access token, which does not say which account it belongs to',
    );
    expect(await guidesOf(staging)).toBe(10);

    // Another id than the saved plan's: refused as before.
    const wrong = await cli(['apply', 'staging.json', '--plan-id', '000000000000'], {
      WECHAT_ACCESS_TOKEN: token,
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('not 000000000000 (--plan-id)');
    expect(await guidesOf(staging)).toBe(8 + 2);

    const pinned = await cli(['apply', 'staging.json', '--plan-id', id], { WECHAT_ACCESS_TOKEN: token });
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(await guidesOf(staging)).toBe(8);
  });

  it('made with the appid and secret, applied with them: the appid confirms the account, no --plan-id needed', async () => {
    const { STAGING: staging, PROD: production } = accounts.accounts;
    expect((await cli(['plan', 'all.yaml', '--out', 'staging.json'], appCredentials(staging))).code).toBe(0);
    const other = await cli(['apply', 'staging.json'], appCredentials(production));
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('with the credentials of another account (another appid)');
    const same = await cli(['apply', 'staging.json'], appCredentials(staging));
    expect(same.code, same.stderr).toBe(0);
    expect(await guidesOf(staging)).toBe(8);
    expect(await guidesOf(production)).toBe(10);
  });
});
