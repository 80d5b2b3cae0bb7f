import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/wire/json.js';
import { runCli, useServiceTarget } from '../helpers/cli.js';

// The README's promise: export writes a file that validates and plans to no changes, for every
// value the service takes — spaces-only texts, an upper-case URL scheme, groups sharing a name.

const target = useServiceTarget({ reset: true });
const { cli } = target;

async function api(operation: string, body: object): Promise<void> {
  const run = await cli(['api', operation, JSON.stringify(body)]);
  expect(run.code, run.stderr).toBe(0);
}

interface JsonPlan {
  summary: { calls: number };
  unmanaged: Array<{ resource: string; address: string }>;
}

describe('export of values the service takes', () => {
  it('validates and plans to no changes: spaces-only texts and an upper-case URL scheme', async () => {
    await api('addguideacct', {
      guide_account: 'weird_wx1',
      guide_nickname: ' ',
      guide_headimgurl: 'HTTPS://X/Y',
    });
    await api('setguideconfig', {
      guide_account: 'weird_wx1',
      is_delete: false,
      guide_fast_reply_list: [{ content: '  ' }],
      guide_auto_reply: { msgtype: 1, content: ' ' },
    });
    await api('setguideacctconfig', { is_delete: false, guide_auto_reply: { content: ' ' } });
    await api('newguidegroup', { group_name: ' ' });
    const exported = await cli(['export', '-o', 'e.yaml']);
    expect(exported.code, exported.stderr).toBe(0);
    const valid = await runCli(['validate', 'e.yaml'], { cwd: target.ws.dir });
    expect(valid.stdout).toBe('valid: 1 file, 1 guide, 1 group\n');
    expect(valid.code).toBe(0);
    const plan = await cli(['plan', 'e.yaml', '--json']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect((parseJson(plan.stdout) as JsonPlan).summary.calls).toBe(0);
  });

  it('--no-tasks reads no task and writes no tasks: key, so the file leaves the tasks alone; plans to no changes', async () => {
    await api('addguideacct', {
      guide_account: 'plain_wx1',
      guide_nickname: 'P',
      guide_headimgurl: 'https://x/y',
    });
    const taskReads = (): number =>
      target.service.calls().filter((c) => c.operation === 'getguidemassendjoblist').length;
    const before = taskReads();
    const exported = await cli(['export', '--no-tasks', '-o', 'e.yaml']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toBe('guidectl: wrote e.yaml: 1 guide, 0 groups\n');
    expect(taskReads()).toBe(before);
    const text = await readFile(join(target.ws.dir, 'e.yaml'), 'utf8');
    expect(text).not.toMatch(/^tasks:/m);
    const plan = await cli(['plan', 'e.yaml', '--json']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect((parseJson(plan.stdout) as JsonPlan).summary.calls).toBe(0);
    // Without the flag, the tasks are read (one call a guide) and written.
    expect((await cli(['export', '-o', 'all.yaml'])).code).toBe(0);
    expect(taskReads()).toBe(before + 1);
    expect(await readFile(join(target.ws.dir, 'all.yaml'), 'utf8')).toMatch(/^tasks: \[\]$/m);
  });

  it('leaves out the groups that share a name, with a warning, so that the file plans to no changes', async () => {
    await api('newguidegroup', { group_name: 'Twin' });
    await api('newguidegroup', { group_name: 'Twin' });
    await api('newguidegroup', { group_name: 'Solo' });
    const exported = await cli(['export', '-o', 'e.yaml']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain('guidectl: wrote e.yaml: 0 guides, 1 group\n');
    expect(exported.stderr).toMatch(
      /groups id \d+, id \d+ share the name "Twin", which a file cannot give twice: all were left out, so a plan of the file leaves them alone/,
    );
    const plan = await cli(['plan', 'e.yaml', '--json']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const { summary, unmanaged } = parseJson(plan.stdout) as JsonPlan;
    expect(summary.calls).toBe(0);
    expect(unmanaged.map((u) => `${u.resource} ${u.address}`)).toEqual([
      expect.stringMatching(/^group Twin/),
      expect.stringMatching(/^group Twin/),
    ]);
  });
});
