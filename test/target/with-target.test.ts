import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { thisProcess } from '../../src/cli/lock-process.js';
import type { DeclaredEnvironment } from '../../src/core/environments.js';
import { type TargetHost, withTarget } from '../../src/index.js';

/** A host that records the notices a CLI would print on stderr. */
function hostIn(cwd: string, env: Record<string, string> = {}): TargetHost & { lines: string[] } {
  const lines: string[] = [];
  return { env, cwd, stopSignal: new AbortController().signal, notice: (line) => lines.push(line), lines };
}

const lock = { command: 'test', timeoutSeconds: 0, self: thisProcess() };
const STAGING: DeclaredEnvironment = { name: 'staging', source: { file: 'guides.yaml', line: 2, column: 3 } };

describe('withTarget', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });
  const tempDir = async (): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), 'guidectl-target-'));
    dirs.push(dir);
    return dir;
  };

  it('chooses the target from the flags, opens it, runs the work and closes it', async () => {
    const cwd = await tempDir();
    const host = hostIn(cwd);
    const groups = await withTarget(
      host,
      { flags: { localDb: ':memory:' }, client: {} },
      async (client, target) => {
        expect(target).toMatchObject({ kind: 'embedded', dbFile: ':memory:', namedBy: '--local-db' });
        await client.newguidegroup({ group_name: 'North' });
        return (await client.getguidegrouplist()).group_list.map((g) => g.name);
      },
    );
    expect(groups).toEqual(['North']);
    expect(host.lines).toEqual(['using the embedded local service (database :memory:)']);
  });

  it("goes to an environment's own target, whatever the process environment says", async () => {
    const cwd = await tempDir();
    const host = hostIn(cwd, { WECHAT_ACCESS_TOKEN: 'not-for-staging' });
    const kind = await withTarget(
      host,
      { flags: {}, environment: STAGING, client: {}, lock },
      async (_client, target) => target.kind,
    );
    expect(kind).toBe('embedded');
    expect(host.lines).toEqual(['using the embedded local service (database .guidectl/staging.db)']);
    expect((await stat(join(cwd, '.guidectl/staging.db'))).isFile()).toBe(true);
  });

  it('refuses a target flag with an environment, and closes what it opened when the work throws', async () => {
    const cwd = await tempDir();
    const host = hostIn(cwd);
    await expect(
      withTarget(host, { flags: { localDb: 'x.db' }, environment: STAGING, client: {} }, async () => 0),
    ).rejects.toThrow(
      '--local-db cannot be given with --env: environment staging has its target in the files',
    );
    const request = { flags: {}, environment: STAGING, client: {}, lock };
    await expect(
      withTarget(host, request, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    // The lock (timeout 0: refused at once when held) was released by the close.
    expect(await withTarget(host, request, async () => 'again')).toBe('again');
  });
});
