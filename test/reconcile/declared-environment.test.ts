import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useWorkspace } from '../helpers/cli.js';

// `export --env NAME --files PATH…` reads the files only for the environment: a path that is not
// there says so (with the near name plan gives), not that the files declare no environments.

describe('export --env NAME --files PATH…', () => {
  const ws = useWorkspace();
  const ENVS = 'version: 1\nenvironments:\n  dev:\n    base_url: http://127.0.0.1:9\n';
  const exportDev = (...files: string[]) =>
    runCli(['export', '--env', 'dev', '--files', ...files], { cwd: ws().dir });

  it('a misspelt file: no such file, and the near name', async () => {
    await ws().write('envs.yaml', ENVS);
    const run = await exportDev('envs.yml');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'guidectl: the environments of the files cannot be read: envs.yml:1:1: no such file or folder; did you mean envs.yaml?\n',
    );
  });

  it('a missing path beside a file that declares the environment is not passed over', async () => {
    await ws().write('envs.yaml', ENVS);
    const run = await exportDev('envs.yaml', 'x');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'guidectl: the environments of the files cannot be read: x:1:1: no such file or folder\n',
    );
  });

  it('an empty folder and a file that is not YAML say so; files without environments say that', async () => {
    await mkdir(join(ws().dir, 'empty'));
    expect((await exportDev('empty')).stderr).toBe(
      'guidectl: the environments of the files cannot be read: empty:1:1: the folder holds no *.yaml or *.yml file\n',
    );
    await ws().write('broken.yaml', 'version: 1\nenvironments: [\n');
    expect((await exportDev('broken.yaml')).stderr).toMatch(
      /^guidectl: the environments of the files cannot be read: broken\.yaml:3:1: invalid YAML: /,
    );
    await ws().write('plain.yaml', 'version: 1\ngroups: []\n');
    expect((await exportDev('plain.yaml')).stderr).toBe(
      'guidectl: no environment "dev": the files plain.yaml declare no environments\n',
    );
  });
});
