import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GuideService } from '../../src/service/index.js';
import { clientOf, closeClients, startService } from './helpers.js';

let service: GuideService;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await closeClients();
  await service.close();
});

describe('the client reads errcodes answered with HTTP 200', () => {
  it('a wrong base-URL path is errcode 40066 from the service, reported with its errcode', async () => {
    const { client } = clientOf(service, { baseUrl: `${service.url}/no-such-prefix` });
    await expect(client.getguidegrouplist()).rejects.toMatchObject({ errcode: 40066 });
  });

  it('a token answer without errcode is a token', async () => {
    const { client } = clientOf(service);
    await expect(client.getguidegrouplist()).resolves.toMatchObject({ group_list: [] });
  });
});
