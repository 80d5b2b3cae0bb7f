// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${name} in plain strings is the syntax under test
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type Workspace, workspace } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TWO = 'test/config/environments/two-accounts.yaml';
const BAD = 'test/config/environments/bad-production-value.yaml';

const validate = (args: readonly string[], cwd = ROOT) => runCli(['validate', ...args], { cwd });

describe('guidectl validate with environments', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await workspace();
  });
  afterAll(() => ws.remove());

  it('checks every environment: exit 0 and the guides and groups of each', async () => {
    const { code, stdout, stderr } = await validate([TWO]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe(
      'valid: 1 file, 2 environments (staging: 3 guides, 2 groups; production: 2 guides, 1 group)\n',
    );
  });

  it('a value invalid in one environment: exit 1, at file:line:column of the ${…}, naming the environment and value', async () => {
    const { code, stdout } = await validate([BAD]);
    expect(code).toBe(1);
    expect(stdout).toContain(
      `${BAD}:15:18: error: in environment production (\${shop_app} = "wx2222"): appid "wx2222" is not a mini-program appid [appid-invalid]\n` +
        '  15 |           appid: ${shop_app}\n' +
        '     |                  ^^^^^^^^^^^\n',
    );
    expect(stdout).toMatch(/1 error in 1 file\n$/);
  });

  it('--env NAME checks only that environment', async () => {
    const staging = await validate(['--env', 'staging', BAD]);
    expect(staging.code).toBe(0);
    expect(staging.stdout).toBe('valid: 1 file, 1 environment (staging: 1 guide, 0 groups)\n');
    const production = await validate(['--env', 'production', BAD]);
    expect(production.code).toBe(1);
    expect(production.stdout).toContain(`${BAD}:15:18: error: in environment production`);
  });

  it('--env with a name the files do not declare: exit 1, the names listed, no stack', async () => {
    const { code, stdout, stderr } = await validate(['--env', 'prod', TWO]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'guidectl: no environment "prod" in the files (did you mean "production"?); the environments are: staging, production\n',
    );
  });

  it('--json gives each diagnostic the environments it is found in', async () => {
    const { code, stdout } = await validate(['--json', BAD]);
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject([
      { code: 'appid-invalid', file: BAD, line: 15, column: 18, environments: ['production'] },
    ]);
  });

  it('an unknown value and an unknown environment in only_in, at their place', async () => {
    const file = await ws.write(
      'typos.yaml',
      [
        'version: 1',
        'environments:',
        '  staging:',
        '    values: {shop_app: wx1111111111111111}',
        'guides:',
        '  - account: alice_wx',
        '    only_in: [stagin]',
        '    nickname: Alice ${shop_ap}',
        '    head_image_url: https://mmbiz.qpic.cn/a/0',
        '',
      ].join('\n'),
    );
    const { code, stdout } = await validate([file], ws.dir);
    expect(code).toBe(1);
    expect(stdout).toContain(
      'typos.yaml:7:15: error: no environment is named "stagin"; did you mean "staging"? [only-in-unknown]',
    );
    expect(stdout).toContain(
      'typos.yaml:8:21: error: no environment has a value "shop_ap"; did you mean "shop_app"? [env-value-unknown]',
    );
  });

  it('a secret written as credentials is refused and never printed', async () => {
    const secret = '3f2a9c01b7e4d3a85f2a9c01b7e4d3a8';
    const upper = secret.toUpperCase().slice(1);
    const file = await ws.write(
      'secret.yaml',
      [
        'version: 1',
        'environments:',
        '  production:',
        `    credentials: ${secret}`,
        '  staging:',
        `    credentials: ${upper}`,
        '    token: abc123',
        '',
      ].join('\n'),
    );
    for (const args of [[file], ['--json', file]]) {
      const { code, stdout, stderr } = await validate(args, ws.dir);
      expect(code).toBe(1);
      expect(stdout).toContain('credentials');
      expect(`${stdout}${stderr}`).not.toContain(secret);
      expect(`${stdout}${stderr}`).not.toContain(upper);
      expect(`${stdout}${stderr}`).not.toContain('abc123');
    }
  });

  it('plan of files with environments needs --env NAME, and says so naming them', async () => {
    const { code, stderr } = await runCli(['plan', TWO], {
      cwd: ROOT,
      env: { GUIDECTL_LOCAL_DB: ':memory:' },
    });
    expect(code).toBe(1);
    expect(stderr).toContain(
      'the files declare environments (staging, production): choose one with --env NAME',
    );
  });
});
