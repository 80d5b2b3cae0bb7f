import * as nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type ConfigFs, nodeConfigFs } from '../../src/config/source-files.js';
import { UsageError } from '../../src/core/errors.js';
import { loadEachEnvironment, loadFiles, readAllEnvironments } from '../../src/reconcile/index.js';
import { exportEnvironmentOf } from '../../src/report/export-references.js';
import { runCli, useWorkspace } from '../helpers/cli.js';

const FIXTURES = fileURLToPath(new URL('../config/environments/', import.meta.url));
const TWO = nodePath.join(FIXTURES, 'two-accounts.yaml');
// production's value makes an invalid appid; staging's is fine.
const BAD = nodePath.join(FIXTURES, 'bad-production-value.yaml');
// A folder of two files: the environments and their values in one, a guide that uses them in the other.
const SPLIT = nodePath.join(FIXTURES, 'split');

describe('loadFiles of files with environments', () => {
  it('asks for --env before checking any environment (an error of one is not reported)', async () => {
    await expect(loadFiles([BAD], FIXTURES)).rejects.toThrow(
      'the files declare environments (staging, production): choose one with --env NAME',
    );
    expect((await loadFiles([BAD], FIXTURES, 'staging')).files?.environment?.name).toBe('staging');
    expect((await loadFiles([BAD], FIXTURES, 'production')).files).toBeUndefined();
  });

  it("reports the files' own errors rather than asking for an environment", async () => {
    const broken = nodePath.join(FIXTURES, 'missing.yaml');
    const result = await loadFiles([TWO, broken], FIXTURES);
    expect(result.files).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toContain('path-not-found');
  });
});

describe('loadEachEnvironment (apply --all-envs)', () => {
  it('reads each file once, then gives each environment as loadFiles does', async () => {
    // The reads counted where they happen, in the file system the loader is given.
    const reads = new Map<string, number>();
    const fs: ConfigFs = {
      ...nodeConfigFs,
      readFile: (path) => {
        const file = nodePath.relative(FIXTURES, path);
        reads.set(file, (reads.get(file) ?? 0) + 1);
        return nodeConfigFs.readFile(path);
      },
    };
    let told = 0;
    const each = await loadEachEnvironment([SPLIT], FIXTURES, { fs, beforeParse: () => told++ });
    expect(each.names).toEqual(['staging', 'production']);
    const staging = each.load('staging');
    expect(staging.files?.state.guides[0]?.nickname).toBe('Alice (staging)');
    expect(staging).toEqual(await loadFiles([SPLIT], FIXTURES, 'staging'));
    expect(each.load('production').files?.state.guides[0]?.nickname).toBe('Alice');
    expect(Object.fromEntries(reads)).toEqual({
      'split/environments.yaml': 1,
      'split/guides.yaml': 1,
    });
    expect(told).toBe(1);
  });

  it('refuses files without environments', async () => {
    const plain = fileURLToPath(new URL('../../examples/', import.meta.url));
    await expect(loadEachEnvironment([nodePath.join(plain, 'small-store.yaml')], plain)).rejects.toThrow(
      'the files declare no environments',
    );
  });
});

describe('exportEnvironmentOf (export --as-environment-file)', () => {
  it("gives the environment's target settings, its values as written and its cards' media ids", async () => {
    const { files } = await loadFiles([BAD], FIXTURES, 'staging');
    if (files?.environment === undefined) throw new Error('expected the staging files');
    const exported = exportEnvironmentOf({ ...files, environment: files.environment });
    expect(exported.name).toBe('staging');
    expect(exported.values).toEqual(new Map([['shop_app', 'wx1111111111111111']]));
    expect([...exported.cardMediaIds.values()]).toEqual(['COVER']);
  });
});

describe('--all-envs: the files read once, for plan and apply alike (readAllEnvironments)', () => {
  const ws = useWorkspace();

  it('a misspelt path says so in both, where apply said the files declare no environments', async () => {
    await ws().write('envs.yaml', 'version: 1\nenvironments:\n  staging:\n    values: {}\n');
    for (const command of ['plan', 'apply']) {
      const run = await runCli([command, '--all-envs', 'envs.yml'], { cwd: ws().dir });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        'guidectl: the environments of the files cannot be read: envs.yml:1:1: no such file or folder; did you mean envs.yaml?\n',
      );
    }
  });

  it('files without environments: each command says what --all-envs does', async () => {
    await ws().write('plain.yaml', 'version: 1\nguides: []\n');
    const plan = await runCli(['plan', '--all-envs', 'plain.yaml'], { cwd: ws().dir });
    expect(plan.stderr).toBe(
      'guidectl: the files declare no environments: --all-envs plans each environment of "environments:"\n',
    );
    await expect(loadEachEnvironment(['plain.yaml'], ws().dir)).rejects.toThrow(
      'the files declare no environments: --all-envs applies each environment of "environments:"',
    );
    await expect(readAllEnvironments(['plain.yaml'], ws().dir, 'plan')).rejects.toThrow(UsageError);
  });
});
