import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { planRun, readSavedPlan, savePlanRun } from '../../src/reconcile/index.js';
import { savedPlanNotice } from '../../src/report/plan-output.js';
import { desiredGuide, desiredState, liveState } from '../helpers/plan-builder.js';

describe('savePlanRun (plan --out)', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('saves the plan with the paths as recorded and the environment and target it was made for', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'guidectl-save-'));
    dirs.push(cwd);
    const environment = { name: 'staging', source: { file: 'guides.yaml', line: 2, column: 3 } };
    const state = desiredState({ guides: [desiredGuide('alice_wx')] });
    const targetId = { kind: 'embedded', database: join(cwd, '.guidectl/staging.db') } as const;
    const source = { read: async () => liveState(), target: targetId };
    const run = await planRun({ state, sources: new Map(), environment }, source, {});
    if (run.status !== 'planned') throw new Error('expected a plan');
    const where = 'local database .guidectl/staging.db';
    await savePlanRun(cwd, 'plan.json', run, [join(cwd, 'guides'), 'more.yaml'], where);
    const saved = await readSavedPlan(join(cwd, 'plan.json'), 'plan.json');
    expect(saved.planId).toBe(run.planId);
    expect(saved.paths).toEqual(['guides', 'more.yaml']);
    expect(saved.environment).toEqual({ name: 'staging' });
    expect(saved.target).toEqual({ description: where, identity: targetId });
    expect(saved.plan.calls.length).toBe(run.plan.calls.length);
  });

  it('is told on stdout after human text, on stderr after the machine formats', () => {
    expect(savedPlanNotice('human', 'p.json')).toEqual({
      to: 'stdout',
      text: '\nSaved the plan to p.json; apply exactly these calls with: guidectl apply p.json\n',
    });
    expect(savedPlanNotice('json', 'p.json')).toEqual({
      to: 'stderr',
      text: 'guidectl: Saved the plan to p.json; apply exactly these calls with: guidectl apply p.json\n',
    });
  });
});
