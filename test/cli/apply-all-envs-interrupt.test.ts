import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useWorkspace } from '../helpers/cli.js';

// Ctrl-C during `apply --all-envs --continue-on-error`: the environment it cuts is `interrupted`
// and no later one is started (its embedded database is not even created), whatever
// --continue-on-error says. Three embedded environments, the stop signal given in-process.

const FILE = `version: 1
environments:
  one: {}
  two: {}
  three: {}
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/alice/0
`;

const ws = useWorkspace();

/** Runs apply --all-envs and gives the stop signal when `when` first holds for a stdout write. */
async function applyStoppedWhen(flags: readonly string[], when: (text: string) => boolean) {
  await ws().write('g.yaml', FILE);
  const stop = new AbortController();
  const run = await runCli(
    ['apply', '--all-envs', '--continue-on-error', '--auto-approve', ...flags, 'g.yaml'],
    {
      cwd: ws().dir,
      stop: stop.signal,
      onStdout: (text) => {
        if (when(text)) stop.abort();
      },
    },
  );
  const created = ['one', 'two', 'three'].filter((env) =>
    existsSync(join(ws().dir, '.guidectl', `${env}.db`)),
  );
  return { run, created };
}

describe('apply --all-envs --continue-on-error and Ctrl-C', () => {
  it('human: two is cut while reading, three is not started; the table says so; exit 1', async () => {
    const { run, created } = await applyStoppedWhen([], (text) => text.startsWith('Environment two'));
    expect(run.code, run.stderr).toBe(1);
    expect(created).toEqual(['one', 'two']);
    expect(run.stdout).not.toContain('Environment three');
    expect(run.stderr).toContain('guidectl: environment two: interrupted while reading the live state\n');
    expect(run.stderr).not.toContain('environment three');
    expect(run.stdout).toMatch(
      /\none +applied *\ntwo +interrupted *\nthree +skipped +not started: interrupted\n$/,
    );
  });

  it('--json-stream: the summary event counts the interrupted and the skipped', async () => {
    const { run, created } = await applyStoppedWhen(['--json-stream'], (text) =>
      text.includes('"environment":"two"'),
    );
    expect(run.code).toBe(1);
    expect(created).toEqual(['one', 'two']);
    expect(run.stdout).not.toContain('"environment":"three"');
    const last = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '');
    expect(last).toEqual({
      format_version: 1,
      type: 'environments_summary',
      environments: [
        { name: 'one', status: 'applied' },
        { name: 'two', status: 'interrupted' },
        { name: 'three', status: 'skipped' },
      ],
      applied: 1,
      unchanged: 0,
      failed: 0,
      interrupted: 1,
      skipped: 1,
      exit_code: 1,
    });
  });
});
