import { describe, expect, it } from 'vitest';
import { runCli, useWorkspace } from '../helpers/cli.js';

// `--env prod` when the files declare `production`: every command that takes --env names the
// environment meant, not only the list (a shortened name is not a typo by edit distance).

const ENVS = `version: 1
environments:
  staging:
    values: {}
  production:
    values: {}
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/alice/0
`;

const UNKNOWN =
  'guidectl: no environment "prod" in the files (did you mean "production"?); the environments are: staging, production\n';

describe('--env with a shortened environment name', () => {
  const ws = useWorkspace();
  const cli = (...args: string[]) => runCli(args, { cwd: ws().dir });

  it.each([
    ['plan', ['plan', '.', '--env', 'prod']],
    ['apply', ['apply', '.', '--env', 'prod', '--auto-approve']],
    ['validate', ['validate', '.', '--env', 'prod']],
    ['export', ['export', '--env', 'prod', '--files', '.']],
  ])('%s: did you mean the environment it shortens', async (_name, args) => {
    await ws().write('guides.yaml', ENVS);
    const run = await cli(...args);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(UNKNOWN);
  });

  it('plan --json: the error object says it too', async () => {
    await ws().write('guides.yaml', ENVS);
    const run = await cli('plan', '.', '--env', 'prod', '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error).toContain('(did you mean "production"?)');
  });

  it('show and apply of a saved plan: did you mean the environment it was made for', async () => {
    await ws().write('guides.yaml', ENVS);
    expect((await cli('plan', '.', '--env', 'production', '--out', 'p.json')).code).toBe(0);
    const show = await cli('show', 'p.json', '--env', 'prod');
    expect(show.code).toBe(1);
    expect(show.stderr).toBe(
      'guidectl: p.json was made for environment production, not prod (did you mean "production"?)\n',
    );
    const apply = await cli('apply', 'p.json', '--env', 'prod', '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stderr).toBe(
      'guidectl: p.json was made for environment production, not prod (did you mean "production"?); nothing was changed\n',
    );
  });

  it('a name that shortens two environments, or is too short, gets no guess', async () => {
    await ws().write('guides.yaml', ENVS.replace('staging:', 'prod-cn:'));
    const two = await cli('plan', '.', '--env', 'prod');
    expect(two.stderr).toBe(
      'guidectl: no environment "prod" in the files; the environments are: prod-cn, production\n',
    );
    const short = await cli('plan', '.', '--env', 'pr');
    expect(short.stderr).not.toContain('did you mean');
  });
});
