import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type Workspace, workspace } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TWO = 'test/config/environments/two-accounts.yaml';
const SECRET = 'do-not-print-this-secret-5f2a9c01';

const THREE = `version: 1
environments:
  staging:
    base_url: https://staging.example.com
    credentials: STAGING
  production:
    credentials: PROD
  dev: {}
guides: []
`;

describe('guidectl envs', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await workspace();
  });
  afterAll(() => ws.remove());

  it('lists each environment in the order declared, its target, and which variables are set, never a value', async () => {
    const file = await ws.write('three.yaml', THREE);
    const env = { STAGING_APPID: 'wxstaging', STAGING_SECRET: SECRET, PROD_ACCESS_TOKEN: SECRET };
    const { code, stdout, stderr } = await runCli(['envs', file], { env, cwd: ws.dir });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe(
      'ENVIRONMENT  TARGET                                  CREDENTIALS\n' +
        'staging      https://staging.example.com             STAGING_APPID + STAGING_SECRET set\n' +
        'production   WeChat API (https://api.weixin.qq.com)  PROD_ACCESS_TOKEN set\n' +
        'dev          embedded .guidectl/dev.db               -\n' +
        '3 environments\n',
    );
    expect(stdout).not.toContain('wxstaging');
  });

  it('credentials not set: a problem named, with a base_url or without; only an environment naming neither is embedded', async () => {
    const { code, stdout } = await runCli(['envs', TWO], { cwd: ROOT, env: { PROD_APPID: 'wxprod' } });
    expect(code).toBe(0);
    expect(stdout).toBe(
      'ENVIRONMENT  TARGET                                  CREDENTIALS\n' +
        'staging      https://staging.example.com             STAGING_* not set\n' +
        'production   WeChat API (https://api.weixin.qq.com)  PROD_* incomplete\n' +
        '2 environments\n\n' +
        'staging: cannot be planned here: it has a base_url but no credentials are set: set STAGING_APPID and STAGING_SECRET, or STAGING_ACCESS_TOKEN\n' +
        'production: cannot be planned here: only one of PROD_APPID and PROD_SECRET is set; app credentials need both (or set PROD_ACCESS_TOKEN)\n',
    );
    const none = await runCli(['envs', TWO], { cwd: ROOT });
    expect(none.stdout).toContain('production   WeChat API (https://api.weixin.qq.com)  PROD_* not set\n');
    expect(none.stdout).toContain(
      'production: cannot be planned here: it names credentials (PROD) but none is set: set PROD_APPID and PROD_SECRET, or PROD_ACCESS_TOKEN',
    );
  });

  it('--json: format_version 1, the environments in order, for a CI matrix; no secret', async () => {
    const file = await ws.write('three.yaml', THREE);
    const env = { STAGING_ACCESS_TOKEN: SECRET };
    const { code, stdout } = await runCli(['envs', '--json', file], { env, cwd: ws.dir });
    expect(code).toBe(0);
    expect(stdout).not.toContain(SECRET);
    expect(JSON.parse(stdout)).toEqual({
      format_version: 1,
      environments: [
        {
          name: 'staging',
          target: { kind: 'remote', base_url: 'https://staging.example.com', wechat: false },
          credentials: {
            prefix: 'STAGING',
            variables: ['STAGING_APPID', 'STAGING_SECRET', 'STAGING_ACCESS_TOKEN'],
            state: 'token',
          },
          problem: null,
          file: 'three.yaml',
          line: 3,
        },
        {
          name: 'production',
          target: { kind: 'remote', base_url: 'https://api.weixin.qq.com', wechat: true },
          credentials: {
            prefix: 'PROD',
            variables: ['PROD_APPID', 'PROD_SECRET', 'PROD_ACCESS_TOKEN'],
            state: 'none',
          },
          problem:
            'it names credentials (PROD) but none is set: set PROD_APPID and PROD_SECRET, or PROD_ACCESS_TOKEN (an environment without "credentials:" and base_url is the local database .guidectl/production.db)',
          file: 'three.yaml',
          line: 6,
        },
        {
          name: 'dev',
          target: { kind: 'embedded', database: '.guidectl/dev.db' },
          credentials: null,
          problem: null,
          file: 'three.yaml',
          line: 8,
        },
      ],
    });
  });

  it('files without environments: none listed, exit 0 (an empty list in JSON)', async () => {
    const file = await ws.write('plain.yaml', 'version: 1\nguides: []\n');
    const human = await runCli(['envs', file], { cwd: ws.dir });
    expect(human).toEqual({ code: 0, stdout: 'The files declare no environments.\n', stderr: '' });
    const json = await runCli(['envs', '--json', file], { cwd: ws.dir });
    expect(JSON.parse(json.stdout)).toEqual({ format_version: 1, environments: [] });
  });

  it('files with errors: the diagnostics on stderr; with --json, the failure as plan --json prints one; exit 1', async () => {
    const { code, stdout, stderr } = await runCli(
      ['envs', '--json', 'test/config/environments/bad-production-value.yaml'],
      { cwd: ROOT },
    );
    expect(code).toBe(1);
    const out = JSON.parse(stdout);
    expect(Object.keys(out)).toEqual(['format_version', 'error', 'diagnostics']);
    expect(out).toMatchObject({
      format_version: 1,
      error: 'the files have errors; no environment is listed',
    });
    expect(out.diagnostics).toContainEqual(
      expect.objectContaining({
        code: 'appid-invalid',
        file: 'test/config/environments/bad-production-value.yaml',
      }),
    );
    expect(stderr).toContain('[appid-invalid]');
    expect(stderr).toContain('guidectl: the files have errors; no environment is listed\n');
  });
});
