import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { collect, GuideApiError, type GuideClient, type HttpEvent } from '../../src/client/index.js';
import type { GuideService } from '../../src/service/index.js';
import type { Id64 } from '../../src/wire/ids.js';
import { miniProgramCardContent } from '../../src/wire/messages.js';
import { OPERATION_NAMES } from '../../src/wire/operations.js';
import { clientOf, guide, sim, startFakeApi, startService } from './helpers.js';

// Every operation of the wire page, end to end through the client, against the project's own
// service over real HTTP.

const TWO_POW_53 = 2n ** 53n;
const APPID = 'wx0123456789abcdef';

let service: GuideService;
let client: GuideClient;
const events: import('../../src/client/index.js').ClientEvent[] = [];

beforeAll(async () => {
  service = await startService();
  const made = clientOf(service, { onEvent: (e) => events.push(e) });
  client = made.client;
});

afterAll(async () => {
  await client.close();
  await service.close();
});

function expectBigId(id: Id64): void {
  expect(id).toMatch(/^[1-9][0-9]{15,19}$/);
  expect(BigInt(id) > TWO_POW_53).toBe(true);
}

/** Binds a new follower to a guide the way WeChat users do: follow, then scan the guide's QR code. */
async function bindCustomer(account: string, openid: string): Promise<void> {
  await sim(service, 'follow', { openid });
  const { qrcode_url } = await client.guidecreateqrcode({ guide_account: account, qrcode_info: 'shelf-7' });
  const scan = await sim(service, 'scan', { openid, qrcode_url });
  expect(scan['action']).toBe(2);
}

