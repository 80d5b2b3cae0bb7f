import { describe, expect, it } from 'vitest';
import { planRun, readSavedPlanToShow, savePlanRun } from '../../src/reconcile/index.js';
import { useWorkspace } from '../helpers/cli.js';
import { desiredGuide, desiredState, liveState } from '../helpers/plan-builder.js';

// show PLAN.json reads the file with apply's checks of the file itself, and of its environment.

describe('readSavedPlanToShow', () => {
  const ws = useWorkspace();

  it('reads a saved plan, refusing another environment than --env', async () => {
    const cwd = ws().dir;
    const environment = { name: 'staging', source: { file: 'guides.yaml', line: 2, column: 3 } };
    const files = {
      state: desiredState({ guides: [desiredGuide('alice_wx')] }),
      sources: new Map(),
      environment,
    };
    const target = { kind: 'embedded', database: '/work/staging.db' } as const;
    const run = await planRun(files, { read: async () => liveState(), target }, {});
    if (run.status !== 'planned') throw new Error('expected a plan');
    await savePlanRun(cwd, 'p.json', run, ['guides.yaml'], 'local database staging.db');
    expect((await readSavedPlanToShow(cwd, 'p.json')).planId).toBe(run.planId);
    expect((await readSavedPlanToShow(cwd, 'p.json', 'staging')).environment?.name).toBe('staging');
    await expect(readSavedPlanToShow(cwd, 'p.json', 'production')).rejects.toThrow(
      'p.json was made for environment staging, not production',
    );
  });

  it('refuses a desired-state file, naming the command that plans it', async () => {
    await ws().write('guides.yaml', 'version: 1\n');
    await expect(readSavedPlanToShow(ws().dir, 'guides.yaml')).rejects.toThrow(
      '"guides.yaml" is not a saved plan (a desired-state file? see its plan with guidectl plan guides.yaml); make a saved plan with guidectl plan PATH… --out FILE.json',
    );
  });
});
