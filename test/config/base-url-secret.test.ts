import { describe, expect, it } from 'vitest';
import { runCli, useWorkspace } from '../helpers/cli.js';

const PASSWORD = 'pa55word';

const FILE = `version: 1
environments:
  dev:
    base_url: https://user:${PASSWORD}@example.com/
    credentials: DEV
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://example.com/a.png
`;

describe('a base URL with a user and password: refused, the password never shown', () => {
  const ws = useWorkspace();

  it("an environment's base_url: no value in the message, no line under it, none in --json", async () => {
    await ws().write('s.yaml', FILE);
    const human = await runCli(['validate', 's.yaml'], { cwd: ws().dir });
    expect(human.code).toBe(1);
    expect(human.stdout + human.stderr).not.toContain(PASSWORD);
    expect(human.stdout).toContain(
      's.yaml:4:15: error: base_url must not hold a user or password (user:password@ before the host); the value is not shown, in case it is a secret [environment-base-url-invalid]',
    );
    const json = await runCli(['validate', '--json', 's.yaml'], { cwd: ws().dir });
    expect(json.code).toBe(1);
    expect(json.stdout + json.stderr).not.toContain(PASSWORD);
    expect(JSON.parse(json.stdout)).toMatchObject([
      { severity: 'error', code: 'environment-base-url-invalid', line: 4, column: 15 },
    ]);
  });

  it('--base-url and GUIDECTL_BASE_URL: refused (exit 1), the password not echoed', async () => {
    for (const url of [`https://user:${PASSWORD}@127.0.0.1:1/`, `user:${PASSWORD}@127.0.0.1:1/`]) {
      const flag = await runCli(['api', 'getguideconfig', '{}', '--base-url', url], {
        cwd: ws().dir,
        env: { WECHAT_ACCESS_TOKEN: 't' },
      });
      expect(flag.code, url).toBe(1);
      expect(flag.stdout + flag.stderr).not.toContain(PASSWORD);
      expect(flag.stderr).toContain(
        '--base-url must not hold a user or password (the value is not shown, in case it is a secret)',
      );
      const variable = await runCli(['api', 'getguideconfig', '{}'], {
        cwd: ws().dir,
        env: { WECHAT_ACCESS_TOKEN: 't', GUIDECTL_BASE_URL: url },
      });
      expect(variable.code, url).toBe(1);
      expect(variable.stdout + variable.stderr).not.toContain(PASSWORD);
      expect(variable.stderr).toContain('GUIDECTL_BASE_URL must not hold a user or password');
    }
  });
});