describe('guide accounts', () => {
  test('add, get, update, list, delete', async () => {
    await client.addguideacct(guide(1));
    await client.addguideacct({
      guide_openid: 'oGuideOpenid0001',
      guide_nickname: 'By openid',
      guide_headimgurl: 'https://mmbiz.qpic.cn/mmbiz_jpg/o1/0',
    });
    expect(await client.getguideacct({ guide_account: 'guide_0001' })).toEqual({
      guide_account: 'guide_0001',
      guide_nickname: 'Guide 1',
      guide_headimgurl: 'https://mmbiz.qpic.cn/mmbiz_jpg/g1/0',
      status: 2,
    });
    const byOpenid = await client.getguideacct({ guide_openid: 'oGuideOpenid0001' });
    expect(byOpenid.guide_openid).toBe('oGuideOpenid0001');
    expect(byOpenid.guide_account).toBeUndefined();

    await client.updateguideacct({ guide_account: 'guide_0001', guide_nickname: 'Alice' });
    expect((await client.getguideacct({ guide_account: 'guide_0001' })).guide_nickname).toBe('Alice');

    const page = await client.getguideacctlist({ page: 0, num: 10 });
    expect(page.total_num).toBe(2);
    expect(page.list.map((g) => g.guide_account ?? g.guide_openid)).toEqual([
      'guide_0001',
      'oGuideOpenid0001',
    ]);

    await client.delguideacct({ guide_openid: 'oGuideOpenid0001' });
    const gone = await client.getguideacct({ guide_openid: 'oGuideOpenid0001' }).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(GuideApiError);
    expect(gone).toMatchObject({
      code: 'GUIDE_API_ERROR',
      errcode: 9300804,
      operation: 'getguideacct',
      kind: 'call',
    });
    expect(String((gone as Error).message)).toMatch(/^getguideacct failed: 9300804 — guide does not exist/);
  });

  test('an API refusal names the operation, the code and its meaning', async () => {
    const error = await client
      .addguideacct({ ...guide(2), guide_nickname: 'A nickname far too long' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuideApiError);
    expect((error as Error).message).toMatch(
      /^addguideacct failed: 9300810 — nickname longer than 16 characters/,
    );
    await expect(client.addguideacct(guide(1))).rejects.toMatchObject({ errcode: 9300803 });
  });

  test('QR code, chat record, path menu', async () => {
    await bindCustomer('guide_0001', 'oCustomer0001');
    for (let i = 0; i < 3; i++) {
      await sim(service, 'message', {
        guide_account: 'guide_0001',
        openid: 'oCustomer0001',
        content: `hello ${i}`,
        direction: i % 2 === 0 ? 2 : 1,
      });
    }
    const record = await client.getguidebuyerchatrecord({
      guide_account: 'guide_0001',
      openid: 'oCustomer0001',
      page: 0,
      num: 2,
    });
    expect(record.total_num).toBe(3);
    expect(record.msg_list).toHaveLength(2);
    expect(record.msg_list[0]).toMatchObject({
      openid: 'oCustomer0001',
      content: 'hello 0',
      direction: 2,
      content_type: 1,
    });
    const all = await collect(client.iterateGuideBuyerChatRecord({ guide_account: 'guide_0001' }));
    expect(all.map((m) => m.content)).toEqual(['hello 0', 'hello 1', 'hello 2']);

    await client.pushshowwxapathmenu({ wxa_appid: APPID, wx_username: 'follower_wx1' });
    const menus = await sim(service, 'wxamenu', { wx_username: 'follower_wx1' });
    expect(menus['menus']).toEqual([expect.objectContaining({ wxa_appid: APPID })]);
  });
});

describe('quick replies, welcome messages, sensitive words', () => {
  test('setguideconfig / getguideconfig for a guide and for the account', async () => {
    await client.setguideconfig({
      guide_account: 'guide_0001',
      is_delete: false,
      guide_fast_reply_list: [{ content: 'Hello!' }, { content: 'One moment.' }],
    });
    await client.setguideconfig({
      guide_account: 'guide_0001',
      is_delete: false,
      guide_auto_reply: { msgtype: 1, content: 'Hi, I am Alice.' },
      guide_auto_reply_plus: {
        msgtype: 3,
        content: miniProgramCardContent({
          media_id: 'MEDIA1',
          title: 'New',
          path: 'pages/new',
          appid: APPID,
        }),
      },
    });
    const config = await client.getguideconfig({ guide_account: 'guide_0001' });
    expect(config.guide_fast_reply_list.map((r) => r.content)).toEqual(['Hello!', 'One moment.']);
    expect(config.guide_auto_reply).toMatchObject({ msgtype: 1, content: 'Hi, I am Alice.' });
    expect(config.guide_auto_reply_plus?.msgtype).toBe(3);
    expect(JSON.parse(config.guide_auto_reply_plus?.content ?? '{}')).toMatchObject({
      title: 'New',
      appid: APPID,
    });

    await client.setguideconfig({ is_delete: false, guide_auto_reply: { msgtype: 2, content: 'MEDIA2' } });
    expect((await client.getguideconfig()).guide_auto_reply).toMatchObject({ msgtype: 2, content: 'MEDIA2' });

    await client.setguideconfig({
      guide_account: 'guide_0001',
      is_delete: true,
      guide_fast_reply_list: [{ content: 'x' }],
      guide_auto_reply: { msgtype: 1 },
    });
    const cleared = await client.getguideconfig({ guide_account: 'guide_0001' });
    expect(cleared.guide_fast_reply_list).toEqual([]);
    expect(cleared.guide_auto_reply).toBeUndefined();
  });

  test('setguideacctconfig / getguideacctconfig', async () => {
    await client.setguideacctconfig({
      is_delete: false,
      black_keyword: { values: ['refund', 'cheap'] },
      guide_auto_reply: { content: 'We are offline.' },
    });
    let config = await client.getguideacctconfig();
    expect(config.black_keyword.values).toEqual(['refund', 'cheap']);
    expect(config.guide_auto_reply).toEqual({ content: 'We are offline.' });
    await client.setguideacctconfig({
      is_delete: true,
      black_keyword: { values: ['cheap'] },
      guide_auto_reply: { content: 'We are offline.' },
    });
    config = await client.getguideacctconfig();
    expect(config.black_keyword.values).toEqual(['refund']);
    expect(config.guide_auto_reply).toBeUndefined();
  });
});

describe('guide groups: 64-bit ids survive create → list → use', () => {
  test('every group operation', async () => {
    const { group_id } = await client.newguidegroup({ group_name: 'Shanghai Flagship' });
    expectBigId(group_id);

    const list = await client.getguidegrouplist();
    const listed = list.group_list.find((g) => g.name === 'Shanghai Flagship');
    expect(listed?.id).toBe(group_id);

    await client.addguide2guidegroup({ group_id, guide_account: 'guide_0001' });
    const info = await client.getgroupinfo({ group_id, page: 0, num: 10 });
    expect(info.total_num).toBe(1);
    expect(info.guide_list[0]).toMatchObject({ guide_account: 'guide_0001', guide_nickname: 'Alice' });
    expect(await collect(client.iterateGroupInfo({ group_id }))).toHaveLength(1);

    const byGuide = await client.getgroupbyguide({ guide_account: 'guide_0001' });
    expect(byGuide.group_id_list).toEqual([group_id]);

    await client.delguide2guidegroup({ group_id, guide_account: 'guide_0001' });
    expect((await client.getgroupbyguide({ guide_account: 'guide_0001' })).group_id_list).toEqual([]);

    await client.delguidegroup({ group_id });
    expect((await client.getguidegrouplist()).group_list.some((g) => g.id === group_id)).toBe(false);
  });

  test('ids go on the wire as bare JSON numbers, every digit kept', async () => {
    const { group_id } = await client.newguidegroup({ group_name: 'Wire check' });
    await client.getgroupinfo({ group_id, page: 0, num: 1 });
    const sent = events.filter((e): e is HttpEvent => e.type === 'http' && e.url.includes('/getgroupinfo'));
    expect(sent.at(-1)?.requestBody).toContain(`"group_id":${group_id},`);
    // The raw call keeps them as bigint.
    const raw = await client.call('getguidegrouplist');
    const groups = raw['group_list'];
    expect(Array.isArray(groups) && groups.some((g) => g.id === BigInt(group_id))).toBe(true);
    // An id given as a decimal string or a bigint works as well.
    await client.getgroupinfo({ group_id: BigInt(group_id), page: 0, num: 1 });
    await expect(client.getgroupinfo({ group_id: '12x', page: 0, num: 1 })).rejects.toMatchObject({
      code: 'GUIDE_INVALID_REQUEST',
    });
    await client.delguidegroup({ group_id: String(group_id) });
  });
});

describe('mass-send tasks', () => {
  test('add, get, list, update, cancel', async () => {
    await bindCustomer('guide_0001', 'oCustomer0002');
    const now = Number((await sim(service, 'clock'))['now']);
    const added = await client.addguidemassendjob({
      guide_account: 'guide_0001',
      task_name: 'Spring sale',
      task_remark: 'first wave',
      push_time: now + 3600,
      openid: ['oCustomer0001', 'oCustomer0002'],
      material: [{ type: 1, word: 'Spring sale starts now!' }],
    });
    expect(added.task_result).toHaveLength(1);
    const taskId = added.task_result[0]?.task_id;
    if (taskId === undefined) throw new Error('no task id');
    expectBigId(taskId);

    const { job } = await client.getguidemassendjob({ task_id: taskId });
    expect(job).toMatchObject({
      task_id: taskId,
      task_name: 'Spring sale',
      task_status: 1,
      push_time: now + 3600,
    });
    expect(job.buyer_info.map((b) => b.openid).sort()).toEqual(['oCustomer0001', 'oCustomer0002']);

    const listed = await client.getguidemassendjoblist({ guide_account: 'guide_0001', task_status: [1] });
    expect(listed.total_count).toBe(1);
    expect(listed.list[0]?.task_id).toBe(taskId);
    expect(await collect(client.iterateGuideMassendJobList({ guide_account: 'guide_0001' }))).toHaveLength(1);

    await client.updateguidemassendjob({
      task_id: taskId,
      task_name: 'Spring sale 2',
      openid: ['oCustomer0001'],
    });
    const updated = (await client.getguidemassendjob({ task_id: taskId })).job;
    expect(updated.task_name).toBe('Spring sale 2');
    expect(updated.buyer_info.map((b) => b.openid)).toEqual(['oCustomer0001']);

    await client.cancelguidemassendjob({ task_id: taskId });
    expect((await client.getguidemassendjob({ task_id: taskId })).job.task_status).toBe(4);
    await expect(client.cancelguidemassendjob({ task_id: taskId })).rejects.toMatchObject({ errcode: 40097 });
  });

  test('every operation of the wire page was called', () => {
    const called = new Set(service.calls().map((c) => c.operation));
    expect(OPERATION_NAMES.filter((op) => !called.has(op))).toEqual([]);
  });
});

describe('paging', () => {
  test('all pages of a 250-item list', async () => {
    const fresh = await startService();
    const { client: c } = clientOf(fresh, { parallelism: 16 });
    try {
      await Promise.all(Array.from({ length: 250 }, (_, i) => c.addguideacct(guide(i + 1))));
      fresh.resetCalls();
      const all = await collect(c.iterateGuideAcctList());
      expect(all).toHaveLength(250);
      expect(new Set(all.map((g) => g.guide_account)).size).toBe(250);
      // 100 + 100 + 50: stops on total_num, no extra empty page.
      expect(fresh.calls().filter((x) => x.operation === 'getguideacctlist')).toHaveLength(3);
    } finally {
      await c.close();
      await fresh.close();
    }
  });

  test('short pages are not taken for the end; an empty page ends the list', async () => {
    const items = Array.from({ length: 75 }, (_, i) => ({
      guide_account: `short_${i}`,
      guide_nickname: `S${i}`,
      guide_headimgurl: 'https://x/0',
    }));
    const api = await startFakeApi((path, body) => {
      if (path.startsWith('/cgi-bin/stable_token'))
        return { body: { access_token: 'fake-token-123456', expires_in: 7200 } };
      const request = JSON.parse(body) as { page: number; num: number };
      const size = Math.min(request.num, 30); // this server caps pages at 30
      // It also claims more items than it has: the iterator must stop at the empty page.
      return {
        body: {
          errcode: 0,
          errmsg: 'ok',
          total_num: 1000,
          list: items.slice(request.page * size, (request.page + 1) * size),
        },
      };
    });
    const { createGuideClient } = await import('../../src/client/index.js');
    const c = createGuideClient({ baseUrl: api.url, auth: { appid: 'wxfake', secret: 'fake-secret' } });
    try {
      const all = await collect(c.iterateGuideAcctList());
      expect(all.map((g) => g.guide_account)).toEqual(items.map((g) => g.guide_account));
      expect(api.requests.filter((r) => r.startsWith('/cgi-bin/guide/'))).toHaveLength(4);
    } finally {
      await c.close();
      await api.close();
    }
  });
});
