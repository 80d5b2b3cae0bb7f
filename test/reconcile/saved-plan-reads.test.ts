import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { applySourceOf, loadFiles, planRun } from '../../src/index.js';
import { type FilesLoad, savePlanRun } from '../../src/reconcile/index.js';
import { useWorkspace } from '../helpers/cli.js';
import { liveState } from '../helpers/plan-builder.js';

// Apply of a saved plan reads the files it was made from once, wherever the plan file lies: the
// question "was it made in another folder?" is asked only when that read is not the plan's files.

const reads = vi.hoisted(() => [] as string[]);
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const readFile = (...args: Parameters<typeof actual.readFile>) => {
    reads.push(String(args[0]));
    return actual.readFile(...args);
  };
  return { ...actual, readFile, default: { ...actual, readFile } };
});

const GUIDES =
  'version: 1\nguides:\n  - account: alice_wx\n    nickname: Alice\n    head_image_url: https://img.example/a\n';
const TARGET = { kind: 'embedded', database: '/work/.guidectl/guides.db' } as const;

describe('apply of a saved plan kept in another folder', () => {
  const ws = useWorkspace();
  const notice = (): void => {};
  let asked: (readonly string[])[] = [];
  const load = (cwd: string): FilesLoad => ({
    read: (paths, environment) => {
      asked.push(paths);
      return loadFiles(paths, cwd, environment);
    },
    report: async (result) => result.files,
  });
  const yamlReads = () => reads.filter((r) => r.endsWith('.yaml')).map((r) => r.slice(ws().dir.length + 1));

  /** A plan of g.yaml (as it is now) saved at out/plan.json, with a copy of g.yaml next to it. */
  async function planInOut(): Promise<void> {
    const cwd = ws().dir;
    await ws().write('g.yaml', GUIDES);
    const { files } = await loadFiles(['g.yaml'], cwd);
    if (files === undefined) throw new Error('expected the files');
    const run = await planRun(files, { read: async () => liveState(), target: TARGET }, {});
    if (run.status !== 'planned') throw new Error('expected a plan');
    await mkdir(join(cwd, 'out'));
    await savePlanRun(cwd, 'out/plan.json', run, ['g.yaml'], 'local database');
    await copyFile(join(cwd, 'g.yaml'), join(cwd, 'out', 'g.yaml'));
  }

  beforeEach(() => {
    asked = [];
  });

  it("reads the plan's files once when they are here (not those beside the plan)", async () => {
    await planInOut();
    reads.length = 0;
    const split = { savedPlans: ['out/plan.json'], paths: [] };
    const source = await applySourceOf(split, ws().dir, load(ws().dir), notice);
    expect(source).toMatchObject({ kind: 'saved', paths: ['g.yaml'] });
    expect(asked).toEqual([['g.yaml']]);
    expect(yamlReads()).toEqual(['g.yaml']);
  });

  it('reads the files here once, and those beside the plan once, when the files here changed', async () => {
    await planInOut();
    await ws().write('g.yaml', GUIDES.replace('Alice', 'Alicia'));
    await ws().write('out/g.yaml', GUIDES.replace('Alice', 'Alina'));
    reads.length = 0;
    const split = { savedPlans: ['out/plan.json'], paths: [] };
    const source = await applySourceOf(split, ws().dir, load(ws().dir), notice);
    // Neither is the plan's: apply goes on with the files here (and says they changed).
    expect(source).toMatchObject({ kind: 'saved', paths: ['g.yaml'] });
    expect(yamlReads()).toEqual(['g.yaml', 'out/g.yaml']);
  });

  it('says the plan was made in another folder after one read of each', async () => {
    await planInOut();
    await ws().write('g.yaml', GUIDES.replace('Alice', 'Alicia'));
    reads.length = 0;
    const split = { savedPlans: ['out/plan.json'], paths: [] };
    await expect(applySourceOf(split, ws().dir, load(ws().dir), notice)).rejects.toThrow(
      'out/plan.json was made in another folder, out: the paths it recorded (g.yaml) are relative to the folder plan ran in',
    );
    expect(yamlReads()).toEqual(['g.yaml', 'out/g.yaml']);
  });
});
