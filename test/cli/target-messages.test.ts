import { describe, expect, it } from 'vitest';
import { ONE_GUIDE, runCli, useServiceTarget } from '../helpers/cli.js';

// What the target's refusals say: never a value that may be a secret, and the fix that applies
// to what is set.

describe('GUIDECTL_BASE_URL that is not a URL', () => {
  const target = useServiceTarget();

  it('is refused saying what is wrong, without its value (CI variables swapped put a secret there)', async () => {
    await target.ws.write('a.yaml', ONE_GUIDE);
    const cases: [string, string][] = [
      ['S3cr3tTrial8XYZ', 'it does not start with http:// or https://'],
      ['https://', 'its host is missing or malformed'],
      ['http://S3cr3t Trial8XYZ', 'it holds white space'],
    ];
    for (const [value, why] of cases) {
      const env = { ...target.env(), GUIDECTL_BASE_URL: value };
      const run = await runCli(['plan', 'a.yaml'], { cwd: target.ws.dir, env });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `guidectl: GUIDECTL_BASE_URL is not a URL: ${why} (the value is not shown, in case it is a secret); give e.g. https://api.weixin.qq.com\n`,
      );
      expect(run.stderr).not.toContain('S3cr3t');
    }
    // A flag is typed by the user: shown as typed.
    const flag = await runCli(['plan', 'a.yaml', '--base-url', 'not-a-url'], {
      cwd: target.ws.dir,
      env: target.env(),
    });
    expect(flag.stderr).toContain('--base-url "not-a-url" is not a URL; give e.g. https://api.weixin.qq.com');
  });
});

describe('a refused WECHAT_ACCESS_TOKEN: the advice depends on what is set', () => {
  const target = useServiceTarget();

  it('with WECHAT_APPID and WECHAT_SECRET set too, says to unset the token, which takes precedence', async () => {
    await target.ws.write('a.yaml', ONE_GUIDE);
    const plan = (env: Record<string, string>) =>
      runCli(['plan', 'a.yaml', '--base-url', target.service.url], { cwd: target.ws.dir, env });
    const both = await plan({ ...target.env(), WECHAT_ACCESS_TOKEN: 'not-a-token-1234' });
    expect(both.code).toBe(1);
    expect(both.stderr).toContain(
      'the fixed access token (WECHAT_ACCESS_TOKEN) was refused: set a fresh one, or unset WECHAT_ACCESS_TOKEN so that WECHAT_APPID and WECHAT_SECRET, which are set too, are used (the token takes precedence over them)',
    );
    expect(both.stderr).not.toContain('not-a-token-1234');
    const alone = await plan({ WECHAT_ACCESS_TOKEN: 'not-a-token-1234' });
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain(
      'the fixed access token (WECHAT_ACCESS_TOKEN) was refused: set a fresh one, or unset it and set WECHAT_APPID and WECHAT_SECRET instead so that tokens are fetched and refreshed as needed',
    );
  });
});
