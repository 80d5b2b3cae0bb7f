// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${name} in plain strings is the syntax under test
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, runCli } from '../helpers/cli.js';
import { atUrls, TWO_ENVIRONMENTS, useTwoAccounts } from '../helpers/environments.js';
import type { TestService } from '../helpers/service.js';

// Two guide services over real HTTP, as a staging and a production account, planned and applied
// from one file by --env NAME: each gets its own values, the only_in guide only its environment.

const FILE = TWO_ENVIRONMENTS;

const two = useTwoAccounts(FILE);
const credentials = (): Record<string, string> => two.env();
const cli = two.cli;

/** The guides of one service and alice_wx's configuration there (as JSON text), read through `guidectl api`. */
async function accountOf({ service }: TestService): Promise<{ guides: string[]; config: string }> {
  const env = { WECHAT_APPID: service.credentials.appid, WECHAT_SECRET: service.credentials.secret };
  const api = (args: string[]) =>
    runCli(['api', ...args, '--base-url', service.url], { cwd: two.ws.dir, env });
  const list = JSON.parse((await api(['getguideacctlist', '{"page": 0, "num": 10}'])).stdout);
  const config = (await api(['getguideconfig', '{"guide_account": "alice_wx"}'])).stdout;
  return { guides: list.list.map((g: { guide_account: string }) => g.guide_account).sort(), config };
}

