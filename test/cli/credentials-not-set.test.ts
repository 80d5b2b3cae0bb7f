import { existsSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, useWorkspace } from '../helpers/cli.js';

// Credentials that CI meant to give but did not: an undefined secret expands to "" in the README's
// GitHub Actions example, and an environment's variables may be missing from its job. Neither may
// switch the target to a local database and report "Converged".

const SMALL_STORE = fileURLToPath(new URL('../../examples/small-store.yaml', import.meta.url));

const ENVIRONMENTS = `version: 1
environments:
  production:
    credentials: PROD
  dev: {}
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/alice/0
`;

describe('credentials set but empty, or declared and not set', () => {
  const ws = useWorkspace();

  it('WECHAT_APPID= WECHAT_SECRET= is refused, naming the variable and the fix; no local database is made', async () => {
    await copyFile(SMALL_STORE, join(ws().dir, 'small-store.yaml'));
    const env = { WECHAT_APPID: '', WECHAT_SECRET: '' };
    const run = await runCli(['apply', 'small-store.yaml', '--auto-approve'], { cwd: ws().dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'guidectl: WECHAT_APPID is set but empty (an unset CI secret expands to ""): give it its value, or unset it\n',
    );
    expect(run.stdout).toBe('');
    expect(existsSync(join(ws().dir, '.guidectl'))).toBe(false);
  });

  it('any one of the three, empty or only white space, even beside credentials that are set', async () => {
    await copyFile(SMALL_STORE, join(ws().dir, 'small-store.yaml'));
    const cases: [Record<string, string>, string][] = [
      [{ WECHAT_ACCESS_TOKEN: '' }, 'WECHAT_ACCESS_TOKEN is set but empty'],
      [
        { WECHAT_ACCESS_TOKEN: '  ', WECHAT_APPID: 'wx0000000000000001', WECHAT_SECRET: 'x'.repeat(32) },
        'WECHAT_ACCESS_TOKEN is set but only white space',
      ],
      [
        { WECHAT_ACCESS_TOKEN: 'token-1234', WECHAT_SECRET: ' ' },
        'WECHAT_SECRET is set but only white space',
      ],
    ];
    for (const [env, message] of cases) {
      const run = await runCli(['plan', 'small-store.yaml'], { cwd: ws().dir, env });
      expect(run.code, message).toBe(1);
      expect(run.stderr).toContain(
        `guidectl: ${message} (an unset CI secret expands to ""): give it its value, or unset it\n`,
      );
    }
    expect(existsSync(join(ws().dir, '.guidectl'))).toBe(false);
  });

  it('an environment with "credentials:" and none of its variables set is refused, never the local database', async () => {
    await ws().write('e.yaml', ENVIRONMENTS);
    const run = await runCli(['apply', '--env', 'production', 'e.yaml', '--auto-approve'], { cwd: ws().dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'guidectl: environment production cannot be used from here: it names credentials (PROD) but none is set: set PROD_APPID and PROD_SECRET, or PROD_ACCESS_TOKEN (an environment without "credentials:" and base_url is the local database .guidectl/production.db)\n',
    );
    expect(run.stdout).toBe('');
    expect(existsSync(join(ws().dir, '.guidectl'))).toBe(false);
    // One with neither credentials nor base_url is still the local database.
    const dev = await runCli(['apply', '--env', 'dev', 'e.yaml', '--auto-approve'], { cwd: ws().dir });
    expect(dev.code, dev.stderr).toBe(0);
    expect(dev.stdout.split('\n')[0]).toBe('Environment dev: local database .guidectl/dev.db');
  });

  it("an environment's variable set but empty is refused, and envs lists why", async () => {
    await ws().write('e.yaml', ENVIRONMENTS);
    const env = { PROD_ACCESS_TOKEN: 'token-1234', PROD_APPID: '' };
    const run = await runCli(['plan', '--env', 'production', 'e.yaml'], { cwd: ws().dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'guidectl: environment production cannot be used from here: PROD_APPID is set but empty (an unset CI secret expands to ""): give it its value, or unset it\n',
    );
    const envs = await runCli(['envs', 'e.yaml'], { cwd: ws().dir, env: {} });
    expect(envs.code).toBe(0);
    expect(envs.stdout).toBe(
      'ENVIRONMENT  TARGET                                  CREDENTIALS\n' +
        'production   WeChat API (https://api.weixin.qq.com)  PROD_* not set\n' +
        'dev          embedded .guidectl/dev.db               -\n' +
        '2 environments\n\n' +
        'production: cannot be planned here: it names credentials (PROD) but none is set: set PROD_APPID and PROD_SECRET, or PROD_ACCESS_TOKEN (an environment without "credentials:" and base_url is the local database .guidectl/production.db)\n',
    );
  });
});
