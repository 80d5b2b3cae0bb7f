import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { TWO_ENVIRONMENTS, useTwoAccounts } from '../helpers/environments.js';
import { guideBody } from '../helpers/service.js';

// tasks, chats, qrcode, path-menu and api reach an environment's account with --env NAME --files
// PATH…, as plan and apply do: two services over real HTTP as staging and production, alice_wx
// only in staging's account, so each command's answer says which account it reached.

const two = useTwoAccounts(TWO_ENVIRONMENTS);
/** The services' frozen clock (2026-11-20 08:00:00 UTC), in seconds. */
const NOW = Date.UTC(2026, 10, 20, 8, 0, 0) / 1000;
const AT = { staging: ['--env', 'staging', '--files', 'guides.yaml'] };
const run = (args: readonly string[], env = two.env()) =>
  runCli(args, { cwd: two.ws.dir, env, now: () => NOW * 1000 });

describe('--env NAME --files PATH… on the commands beside plan and apply', () => {
  it("each of the five reaches the environment's account and no other", async () => {
    await two.staging.ok('addguideacct', guideBody('alice_wx'));
    await two.staging.sim('customers', { guide_account: 'alice_wx', openids: ['oAnn'] });
    await two.staging.ok('addguidemassendjob', {
      guide_account: 'alice_wx',
      task_name: 'Spring sale',
      push_time: NOW + 3600,
      openid: ['oAnn'],
      material: [{ type: 1, word: 'Hello' }],
    });
    const production = ['--env', 'production', '--files', 'guides.yaml'];

    const api = await run(['api', 'getguideacct', '{"guide_account": "alice_wx"}', ...AT.staging]);
    expect(api.code, api.stderr).toBe(0);
    expect(JSON.parse(api.stdout)).toMatchObject({ guide_account: 'alice_wx' });
    const apiThere = await run(['api', 'getguideacct', '{"guide_account": "alice_wx"}', ...production]);
    expect(apiThere.code).toBe(1);
    expect(apiThere.stdout).toContain('9300804');

    const tasks = await run(['tasks', '--json', ...AT.staging]);
    expect(tasks.code, tasks.stderr).toBe(0);
    expect(JSON.parse(tasks.stdout).tasks).toMatchObject([
      { name: 'Spring sale', guide_account: 'alice_wx' },
    ]);
    const tasksThere = await run(['tasks', '--json', ...production]);
    expect(JSON.parse(tasksThere.stdout).tasks).toEqual([]);

    const qrcode = await run(['qrcode', 'alice_wx', ...AT.staging]);
    expect(qrcode.code, qrcode.stderr).toBe(0);
    expect(qrcode.stdout).toMatch(/^https:\/\/mp\.weixin\.qq\.com\/guide\/qrcode\?ticket=\S+\n$/);
    expect((await run(['qrcode', 'alice_wx', ...production])).stderr).toContain('9300804');

    const menu = await run(['path-menu', 'alice_wx', '--appid', 'wx1234567890abcdef', ...AT.staging]);
    expect(menu.code, menu.stderr).toBe(0);
    expect(await two.staging.sim('wxamenu', { wx_username: 'alice_wx' })).toMatchObject({
      menus: [{ wxa_appid: 'wx1234567890abcdef' }],
    });
    expect((await run(['path-menu', 'alice_wx', '--appid', 'wx1234567890abcdef', ...production])).code).toBe(
      1,
    );

    const chats = await run(['chats', 'alice_wx', ...AT.staging]);
    expect(chats.code, chats.stderr).toBe(0);
    expect(two.staging.service.calls().some((c) => c.operation === 'getguidebuyerchatrecord')).toBe(true);
    const chatsThere = await run(['chats', 'alice_wx', ...production]);
    expect(chatsThere.code).toBe(1);
    expect(chatsThere.stderr).toContain('9300804');
    // Nothing went to a local database: each environment's target is its service.
    expect(existsSync(join(two.ws.dir, '.guidectl'))).toBe(false);
  });

  it('takes the target rules of --env: a near name, the flags apart, credentials not set, base_url, the database', async () => {
    two.staging.service.resetCalls();
    const near = await run(['tasks', '--env', 'stagin', '--files', 'guides.yaml']);
    expect(near.code).toBe(1);
    expect(near.stderr).toContain('no environment "stagin" in the files (did you mean "staging"?)');
    const alone = await run(['qrcode', 'alice_wx', '--env', 'staging']);
    expect(alone.stderr).toContain('--env and --files go together: the files say where the environment is');
    const filesAlone = await run(['api', 'getguideacctlist', '--files', 'guides.yaml']);
    expect(filesAlone.stderr).toContain('--env and --files go together');
    const baseUrl = await run(['api', 'getguideacctlist', ...AT.staging, '--base-url', two.staging.url]);
    expect(baseUrl.stderr).toContain('--base-url cannot be given with --env');
    const unset = await run(['chats', 'alice_wx', ...AT.staging], {});
    expect(unset.code).toBe(1);
    expect(unset.stderr).toContain(
      'environment staging cannot be used from here: it has a base_url but no credentials are set: set STAGING_APPID and STAGING_SECRET, or STAGING_ACCESS_TOKEN',
    );
    for (const r of [near, alone, filesAlone, baseUrl, unset]) expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(two.staging.service.calls()).toHaveLength(0);

    // An environment without credentials and base_url is the embedded service over .guidectl/<name>.db.
    await two.ws.write('dev.yaml', 'version: 1\nenvironments:\n  dev: {}\n');
    const dev = await run([
      'api',
      'getguideacctlist',
      '{"page": 0, "num": 10}',
      '--env',
      'dev',
      '--files',
      'dev.yaml',
    ]);
    expect(dev.code, dev.stderr).toBe(0);
    expect(JSON.parse(dev.stdout)).toMatchObject({ errcode: 0, list: [] });
    // A read creates no database (test/cli/environment-db-read-only.test.ts): it says it read none.
    expect(dev.stderr).toContain("environment dev's database .guidectl/dev.db does not exist yet");
    expect(existsSync(join(two.ws.dir, '.guidectl', 'dev.db'))).toBe(false);
  });

  it('the hint after an apply that invited guides in an environment can be run as written', async () => {
    const apply = await run(['apply', '--env', 'staging', '--auto-approve', 'guides.yaml']);
    expect(apply.code, apply.stderr).toBe(0);
    const hint = apply.stdout.match(
      /guidectl (api getguideacct '([^']*)' --env staging --files guides\.yaml)/,
    );
    expect(hint, apply.stdout).not.toBeNull();
    const followed = await run(['api', 'getguideacct', hint?.[2] ?? '', ...AT.staging]);
    expect(followed.code, followed.stderr).toBe(0);
    expect(JSON.parse(followed.stdout)).toMatchObject({ errcode: 0, guide_account: 'alice_wx' });
  });
});
