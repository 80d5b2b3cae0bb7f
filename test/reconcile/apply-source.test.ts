import { describe, expect, it } from 'vitest';
import { applySourceOf, checkSourceTarget, planRun } from '../../src/index.js';
import type { FilesLoad, LoadedFiles } from '../../src/reconcile/index.js';
import { savePlanRun } from '../../src/reconcile/index.js';
import { useWorkspace } from '../helpers/cli.js';
import { desiredGuide, desiredState, liveState } from '../helpers/plan-builder.js';

// What apply makes its calls from, and the check of its target before it is opened.

const environment = { name: 'staging', source: { file: 'guides.yaml', line: 2, column: 3 } };
const files: LoadedFiles = {
  state: desiredState({ guides: [desiredGuide('alice_wx')] }),
  sources: new Map(),
  environment,
};
const STAGING_DB = { kind: 'embedded', database: '/work/.guidectl/staging.db' } as const;
const OTHER = {
  description: 'https://api.example (WECHAT_ACCESS_TOKEN)',
  identity: { kind: 'remote', baseUrl: 'https://api.example', account: 'token' },
} as const;

/** A load whose reads give what `read` gives (undefined: files with errors), said nothing of. */
function loadOf(read: (paths: readonly string[]) => Promise<LoadedFiles | undefined>): FilesLoad {
  return {
    read: async (paths) => {
      const loaded = await read(paths);
      return { ...(loaded === undefined ? {} : { files: loaded }), diagnostics: [], sources: new Map() };
    },
    report: async (result) => result.files,
  };
}

describe('applySourceOf', () => {
  const ws = useWorkspace();
  const notice = (): void => {};

  it('takes the files when no saved plan is among the paths; undefined when they have errors', async () => {
    const asked: (readonly string[])[] = [];
    const load = loadOf(async (paths) => {
      asked.push(paths);
      return files;
    });
    const split = { savedPlans: [], paths: ['guides.yaml'] };
    expect(await applySourceOf(split, ws().dir, load, notice)).toEqual({ kind: 'files', files });
    expect(asked).toEqual([['guides.yaml']]);
    expect(
      await applySourceOf(
        split,
        ws().dir,
        loadOf(async () => undefined),
        notice,
      ),
    ).toBeUndefined();
  });

  it('refuses more than one saved plan before reading anything', async () => {
    const split = { savedPlans: ['a.json', 'b.json'], paths: [] };
    const load = loadOf(async () => {
      throw new Error('read');
    });
    await expect(applySourceOf(split, ws().dir, load, notice)).rejects.toThrow(
      'give one saved plan, not 2 (a.json, b.json)',
    );
  });

  it("checks a saved plan's target, not the files' (planned for whatever target they name)", async () => {
    const cwd = ws().dir;
    const run = await planRun(files, { read: async () => liveState(), target: STAGING_DB }, {});
    if (run.status !== 'planned') throw new Error('expected a plan');
    await savePlanRun(cwd, 'plan.json', run, [], 'local database .guidectl/staging.db');
    const saved = await applySourceOf(
      { savedPlans: ['plan.json'], paths: ['guides.yaml'] },
      cwd,
      loadOf(async () => files),
      notice,
    );
    if (saved?.kind !== 'saved') throw new Error('expected the saved plan');
    expect(saved.file).toBe('plan.json');
    expect(() => checkSourceTarget(saved, { description: 'here', identity: STAGING_DB })).not.toThrow();
    expect(() => checkSourceTarget(saved, OTHER)).toThrow(
      'plan.json was made for environment staging against local database .guidectl/staging.db; the target now is https://api.example (WECHAT_ACCESS_TOKEN)',
    );
    expect(() => checkSourceTarget({ kind: 'files', files }, OTHER)).not.toThrow();
    // Another environment than --env is refused as the plan is read, before any target.
    await expect(
      applySourceOf(
        { savedPlans: ['plan.json'], paths: [] },
        cwd,
        loadOf(async () => files),
        notice,
        'production',
      ),
    ).rejects.toThrow('plan.json was made for environment staging, not production; nothing was changed');
  });
});
