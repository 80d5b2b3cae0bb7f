import { afterAll, describe, expect, it } from 'vitest';
import type { GuideClient } from '../../src/client/index.js';
import { READ_EVERYTHING, readLiveState, readOnlyClient } from '../../src/live/index.js';
import { renderExport } from '../../src/report/export.js';
import type { GuideService } from '../../src/service/index.js';
import { clientOf, closeClients, startService } from '../client/helpers.js';

// The service lists guides and groups in the order they were made, as the API does: two accounts
// holding the same guides and groups, made in other orders, must export the same bytes.

const services: GuideService[] = [];
afterAll(async () => {
  await closeClients();
  await Promise.all(services.map((s) => s.close()));
});

const MEMBERS: Readonly<Record<string, readonly string[]>> = {
  North: ['shop_a001', 'shop_g002'],
  South: ['shop_g001'],
  East: [],
};

async function accountMadeInOrder(
  guides: readonly string[],
  groups: readonly string[],
): Promise<GuideClient> {
  const service = await startService();
  services.push(service);
  const { client } = clientOf(service);
  for (const account of guides) {
    await client.addguideacct({
      guide_account: account,
      guide_nickname: account.toUpperCase(),
      guide_headimgurl: `https://example.com/${account}.png`,
    });
  }
  for (const name of groups) {
    const { group_id } = await client.newguidegroup({ group_name: name });
    for (const account of MEMBERS[name] ?? []) {
      await client.addguide2guidegroup({ group_id, guide_account: account });
    }
  }
  return client;
}

async function exported(client: GuideClient): Promise<string> {
  const live = await readLiveState(readOnlyClient(client), { ...READ_EVERYTHING, tasks: 'all' });
  return renderExport(live).text;
}

describe('export writes guides and groups by their keys (tasks were already)', () => {
  it('two accounts with the same content made in other orders export the same bytes', async () => {
    const one = await accountMadeInOrder(
      ['shop_a001', 'shop_g002', 'shop_g003', 'shop_g001'],
      ['South', 'North', 'East'],
    );
    const other = await accountMadeInOrder(
      ['shop_g003', 'shop_g001', 'shop_a001', 'shop_g002'],
      ['East', 'North', 'South'],
    );
    const text = await exported(one);
    expect(await exported(other)).toBe(text);
    const order = (key: string): string[] =>
      [...text.matchAll(new RegExp(`^ {2}- ${key}: (\\S+)$`, 'gm'))].map((m) => m[1] ?? '');
    expect(order('account')).toEqual(['shop_a001', 'shop_g001', 'shop_g002', 'shop_g003']);
    expect(order('name')).toEqual(['East', 'North', 'South']);
  });
});
