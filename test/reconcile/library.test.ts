import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  applyRun,
  createGuideClient,
  executePlan,
  type GuideClient,
  type LiveState,
  liveSourceOf,
  loadFiles,
  planRun,
  readOnlyClient,
} from '../../src/index.js';
import { type Workspace, workspace } from '../helpers/cli.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** The use cases as the README's "As a library" shows them, run against the real service. */
let target: TestService;
let client: GuideClient;
let ws: Workspace;

beforeAll(async () => {
  target = await startTestService();
  client = createGuideClient({ baseUrl: target.url, auth: target.service.credentials });
});
afterAll(async () => {
  await client.close();
  await target.close();
});
beforeEach(async () => {
  ws = await workspace();
  await target.sim('reset');
});
afterEach(() => ws.remove());

const FILE = `version: 1
groups:
  - name: North
    members: [alice_wx]
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/alice/0
`;

function deps(approve: boolean) {
  return {
    ...liveSourceOf(readOnlyClient(client)),
    approve: async () => approve,
    execute: (
      plan: Parameters<typeof executePlan>[0],
      live: LiveState,
      quotaRemain: ReadonlyMap<string, number>,
    ) =>
      executePlan(
        plan,
        { call: (op, body, o) => client.call(op, body, o) },
        { parallelism: 8, live, quotaRemain },
      ),
    abandonedWrites: () => client.abandonedWrites,
  };
}

describe('the use cases from code', () => {
  it('loadFiles reports the diagnostics of a bad file and gives no files', async () => {
    await writeFile(join(ws.dir, 'bad.yaml'), 'version: 1\nguides:\n  - account: a\n');
    const { files, diagnostics } = await loadFiles(['bad.yaml'], ws.dir);
    expect(files).toBeUndefined();
    expect(diagnostics.some((d) => d.severity === 'error' && d.line === 3)).toBe(true);
  });

  it('planRun plans without writing; applyRun applies, converges, and then has nothing to do', async () => {
    await writeFile(join(ws.dir, 'store.yaml'), FILE);
    const { files } = await loadFiles(['store.yaml'], ws.dir);
    if (files === undefined) throw new Error('the file should load');

    const planned = await planRun(files, liveSourceOf(readOnlyClient(client)), {});
    if (planned.status !== 'planned') throw new Error(`planned: ${planned.status}`);
    expect(planned.plan.calls.map((c) => c.operation)).toEqual([
      'newguidegroup',
      'addguideacct',
      'addguide2guidegroup',
    ]);
    expect(planned.planId).toMatch(/^[0-9a-f]{12}$/);
    expect((await target.ok('getguideacctlist', { page: 0, num: 10 }))['total_num']).toBe(0);

    const cancelled = await applyRun({ kind: 'files', files }, deps(false), {});
    expect(cancelled.status).toBe('cancelled');
    expect((await target.ok('getguideacctlist', { page: 0, num: 10 }))['total_num']).toBe(0);

    const applied = await applyRun({ kind: 'files', files }, deps(true), {});
    if (applied.status !== 'applied') throw new Error(`applied: ${applied.status}`);
    expect(applied.result.outcomes.map((o) => o.status)).toEqual(['done', 'done', 'done']);
    expect(applied.converged).toBe(true);
    expect(applied.reviewed.id).toBe(planned.planId);

    expect((await applyRun({ kind: 'files', files }, deps(true), {})).status).toBe('unchanged');
  });

  it('applyRun refuses a plan whose id is not the one given, and changes nothing', async () => {
    await writeFile(join(ws.dir, 'store.yaml'), FILE);
    const { files } = await loadFiles(['store.yaml'], ws.dir);
    if (files === undefined) throw new Error('the file should load');
    const run = await applyRun({ kind: 'files', files }, deps(true), { planId: '0123456789ab' });
    if (run.status !== 'refused') throw new Error(`refused: ${run.status}`);
    expect(run.refusals).toEqual([{ kind: 'plan-id', expected: '0123456789ab', actual: run.reviewed?.id }]);
    expect((await target.ok('getguideacctlist', { page: 0, num: 10 }))['total_num']).toBe(0);
  });
});
