import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { thisProcess } from '../../src/cli/lock-process.js';
import { openTarget, resolveTarget } from '../../src/index.js';
import { useWorkspace } from '../helpers/cli.js';
import { hostIn } from '../helpers/target-host.js';

describe('the target room, as a library user reaches it', () => {
  const ws = useWorkspace();

  it('opens the embedded service over the default database, writes through it, and closes', async () => {
    const cwd = ws().dir;
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

  it('refuses an empty base URL, which would send the credentials and writes to WeChat itself', () => {
    const credentials = { WECHAT_APPID: 'wx0000000000000001', WECHAT_SECRET: 's' };
    expect(() => resolveTarget(credentials, { baseUrl: '' }, ws().dir)).toThrow(
      '--base-url is empty; give the URL (a guidectl serve for staging, say), or leave the flag out for https://api.weixin.qq.com',
    );
    expect(() => resolveTarget({ ...credentials, GUIDECTL_BASE_URL: '' }, {}, ws().dir)).toThrow(
      'GUIDECTL_BASE_URL is set but empty; give the URL, or unset it for https://api.weixin.qq.com',
    );
    // Without credentials an empty variable is unset, as every variable: the embedded service.
    expect(resolveTarget({ GUIDECTL_BASE_URL: '' }, {}, ws().dir).kind).toBe('embedded');
  });

  it('refuses an empty --local-db, which would name the working folder, with the fix', () => {
    expect(() => resolveTarget({}, { localDb: '' }, ws().dir)).toThrow(
      '--local-db takes a database file, e.g. --local-db .guidectl/staging.db; it is empty',
    );
  });

  it('reads a named database that does not exist as an empty account, creating nothing', async () => {
    const cwd = ws().dir;
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
