import { existsSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALICE_ALONE, runCli, useServiceTarget, useWorkspace, type Workspace } from '../helpers/cli.js';

// A CI job with no credentials and no base URL would apply to a throwaway local database and pass
// (issue 23): in CI, the embedded service is used only when its database is named.

const SMALL_STORE = fileURLToPath(new URL('../../examples/small-store.yaml', import.meta.url));

const REFUSED =
  'guidectl: no target is given, and CI is set: the embedded local service over .guidectl/local.db is an ' +
  'account no one else sees, so a green job would not mean the real one. Set WECHAT_APPID and ' +
  'WECHAT_SECRET, or WECHAT_ACCESS_TOKEN (and --base-url or GUIDECTL_BASE_URL for another API than ' +
  "WeChat's); or, for the local service on purpose, name its database: --local-db .guidectl/local.db " +
  '(or GUIDECTL_LOCAL_DB)\n';

/** Every command that reads or writes an account, as a user would type it with no target. */
const COMMANDS: readonly (readonly string[])[] = [
  ['plan', 'a.yaml'],
  ['plan', 'a.yaml', '--json'],
  ['plan', 'a.yaml', '--markdown'],
  ['apply', 'a.yaml', '--auto-approve'],
  ['apply', 'a.yaml', '--auto-approve', '--json'],
  ['export'],
  ['api', 'getguideacctconfig'],
  ['tasks'],
  ['chats', 'alice_wx'],
  ['qrcode', 'alice_wx'],
  ['path-menu', 'alice_wx', '--appid', 'wx0123456789abcdef'],
];

const ENVIRONMENTS = `version: 1
environments:
  dev: {}
  qa: {}
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://x.example/a
`;

describe('in CI, no target given is refused', () => {
  const ws = useWorkspace();

  it('every command that reaches an account, before anything is read or made', async () => {
    await ws().write('a.yaml', ALICE_ALONE);
    for (const args of COMMANDS) {
      const run = await runCli(args, { cwd: ws().dir, env: { CI: 'true' } });
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr, args.join(' ')).toContain(REFUSED);
      expect(run.stderr).not.toContain('using the embedded local service');
    }
    expect(existsSync(join(ws().dir, '.guidectl'))).toBe(false);
  });

  it('CI is any value but empty and false (in any case); outside CI nothing changes', async () => {
    await ws().write('a.yaml', ALICE_ALONE);
    for (const value of ['true', '1', 'yes', 'TRUE', 'gitlab']) {
      const run = await runCli(['plan', 'a.yaml'], { cwd: ws().dir, env: { CI: value } });
      expect(run.code, value).toBe(1);
      expect(run.stderr).toBe(REFUSED);
    }
    for (const env of [{}, { CI: '' }, { CI: 'false' }, { CI: 'False' }]) {
      const run = await runCli(['plan', 'a.yaml'], { cwd: ws().dir, env });
      expect(run.code, JSON.stringify(env)).toBe(0);
      expect(run.stderr).toContain(
        'guidectl: no target given; using the embedded local service (database .guidectl/local.db)\n',
      );
    }
  });

  it('--local-db or GUIDECTL_LOCAL_DB names the local service on purpose; .guidectl/ is made for it', async () => {
    await ws().write('a.yaml', ALICE_ALONE);
    const env = { CI: 'true' };
    const apply = await runCli(['apply', 'a.yaml', '--auto-approve', '--local-db', '.guidectl/local.db'], {
      cwd: ws().dir,
      env,
    });
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr).toContain('using the embedded local service (database .guidectl/local.db)');
    const plan = await runCli(['plan', 'a.yaml'], {
      cwd: ws().dir,
      env: { ...env, GUIDECTL_LOCAL_DB: '.guidectl/local.db' },
    });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes.');
  });

  it('validate, envs and show read no account: unaffected', async () => {
    await ws().write('a.yaml', ALICE_ALONE);
    const env = { CI: 'true' };
    expect((await runCli(['validate', 'a.yaml'], { cwd: ws().dir, env })).code).toBe(0);
    expect((await runCli(['envs', 'a.yaml'], { cwd: ws().dir, env })).code).toBe(0);
    const saved = await runCli(['plan', 'a.yaml', '--local-db', '.guidectl/local.db', '--out', 'p.json'], {
      cwd: ws().dir,
      env,
    });
    expect(saved.code, saved.stderr).toBe(0);
    expect((await runCli(['show', 'p.json'], { cwd: ws().dir, env })).code).toBe(0);
    // Applying the saved plan opens its target again: named, or refused.
    const bare = await runCli(['apply', 'p.json'], { cwd: ws().dir, env });
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain(REFUSED);
  });

  it("the README's quick start works on a fresh clone with CI set, naming the database", async () => {
    await copyFile(SMALL_STORE, join(ws().dir, 'small-store.yaml'));
    const local = ['--local-db', '.guidectl/local.db'];
    for (const env of [{ CI: 'true' }, {}]) {
      const at = { cwd: ws().dir, env };
      const apply = await runCli(['apply', 'small-store.yaml', '--auto-approve', ...local], at);
      expect(apply.code, apply.stderr).toBe(0);
      const plan = await runCli(['plan', 'small-store.yaml', ...local], at);
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout).toContain('No changes.');
    }
  });
});

