import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ONE_GUIDE, runCli, useWorkspace } from '../helpers/cli.js';
import { startAccounts, type TestService } from '../helpers/service.js';

/**
 * A saved plan, or a plan id, of files without environments is tied to the target it read: two
 * empty accounts (or a staging seeded from production's export) look alike, and a plan reviewed
 * against staging must never be applied to production.
 */

let accounts: Awaited<ReturnType<typeof startAccounts<'STAGING' | 'PROD'>>>;
beforeAll(async () => {
  accounts = await startAccounts('STAGING', 'PROD');
});
afterAll(() => accounts.close());
const ws = useWorkspace();

/** guidectl in the workspace against `account`, with its credentials as WECHAT_APPID/WECHAT_SECRET. */
const cli = (account: TestService, args: readonly string[]) =>
  runCli([...args, '--base-url', account.url], {
    cwd: ws().dir,
    env: {
      WECHAT_APPID: account.service.credentials.appid,
      WECHAT_SECRET: account.service.credentials.secret,
    },
  });

const writes = (account: TestService): number => account.service.calls().filter((c) => c.writes).length;

describe('a saved plan of files without environments', () => {
  it("records its target, and is refused against another account's, naming both and no secret", async () => {
    const { STAGING: staging, PROD: production } = accounts.accounts;
    await ws().write('small-store.yaml', ONE_GUIDE);
    const plan = await cli(staging, ['plan', 'small-store.yaml', '--out', 'staging.json']);
    expect(plan.code, plan.stderr).toBe(0);
    const saved = JSON.parse(await readFile(join(ws().dir, 'staging.json'), 'utf8'));
    expect(saved).toMatchObject({
      format_version: 4,
      target: `${staging.url} (WECHAT_APPID/WECHAT_SECRET)`,
      target_id: {
        kind: 'remote',
        base_url: staging.url,
        appid_digest: expect.stringMatching(/^[0-9a-f]{16}$/),
      },
    });
    expect(saved.environment).toBeUndefined();

    const before = writes(production);
    const apply = await cli(production, ['apply', 'staging.json']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toBe(
      `guidectl: staging.json was made against ${staging.url} (WECHAT_APPID/WECHAT_SECRET); the target now is ${production.url} (WECHAT_APPID/WECHAT_SECRET). Nothing was changed: plan again for this target\n`,
    );
    for (const secret of [staging.service.credentials.secret, production.service.credentials.secret])
      expect(apply.stdout + apply.stderr).not.toContain(secret);
    expect(writes(production)).toBe(before);

    // Against the account it was made for, it applies.
    const ok = await cli(staging, ['apply', 'staging.json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('Converged');
  });

  it('apply FILES --plan-id refuses an id made against another account', async () => {
    const { STAGING: staging, PROD: production } = accounts.accounts;
    await ws().write(
      'small-store.yaml',
      ONE_GUIDE.replace('alice_wx', 'bobby_wx').replace('alice_wx', 'bobby_wx'),
    );
    const plan = await cli(staging, ['plan', 'small-store.yaml']);
    const id = /^Plan id: ([0-9a-f]{12})$/m.exec(plan.stdout)?.[1] ?? '';
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    const before = writes(production);
    const apply = await cli(production, ['apply', 'small-store.yaml', '--plan-id', id, '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(apply.stdout + apply.stderr).toContain(
      `not ${id} (--plan-id): the files or the account changed since plan ${id} was made, or it was made against another target (another base URL`,
    );
    expect(writes(production)).toBe(before);
  });

  it('a plan of a local database is refused against another one, naming both in full', async () => {
    await ws().write('small-store.yaml', ONE_GUIDE);
    const at = { cwd: ws().dir };
    const plan = await runCli(['plan', 'small-store.yaml', '--local-db', 'a.db', '--out', 'a.json'], at);
    expect(plan.code, plan.stderr).toBe(0);
    const apply = await runCli(['apply', 'a.json', '--local-db', 'b.db'], at);
    expect(apply.code).toBe(1);
    const [a, b] = ['a.db', 'b.db'].map((f) => join(ws().dir, f));
    expect(apply.stderr).toContain(
      `a.json was made against the local database ${a}; here the target is the local database ${b}. Nothing was changed: apply it to that database (--local-db ${a})`,
    );
    expect((await runCli(['apply', 'a.json', '--local-db', 'a.db'], at)).code).toBe(0);
  });
});