describe('--env NAME on plan and apply', () => {
  it('files with environments need --env (or --all-envs): exit 1 naming them', async () => {
    for (const command of [['plan'], ['apply', '--auto-approve']]) {
      const run = await cli([...command, 'guides.yaml']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        'the files declare environments (staging, production): choose one with --env NAME, or all of them with --all-envs\n',
      );
    }
  });

  it('each environment gets its own values and its own guides, at its own target', async () => {
    const plan = await cli(['plan', '--env', 'staging', 'guides.yaml']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout.split('\n')[0]).toBe(
      `Environment staging: ${two.staging.url} (STAGING_APPID/STAGING_SECRET)`,
    );
    expect(plan.stdout).toContain('qa_bot_wx');

    for (const env of ['staging', 'production']) {
      const apply = await cli(['apply', '--env', env, '--auto-approve', 'guides.yaml']);
      expect(apply.code, apply.stderr).toBe(0);
    }
    const s = await accountOf(two.staging);
    const p = await accountOf(two.production);
    expect(s.guides).toEqual(['alice_wx', 'qa_bot_wx']);
    expect(p.guides).toEqual(['alice_wx']);
    expect(s.config).toContain('wx1111111111111111');
    expect(s.config).not.toContain('wx2222222222222222');
    expect(p.config).toContain('wx2222222222222222');

    const again = await cli(['plan', '--env', 'production', '--detailed-exitcode', 'guides.yaml']);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout.split('\n')[0]).toBe(
      `Environment production: ${two.production.url} (PROD_APPID/PROD_SECRET)`,
    );
  });

  it('an environment without its credentials set is refused, naming the variables; none is printed', async () => {
    const run = await cli(['plan', '--env', 'production', 'guides.yaml'], {
      STAGING_APPID: two.staging.service.credentials.appid,
      STAGING_SECRET: two.staging.service.credentials.secret,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'environment production cannot be used from here: it has a base_url but no credentials are set: set PROD_APPID and PROD_SECRET, or PROD_ACCESS_TOKEN',
    );
    expect(run.stderr).not.toContain(two.staging.service.credentials.secret);
  });

  it("refused credentials: the hint names the environment's variables, not WECHAT_*", async () => {
    const token = await cli(['plan', '--env', 'staging', 'guides.yaml'], {
      STAGING_ACCESS_TOKEN: 'not-a-token',
    });
    expect(token.code).toBe(1);
    expect(token.stderr).toContain(
      'the fixed access token (STAGING_ACCESS_TOKEN) was refused: set a fresh one, or unset it and set STAGING_APPID and STAGING_SECRET instead',
    );
    expect(token.stderr).not.toContain('WECHAT_');
    const { appid } = two.staging.service.credentials;
    const secret = await cli(['plan', '--env', 'staging', 'guides.yaml'], {
      STAGING_APPID: appid,
      STAGING_SECRET: 'not-the-secret',
    });
    expect(secret.code).toBe(1);
    expect(secret.stderr).toContain('check the app secret (STAGING_SECRET)');
    expect(secret.stderr).not.toContain('WECHAT_');
    expect(secret.stderr).not.toContain('not-the-secret');
  });

  it('--base-url with --env is refused: the files name the target', async () => {
    const run = await cli(['plan', '--env', 'staging', '--base-url', two.production.url, 'guides.yaml']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--base-url cannot be given with --env');
  });

  it('no credentials and no base_url: the embedded service over .guidectl/<env>.db', async () => {
    await two.ws.write(
      'local.yaml',
      FILE.replace(/ {4}base_url: .*\n/g, '').replace(/ {4}credentials: .*\n/g, ''),
    );
    const apply = await cli(['apply', '--env', 'staging', '--auto-approve', 'local.yaml'], {});
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout.split('\n')[0]).toBe('Environment staging: local database .guidectl/staging.db');
    expect(existsSync(join(two.ws.dir, '.guidectl', 'staging.db'))).toBe(true);
    expect(existsSync(join(two.ws.dir, '.guidectl', 'production.db'))).toBe(false);
    const plan = await cli(['plan', '--env', 'staging', '--detailed-exitcode', 'local.yaml'], {});
    expect(plan.code).toBe(0);
  });

  it('plan --env NAME --markdown and --json name the environment and its target, as show does of its saved plan', async () => {
    const remote = `${two.staging.url} (STAGING_APPID/STAGING_SECRET)`;
    // As plan --all-envs --markdown heads each environment: markdown's own characters escaped.
    const heading = `### staging — ${remote.replaceAll('_', '\\_')}`;
    const markdown = await cli(['plan', '--env', 'staging', '--markdown', 'guides.yaml']);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout.split('\n').slice(0, 3)).toEqual(['<!-- guidectl-plan -->', heading, '']);
    const json = await cli(['plan', '--env', 'staging', '--json', '--out', 's.json', 'guides.yaml']);
    expect(json.code, json.stderr).toBe(0);
    const planned = JSON.parse(json.stdout);
    expect(planned.environment).toEqual({ name: 'staging', target: remote });
    expect(Object.keys(planned).slice(0, 3)).toEqual(['format_version', 'plan_id', 'environment']);
    expect(JSON.stringify(planned)).not.toContain(two.staging.service.credentials.secret);
    const shown = JSON.parse((await cli(['show', 's.json', '--json'])).stdout);
    expect(shown.environment).toEqual(planned.environment);
    expect((await cli(['show', 's.json', '--markdown'])).stdout).toContain(`${heading}\n`);

    // Its credentials variables empty: the embedded service, and the comment says so.
    await two.ws.write(
      'local.yaml',
      FILE.replace(/ {4}base_url: .*\n/g, '').replace(/ {4}credentials: .*\n/g, ''),
    );
    const local = await cli(['plan', '--env', 'production', '--markdown', 'local.yaml'], {});
    expect(local.code, local.stderr).toBe(0);
    expect(local.stdout).toContain('### production — local database .guidectl/production.db\n');
    // Without environments, nothing is named.
    await two.ws.write('plain.yaml', 'version: 1\nguides: []\n');
    const plain = await cli(['plan', '--json', 'plain.yaml'], { GUIDECTL_LOCAL_DB: ':memory:' });
    expect(JSON.parse(plain.stdout).environment).toBeUndefined();
  });

  it('every JSON output of an environment names it as plan --json does: failures, apply and its stream, plan --all-envs', async () => {
    const remote = (name: 'staging' | 'production', auth: string) => `${two[name].url} (${auth})`;
    const staging = { name: 'staging', target: remote('staging', 'STAGING_APPID/STAGING_SECRET') };
    const production = { name: 'production', target: remote('production', 'PROD_APPID/PROD_SECRET') };
    const onlyStaging = {
      STAGING_APPID: two.staging.service.credentials.appid,
      STAGING_SECRET: two.staging.service.credentials.secret,
    };
    // A target that cannot be resolved: the name only; one that fails when read: name and target.
    const unresolved = await cli(['plan', '--env', 'production', '--json', 'guides.yaml'], onlyStaging);
    expect(unresolved.code).toBe(1);
    expect(JSON.parse(unresolved.stdout)).toMatchObject({
      environment: { name: 'production' },
      diagnostics: [],
    });
    expect(JSON.parse(unresolved.stdout).environment).toEqual({ name: 'production' });
    const refused = await cli(['plan', '--env', 'staging', '--json', 'guides.yaml'], {
      STAGING_ACCESS_TOKEN: 'not-a-token',
    });
    expect(refused.code).toBe(1);
    const refusedJson = JSON.parse(refused.stdout);
    expect(refusedJson.environment).toEqual({
      name: 'staging',
      target: remote('staging', 'STAGING_ACCESS_TOKEN'),
    });
    expect(Object.keys(refusedJson).slice(0, 3)).toEqual(['format_version', 'environment', 'error']);

    // apply --json's plan, and the --json-stream plan event (name and target, as a stream names environments).
    const apply = await cli(['apply', '--env', 'staging', '--json', '--auto-approve', 'guides.yaml']);
    expect(apply.code, apply.stderr).toBe(0);
    expect(JSON.parse(apply.stdout).plan.environment).toEqual(staging);
    const stream = await cli([
      'apply',
      '--env',
      'production',
      '--json-stream',
      '--auto-approve',
      'guides.yaml',
    ]);
    expect(stream.code, stream.stderr).toBe(0);
    expect(jsonLines(stream.stdout)[0]).toMatchObject({
      type: 'plan',
      environment: 'production',
      target: production.target,
    });

    // A plan that cannot be made (a protected guide deleted): name and target.
    await two.ws.write(
      'guides.yaml',
      atUrls(FILE, two.staging.url, two.production.url).replace(
        /guides:\n[\s\S]*$/,
        'protect:\n  guides: [alice_wx]\nprune:\n  guides: true\nguides: []\n',
      ),
    );
    const invalid = await cli(['plan', '--env', 'staging', '--json', 'guides.yaml']);
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stdout)).toMatchObject({
      environment: staging,
      error: 'the plan cannot be made',
    });

    // plan --all-envs --json: each entry as plan --env NAME --json gives it (target kept beside it).
    const all = await cli(['plan', '--all-envs', '--json', 'guides.yaml'], onlyStaging);
    expect(all.code).toBe(1);
    const { environments } = JSON.parse(all.stdout);
    expect(environments.staging).toMatchObject({ environment: staging, target: staging.target });
    expect(environments.production.environment).toEqual({ name: 'production' });
    expect(environments.production.error).toContain('cannot be used from here');
  });

  it("apply --env NAME's failures name the environment as plan's do: --json's object, --json-stream's diagnostics event", async () => {
    const onlyStaging = {
      STAGING_APPID: two.staging.service.credentials.appid,
      STAGING_SECRET: two.staging.service.credentials.secret,
    };
    const unresolved = await cli(['apply', '--env', 'production', '--json', 'guides.yaml'], onlyStaging);
    expect(unresolved.code).toBe(1);
    expect(JSON.parse(unresolved.stdout)).toMatchObject({
      format_version: 1,
      environment: { name: 'production' },
      outcomes: [],
      converged: false,
    });
    expect(JSON.parse(unresolved.stdout).environment).toEqual({ name: 'production' });
    const refused = await cli(['apply', '--env', 'staging', '--json-stream', 'guides.yaml'], {
      STAGING_ACCESS_TOKEN: 'not-a-token',
    });
    expect(refused.code).toBe(1);
    expect(jsonLines(refused.stdout)[0]).toMatchObject({
      type: 'diagnostics',
      environment: 'staging',
      target: `${two.staging.url} (STAGING_ACCESS_TOKEN)`,
    });
    expect((await cli(['apply', '--env', 'staging', '--auto-approve', 'guides.yaml'])).code).toBe(0);
    await two.ws.write(
      'guides.yaml',
      atUrls(FILE, two.staging.url, two.production.url).replace(
        /guides:\n[\s\S]*$/,
        'protect:\n  guides: [alice_wx]\nprune:\n  guides: true\nguides: []\n',
      ),
    );
    const invalid = await cli(['apply', '--env', 'staging', '--json', '--auto-approve', 'guides.yaml']);
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stdout)).toMatchObject({
      environment: { name: 'staging', target: `${two.staging.url} (STAGING_APPID/STAGING_SECRET)` },
      error: 'the plan cannot be made',
    });
  });

  it('a saved plan of an embedded environment applied from another folder: refused before a database is made, naming both in full', async () => {
    await two.ws.write(
      'local.yaml',
      FILE.replace(/ {4}base_url: .*\n/g, '').replace(/ {4}credentials: .*\n/g, ''),
    );
    expect((await cli(['plan', '--env', 'staging', '--out', 'p.json', 'local.yaml'], {})).code).toBe(0);
    await mkdir(join(two.ws.dir, 'sub'));
    const run = await runCli(['apply', '../p.json', '../local.yaml', '--auto-approve'], {
      cwd: join(two.ws.dir, 'sub'),
      env: {},
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `guidectl: ../p.json was made for environment staging against the local database ${join(two.ws.dir, '.guidectl', 'staging.db')}; here the target is the local database ${join(two.ws.dir, 'sub', '.guidectl', 'staging.db')}. Nothing was changed: run apply in the folder where the plan was made\n`,
    );
    expect(existsSync(join(two.ws.dir, 'sub', '.guidectl'))).toBe(false);
    // Where it was made, it applies.
    const here = await cli(['apply', 'p.json', 'local.yaml'], {});
    expect(here.code, here.stderr).toBe(0);
  });

  it('a saved plan of an embedded environment applies wherever its database is the same file, reached through a link', async () => {
    await two.ws.write(
      'local.yaml',
      FILE.replace(/ {4}base_url: .*\n/g, '').replace(/ {4}credentials: .*\n/g, ''),
    );
    // Both folders' .guidectl are links to one shared folder: one database.
    await mkdir(join(two.ws.dir, 'shared'));
    await mkdir(join(two.ws.dir, 'sub'));
    await symlink(join(two.ws.dir, 'shared'), join(two.ws.dir, '.guidectl'));
    await symlink(join(two.ws.dir, 'shared'), join(two.ws.dir, 'sub', '.guidectl'));
    expect((await cli(['plan', '--env', 'staging', '--out', 'p.json', 'local.yaml'], {})).code).toBe(0);
    const run = await runCli(['apply', '../p.json', '../local.yaml', '--auto-approve'], {
      cwd: join(two.ws.dir, 'sub'),
      env: {},
    });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(two.ws.dir, 'shared', 'staging.db'))).toBe(true);
  });

  it('a saved plan records its environment and target; apply refuses it for another environment or target', async () => {
    const plan = await cli(['plan', '--env', 'staging', '--out', 'staging.json', 'guides.yaml']);
    expect(plan.code, plan.stderr).toBe(0);
    const saved = JSON.parse(await readFile(join(two.ws.dir, 'staging.json'), 'utf8'));
    expect(saved).toMatchObject({
      environment: { name: 'staging' },
      target: `${two.staging.url} (STAGING_APPID/STAGING_SECRET)`,
    });
    expect(JSON.stringify(saved)).not.toContain(two.staging.service.credentials.secret);

    const show = await cli(['show', 'staging.json']);
    expect(show.stdout.split('\n')[0]).toBe(
      `Environment staging: ${two.staging.url} (STAGING_APPID/STAGING_SECRET)`,
    );

    // Another environment, named: refused.
    const other = await cli(['apply', 'staging.json', '--env', 'production']);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('staging.json was made for environment staging, not production');
    // The same environment, now pointing at production's service: refused.
    await two.ws.write('guides.yaml', atUrls(FILE, two.production.url, two.production.url));
    const moved = await cli(['apply', 'staging.json'], {
      ...credentials(),
      STAGING_APPID: two.production.service.credentials.appid,
      STAGING_SECRET: two.production.service.credentials.secret,
    });
    expect(moved.code).toBe(1);
    expect(moved.stderr).toContain(`the target now is ${two.production.url} (STAGING_APPID/STAGING_SECRET)`);
    expect(await accountOf(two.production)).toMatchObject({ guides: [] });
  });

  it('the target is compared by account, not by its words: an access token of the same account is applied with the reviewed --plan-id', async () => {
    const plan = await cli(['plan', '--env', 'staging', '--out', 's.json', 'guides.yaml']);
    expect(plan.code).toBe(0);
    const id = /^Plan id: ([0-9a-f]{12})$/m.exec(plan.stdout + plan.stderr)?.[1] ?? '';
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    const saved = JSON.parse(await readFile(join(two.ws.dir, 's.json'), 'utf8'));
    expect(saved.format_version).toBe(4);
    expect(saved.target_id).toEqual({
      kind: 'remote',
      base_url: two.staging.url,
      appid_digest: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    expect(JSON.stringify(saved)).not.toContain(two.staging.service.credentials.appid);
    // A token names no account: production's would pass for staging's. Refused unless the
    // reviewed plan's id is given.
    const unpinned = await cli(['apply', 's.json'], { STAGING_ACCESS_TOKEN: two.staging.token });
    expect(unpinned.code).toBe(1);
    expect(unpinned.stderr).toBe(
      `guidectl: s.json was made for environment staging against ${two.staging.url} (STAGING_APPID/STAGING_SECRET); the target now is ${two.staging.url} (STAGING_ACCESS_TOKEN). The target now uses an access token, which does not say which account it belongs to (one base URL serves many accounts), so guidectl cannot confirm that this is the account the plan was made for. Nothing was changed: if it is, give the id of the plan you reviewed (the "Plan id:" that plan printed): guidectl apply s.json --plan-id ID; or use the account's appid and secret both to plan and to apply; or plan again for this target\n`,
    );
    expect((await accountOf(two.staging)).guides).toEqual([]);
    const apply = await cli(['apply', 's.json', '--plan-id', id], {
      STAGING_ACCESS_TOKEN: two.staging.token,
    });
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout.split('\n')[0]).toBe(
      `Environment staging: ${two.staging.url} (STAGING_ACCESS_TOKEN)`,
    );
    expect((await accountOf(two.staging)).guides).toEqual(['alice_wx', 'qa_bot_wx']);
  });

  it('a --plan-id made with the app credentials, applied with the access token: the refusal names the credentials', async () => {
    const plan = await cli(['plan', '--env', 'staging', 'guides.yaml']);
    const id = /^Plan id: ([0-9a-f]{12})$/m.exec(plan.stdout)?.[1] ?? '';
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    const apply = await cli(['apply', '--env', 'staging', '--plan-id', id, 'guides.yaml'], {
      STAGING_ACCESS_TOKEN: two.staging.token,
    });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(
      'or it was made against another target (another base URL or database, another appid, or the same account reached with an access token instead of its appid and secret, or the reverse)',
    );
    expect((await accountOf(two.staging)).guides).toEqual([]);
  });

  it('a stale saved plan of an environment: the command to make it again has its --env', async () => {
    expect((await cli(['plan', '--env', 'staging', '--out', 's.json', 'guides.yaml'])).code).toBe(0);
    expect((await cli(['apply', '--env', 'staging', '--auto-approve', 'guides.yaml'])).code).toBe(0);
    const stale = await cli(['apply', 's.json']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('Make the plan again (guidectl plan --env staging … --out FILE)');
  });

  it('the same API with the credentials of another account is another target', async () => {
    expect((await cli(['plan', '--env', 'staging', '--out', 's.json', 'guides.yaml'])).code).toBe(0);
    const other = await cli(['apply', 's.json'], {
      STAGING_APPID: two.production.service.credentials.appid,
      STAGING_SECRET: two.production.service.credentials.secret,
    });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(
      `s.json was made for environment staging against ${two.staging.url} (STAGING_APPID/STAGING_SECRET); the target now is ${two.staging.url} (STAGING_APPID/STAGING_SECRET), with the credentials of another account (another appid). Nothing was changed`,
    );
    expect(other.stderr).not.toContain(two.production.service.credentials.appid);
  });

  it("a saved plan's target in words is shown, never compared: editing it to match another target does not help", async () => {
    expect((await cli(['plan', '--env', 'staging', '--out', 's.json', 'guides.yaml'])).code).toBe(0);
    await two.ws.write('guides.yaml', atUrls(FILE, two.production.url, two.production.url));
    const env = {
      STAGING_APPID: two.production.service.credentials.appid,
      STAGING_SECRET: two.production.service.credentials.secret,
    };
    const saved = JSON.parse(await readFile(join(two.ws.dir, 's.json'), 'utf8'));
    saved.target = `${two.production.url} (STAGING_APPID/STAGING_SECRET)`;
    await two.ws.write('s.json', JSON.stringify(saved));
    const apply = await cli(['apply', 's.json'], env);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(`the target now is ${two.production.url} (STAGING_APPID/STAGING_SECRET)`);
    expect(await accountOf(two.production)).toMatchObject({ guides: [] });
  });

  it("the plan id covers a saved plan's environment and target: editing them by hand is refused", async () => {
    expect((await cli(['plan', '--env', 'staging', '--out', 's.json', 'guides.yaml'])).code).toBe(0);
    const saved = JSON.parse(await readFile(join(two.ws.dir, 's.json'), 'utf8'));
    // Staging's plan made to look like production's (production lacks qa_bot_wx: its files differ,
    // so the files are left out, as when a plan is applied where they are not).
    saved.environment = { name: 'production' };
    saved.target = `${two.production.url} (PROD_APPID/PROD_SECRET)`;
    saved.target_id = { kind: 'remote', base_url: two.production.url };
    saved.paths = [];
    await two.ws.write('edited.json', JSON.stringify(saved));
    for (const args of [
      ['apply', 'edited.json'],
      ['apply', 'edited.json', '--env', 'production'],
    ]) {
      const run = await cli(args);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /edited\.json: it does not match its plan id: its calls, changes, digests, read scope, safety settings, protections, environment and target hash to [0-9a-f]{12}, the file says [0-9a-f]{12}\. The file was edited/,
      );
    }
    expect(await accountOf(two.production)).toMatchObject({ guides: [] });
    // A plan of an environment from the format before (no target_id, an id without it): refused.
    const older = { name: 'staging', target: saved.target };
    await two.ws.write('older.json', JSON.stringify({ ...saved, format_version: 1, environment: older }));
    const old = await cli(['apply', 'older.json']);
    expect(old.code).toBe(1);
    expect(old.stderr).toContain(
      'older.json: it was made by an earlier guidectl (format_version 1), whose plan id did not cover the changes it shows, so they could have been edited; make the plan again with guidectl plan --env staging --out FILE',
    );
    // The same plans for two environments have two ids, though their calls are alike.
    await two.ws.write(
      'same.yaml',
      FILE.replace(/ {4}only_in: .*\n/, '')
        .replace(/shop_app: wx2+/, 'shop_app: wx1111111111111111')
        .replace('PROD_COVER', 'STAGING_COVER')
        .replace('STAGING_URL', two.staging.url)
        .replace('PROD_URL', two.production.url),
    );
    const ids = [];
    for (const env of ['staging', 'production']) {
      const run = await cli(['plan', '--env', env, 'same.yaml']);
      ids.push(/^Plan id: ([0-9a-f]{12})$/m.exec(run.stdout)?.[1]);
    }
    expect(ids[0]).toMatch(/^[0-9a-f]{12}$/);
    expect(ids[1]).not.toBe(ids[0]);
  });

  it('a saved plan of an environment without its files: refused before any target is opened, with the command that applies it', async () => {
    expect((await cli(['plan', '--env', 'staging', '--out', 's.json', 'guides.yaml'])).code).toBe(0);
    await mkdir(join(two.ws.dir, 'sub'));
    const inSub = (args: readonly string[]) =>
      runCli(args, { cwd: join(two.ws.dir, 'sub'), env: credentials() });
    const run = await inSub(['apply', '../s.json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      "guidectl: ../s.json was made for environment staging from guides.yaml, which is not here: the files name the environment's target (its base_url and credentials), so nothing was read or changed. Give them after the plan: guidectl apply ../s.json ../guides.yaml\n",
    );
    expect(existsSync(join(two.ws.dir, 'sub', '.guidectl'))).toBe(false);
    expect((await accountOf(two.staging)).guides).toEqual([]);
    // The command it names applies the plan.
    const fixed = await inSub(['apply', '../s.json', '../guides.yaml']);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect((await accountOf(two.staging)).guides).toEqual(['alice_wx', 'qa_bot_wx']);

    // --env naming another environment: that is said first.
    const other = await inSub(['apply', '../s.json', '--env', 'production']);
    expect(other.stderr).toBe(
      'guidectl: ../s.json was made for environment staging, not production; nothing was changed\n',
    );
    // Nowhere near its files: the paths are to be given.
    await two.ws.write('sub/elsewhere.json', await readFile(join(two.ws.dir, 's.json'), 'utf8'));
    const alone = await inSub(['apply', 'elsewhere.json']);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain(
      'Give them after the plan: guidectl apply elsewhere.json PATH… (the paths the plan recorded are relative to the folder plan ran in: run apply there, or give them from here)',
    );
  });

  it('show --env NAME prints a saved plan made for NAME, and refuses one made for another environment', async () => {
    expect((await cli(['plan', '--env', 'staging', '--out', 's.json', 'guides.yaml'])).code).toBe(0);
    const plain = await cli(['show', 's.json']);
    const same = await cli(['show', 's.json', '--env', 'staging']);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toBe(plain.stdout);
    const other = await cli(['show', 's.json', '--env', 'production', '--json']);
    expect(other.code).toBe(1);
    // --json: the failure as one object (a script reading stdout never reads nothing).
    expect(JSON.parse(other.stdout)).toEqual({
      format_version: 1,
      error: 's.json was made for environment staging, not production',
      diagnostics: [],
    });
    expect(other.stderr).toBe('guidectl: s.json was made for environment staging, not production\n');
    const format = await cli(['show', 's.json', '--env', 'production', '--format', 'json']);
    expect(format.stdout).toBe(other.stdout);

    await two.ws.write('plain.yaml', 'version: 1\nguides: []\n');
    const env = { GUIDECTL_LOCAL_DB: ':memory:' };
    expect((await cli(['plan', '--out', 'plain.json', 'plain.yaml'], env)).code).toBe(0);
    const none = await cli(['show', 'plain.json', '--env', 'staging']);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      'guidectl: plain.json was made from files without environments, not for environment staging\n',
    );
  });

  it('a saved plan is applied to the environment and target it was made for', async () => {
    expect((await cli(['plan', '--env', 'production', '--out', 'p.json', 'guides.yaml'])).code).toBe(0);
    const apply = await cli(['apply', 'p.json']);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout.split('\n')[0]).toBe(
      `Environment production: ${two.production.url} (PROD_APPID/PROD_SECRET)`,
    );
    expect((await accountOf(two.production)).guides).toEqual(['alice_wx']);
  });

  it('export --env NAME --files PATH reads the account of that environment', async () => {
    expect((await cli(['apply', '--env', 'staging', '--auto-approve', 'guides.yaml'])).code).toBe(0);
    const run = await cli(['export', '--env', 'staging', '--files', 'guides.yaml']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('qa_bot_wx');
    expect(run.stdout).toContain('wx1111111111111111');
    const production = await cli(['export', '--env', 'production', '--files', 'guides.yaml']);
    expect(production.code, production.stderr).toBe(0);
    expect(production.stdout).toContain('version: 1');
    expect(production.stdout).not.toContain('alice_wx');
    const alone = await cli(['export', '--env', 'staging']);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('--env and --files go together');
  });
});