describe('in CI, an environment of the files that is the local service is refused', () => {
  const target = useServiceTarget();
  const ws = (): Workspace => target.ws;
  const refused = (name: string): string =>
    `environment ${name} has neither credentials nor base_url, so it is the embedded local service over ` +
    `.guidectl/${name}.db, and CI is set: an account no one else sees, so a green job would not mean a real one. ` +
    'Give it "credentials: PREFIX" (and set PREFIX_APPID and PREFIX_SECRET, or PREFIX_ACCESS_TOKEN) or a base_url; ' +
    `or, for the local service on purpose, name its database: --env ${name} --local-db .guidectl/${name}.db`;

  it('--env NAME, unless --local-db names its own database', async () => {
    await ws().write('e.yaml', ENVIRONMENTS);
    const at = { cwd: ws().dir, env: { CI: 'true' } };
    const bare = await runCli(['apply', 'e.yaml', '--env', 'dev', '--auto-approve'], at);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toBe(`guidectl: ${refused('dev')}\n`);
    expect(existsSync(join(ws().dir, '.guidectl'))).toBe(false);
    const other = await runCli(['plan', 'e.yaml', '--env', 'dev', '--local-db', '.guidectl/qa.db'], at);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(
      'guidectl: --local-db cannot be given with --env: environment dev has its target in the files, the local database .guidectl/dev.db; --local-db may only name that one\n',
    );
    const named = ['--env', 'dev', '--local-db', '.guidectl/dev.db'];
    const apply = await runCli(['apply', 'e.yaml', ...named, '--auto-approve'], at);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('Environment dev: local database .guidectl/dev.db');
    expect((await runCli(['plan', 'e.yaml', ...named], at)).stdout).toContain('No changes.');
    // Outside CI, as before: the files chose the local service.
    const outside = await runCli(['plan', 'e.yaml', '--env', 'qa'], { cwd: ws().dir });
    expect(outside.code, outside.stderr).toBe(0);
  });

  it('--all-envs: each such environment fails, naming the fix; the others are planned', async () => {
    const staging = `  staging:\n    base_url: ${target.service.url}\n    credentials: STAGING\n`;
    await ws().write('e.yaml', ENVIRONMENTS.replace('  qa: {}\n', staging));
    const { appid, secret } = target.service.credentials;
    const env = { CI: 'true', STAGING_APPID: appid, STAGING_SECRET: secret };
    const run = await runCli(['plan', 'e.yaml', '--all-envs', '--json'], { cwd: ws().dir, env });
    expect(run.code).toBe(1);
    const { environments } = JSON.parse(run.stdout) as {
      environments: Record<string, { error?: string; target?: string; summary?: unknown }>;
    };
    expect(environments['dev']?.error).toBe(refused('dev'));
    expect(environments['staging']?.target).toBe(`${target.service.url} (STAGING_APPID/STAGING_SECRET)`);
    expect(environments['staging']?.summary).toBeDefined();
    expect(existsSync(join(ws().dir, '.guidectl'))).toBe(false);
  });
});
