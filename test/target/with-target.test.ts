import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { thisProcess } from '../../src/cli/lock-process.js';
import type { DeclaredEnvironment } from '../../src/core/environments.js';
import { withTarget } from '../../src/index.js';
import { useWorkspace } from '../helpers/cli.js';
import { hostIn } from '../helpers/target-host.js';

const lock = { command: 'test', timeoutSeconds: 0, self: thisProcess() };
const STAGING: DeclaredEnvironment = { name: 'staging', source: { file: 'guides.yaml', line: 2, column: 3 } };

describe('withTarget', () => {
  const ws = useWorkspace();

  it('chooses the target from the flags, opens it, runs the work and closes it', async () => {
    const cwd = ws().dir;
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
    const cwd = ws().dir;
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
    const cwd = ws().dir;
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
