import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { guideBody, startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.sim('reset');
  await t.ok('addguideacct', guideBody('alice_wx'));
  await t.ok('addguideacct', guideBody('bob_wx'));
});

const alice = { guide_account: 'alice_wx' };

async function qrcode(guide: Record<string, unknown>, info?: string): Promise<string> {
  const answer = await t.ok(
    'guidecreateqrcode',
    info === undefined ? guide : { ...guide, qrcode_info: info },
  );
  return String(answer['qrcode_url']);
}

describe('QR codes and binding', () => {
  it('binds a follower at once and reports actions 2, 3 and 4 with qrcode_info', async () => {
    const url = await qrcode(alice, 'store-42');
    expect(url).toMatch(/^https:\/\//);
    await t.sim('follow', { openid: 'oFan' });
    expect(await t.sim('scan', { openid: 'oFan', qrcode_url: url })).toMatchObject({
      event: 'guide_qrcode_scan_event',
      action: 2,
      qrcode_info: 'store-42',
      guide_account: 'alice_wx',
    });
    expect((await t.sim('scan', { openid: 'oFan', qrcode_url: url }))['action']).toBe(3);
    const bobs = await qrcode({ guide_account: 'bob_wx' });
    expect((await t.sim('scan', { openid: 'oFan', qrcode_url: bobs }))['action']).toBe(4);
    const events = (await t.sim('events'))['events'] as Array<Record<string, unknown>>;
    expect(events.filter((e) => e['event'] === 'guide_qrcode_scan_event').map((e) => e['action'])).toEqual([
      2, 3, 4,
    ]);
  });

  it('binds a non-follower who follows within 3 minutes, not later', async () => {
    const url = await qrcode(alice);
    expect(await t.sim('scan', { openid: 'oQuick', qrcode_url: url })).toMatchObject({ pending: true });
    await t.sim('clock', { advance: 180 });
    expect(await t.sim('follow', { openid: 'oQuick' })).toMatchObject({ bound: true });
    await t.sim('scan', { openid: 'oSlow', qrcode_url: url });
    await t.sim('clock', { advance: 181 });
    await t.renewToken();
    expect(await t.sim('follow', { openid: 'oSlow' })).toMatchObject({ bound: false });
  });

  it('reports action 1 for a guide no longer valid', async () => {
    const url = await qrcode(alice);
    await t.ok('delguideacct', alice);
    await t.sim('follow', { openid: 'oFan' });
    expect((await t.sim('scan', { openid: 'oFan', qrcode_url: url }))['action']).toBe(1);
  });

  it('limits qrcode_info and needs an existing guide', async () => {
    await qrcode(alice, 'x'.repeat(128));
    expect(
      (await t.call('guidecreateqrcode', { ...alice, qrcode_info: 'x'.repeat(129) })).json['errcode'],
    ).toBe(40097);
    expect((await t.call('guidecreateqrcode', { guide_account: 'ghost_wx' })).json['errcode']).toBe(9300804);
  });
});

describe('chat records', () => {
  async function chat(
    openid: string,
    content: string,
    direction: number,
    create_time?: number,
  ): Promise<void> {
    await t.sim('message', {
      ...alice,
      openid,
      content,
      direction,
      ...(create_time === undefined ? {} : { create_time }),
    });
  }

  it('lists the last 30 days, filters by customer and window, and pages', async () => {
    const now = Number((await t.sim('clock'))['now']);
    const url = await qrcode(alice);
    for (const openid of ['oA', 'oB']) {
      await t.sim('follow', { openid });
      await t.sim('scan', { openid, qrcode_url: url });
    }
    await chat('oA', 'too old', 2, now - 31 * 86_400);
    await chat('oA', 'hello', 2, now - 3600);
    await chat('oA', 'hi there', 1, now - 1800);
    await chat('oB', 'question', 2, now - 60);
    const all = await t.ok('getguidebuyerchatrecord', { ...alice, page: 0, num: 10 });
    expect(all['total_num']).toBe(3);
    expect(all['msg_list']).toEqual([
      {
        guide_account: 'alice_wx',
        openid: 'oA',
        create_time: now - 3600,
        content: 'hello',
        content_type: 1,
        direction: 2,
      },
      {
        guide_account: 'alice_wx',
        openid: 'oA',
        create_time: now - 1800,
        content: 'hi there',
        content_type: 1,
        direction: 1,
      },
      {
        guide_account: 'alice_wx',
        openid: 'oB',
        create_time: now - 60,
        content: 'question',
        content_type: 1,
        direction: 2,
      },
    ]);
    const ofA = await t.ok('getguidebuyerchatrecord', { ...alice, openid: 'oA', page: 0, num: 10 });
    expect(ofA['total_num']).toBe(2);
    const window = await t.ok('getguidebuyerchatrecord', {
      ...alice,
      begin_time: now - 2000,
      end_time: now - 100,
      page: 0,
      num: 10,
    });
    expect((window['msg_list'] as Array<{ content: string }>).map((m) => m.content)).toEqual(['hi there']);
    // A window with one end zero is ignored; one reaching back past 30 days is cut to 30 days.
    const half = await t.ok('getguidebuyerchatrecord', {
      ...alice,
      begin_time: now - 2000,
      end_time: 0,
      page: 0,
      num: 10,
    });
    expect(half['total_num']).toBe(3);
    const old = await t.ok('getguidebuyerchatrecord', {
      ...alice,
      begin_time: now - 40 * 86_400,
      end_time: now,
      page: 0,
      num: 10,
    });
    expect(old['total_num']).toBe(3);
    const paged = await t.ok('getguidebuyerchatrecord', { ...alice, page: 1, num: 2 });
    expect((paged['msg_list'] as unknown[]).length).toBe(1);
  });
});

describe('pushshowwxapathmenu', () => {
  it('lets the user copy paths for 60 days and refuses mini games with 40166', async () => {
    await t.ok('pushshowwxapathmenu', { wxa_appid: 'wx1234567890abcdef', wx_username: 'some_follower' });
    expect((await t.sim('wxamenu', { wx_username: 'some_follower' }))['menus']).toEqual([
      expect.objectContaining({ wxa_appid: 'wx1234567890abcdef' }),
    ]);
    await t.sim('clock', { advance: 60 * 86_400 });
    await t.renewToken();
    expect((await t.sim('wxamenu', { wx_username: 'some_follower' }))['menus']).toEqual([]);
    await t.sim('miniprogram', { appid: 'wxbbbbbbbbbbbbbbbb', kind: 'minigame', linked: true });
    const game = await t.call('pushshowwxapathmenu', {
      wxa_appid: 'wxbbbbbbbbbbbbbbbb',
      wx_username: 'some_follower',
    });
    expect(game.json['errcode']).toBe(40166);
    const badUser = await t.call('pushshowwxapathmenu', {
      wxa_appid: 'wx1234567890abcdef',
      wx_username: '1',
    });
    expect(badUser.json['errcode']).toBe(9300801);
    // The doc's own example misspells the key as wxa_username; the field is wx_username.
    const misspelt = await t.call('pushshowwxapathmenu', {
      wxa_appid: 'wx1234567890abcdef',
      wxa_username: 'some_follower',
    });
    expect(misspelt.json['errcode']).toBe(40101);
  });
});
