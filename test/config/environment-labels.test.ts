import { describe, expect, it } from 'vitest';
import { runCli, useWorkspace } from '../helpers/cli.js';

// A problem is named by the environments it is found in only when it depends on the environment:
// a mistake in the declarations of one environment is not another's.

const FILE = `version: 1
environments:
  a:
    values:
      m: 5
  c:
    base_url: https://guide.example.com
    credentials: CEE
    values:
      m: ok
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://x.example/a
`;

describe('environment labels', () => {
  const ws = useWorkspace();

  it('validate --env c: a wrong value of environment a is not said to be in environment c', async () => {
    await ws().write('e.yaml', FILE);
    for (const args of [['--env', 'c'], []]) {
      const { stdout } = await runCli(['validate', ...args, 'e.yaml'], { cwd: ws().dir });
      expect(stdout).toContain('e.yaml:5:10: error: "m" must be text, not the number 5 [wrong-type]');
      expect(stdout).not.toContain('in environment');
    }
  });

  it('plan --all-envs: an environment that cannot be used is named once in its line', async () => {
    await ws().write('e.yaml', FILE.replace('m: 5', 'm: "5"'));
    const { stderr } = await runCli(['plan', '--all-envs', 'e.yaml'], {
      cwd: ws().dir,
      env: { CEE_APPID: '' },
    });
    expect(stderr).toContain('guidectl: environment c cannot be used from here: ');
    expect(stderr).not.toContain('environment c: environment c');
  });
});
