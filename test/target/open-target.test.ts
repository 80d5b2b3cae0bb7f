import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { thisProcess } from '../../src/cli/lock-process.js';
import { openTarget, resolveTarget, type TargetHost } from '../../src/index.js';

/** A host that records the notices a CLI would print on stderr. */
function hostIn(cwd: string, env: Record<string, string> = {}): TargetHost & { lines: string[] } {
  const lines: string[] = [];
  return { env, cwd, stopSignal: new AbortController().signal, notice: (line) => lines.push(line), lines };
}

describe('the target room, as a library user reaches it', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('opens the embedded service over the default database, writes through it, and closes', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'guidectl-target-'));
    dirs.push(cwd);
    const target = resolveTarget({}, {}, cwd);
    expect(target).toMatchObject({
      kind: 'embedded',
      defaulted: true,
      dbFile: join(cwd, '.guidectl/local.db'),
    });
    const host = hostIn(cwd);
    const open = await openTarget(
      target,
      host,
      {},
      { command: 'test', timeoutSeconds: 0, self: thisProcess() },
    );
    try {
      await open.client.newguidegroup({ group_name: 'North' });
      const { group_list } = await open.client.getguidegrouplist();
      expect(group_list.map((g) => g.name)).toEqual(['North']);
    } finally {
      await open.close();
      await open.close(); // safe twice
    }
    expect(host.lines).toEqual([
      'no target given; using the embedded local service (database .guidectl/local.db)',
    ]);
    expect((await stat(join(cwd, '.guidectl/local.db'))).isFile()).toBe(true);
  });

  it('reads a named database that does not exist as an empty account, creating nothing', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'guidectl-target-'));
    dirs.push(cwd);
    const target = resolveTarget({ GUIDECTL_LOCAL_DB: 'typo.db' }, {}, cwd);
    const host = hostIn(cwd);
    const open = await openTarget(target, host, {});
    try {
      const { group_list } = await open.client.getguidegrouplist();
      expect(group_list).toEqual([]);
    } finally {
      await open.close();
    }
    expect(host.lines).toEqual([
      'note: GUIDECTL_LOCAL_DB typo.db does not exist yet; reading it as an empty account, and creating nothing (apply creates it)',
    ]);
    await expect(stat(join(cwd, 'typo.db'))).rejects.toThrow(/ENOENT/);
  });
});
