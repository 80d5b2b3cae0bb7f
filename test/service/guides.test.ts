import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { guideBody, rawRequest, startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());
beforeEach(() => t.sim('reset'));

describe('addguideacct', () => {
  it('adds a guide by account, answered by account only', async () => {
    await t.ok('addguideacct', guideBody('alice_wx', 'Alice'));
    const got = await t.ok('getguideacct', { guide_account: 'alice_wx' });
    expect(got).toEqual({
      errcode: 0,
      errmsg: 'ok',
      guide_account: 'alice_wx',
      guide_nickname: 'Alice',
      guide_headimgurl: 'https://mmbiz.qpic.cn/mmbiz_jpg/alice_wx/0',
      status: 2,
    });
  });

  it('adds a guide by openid, answered by openid only', async () => {
    await t.ok('addguideacct', {
      guide_openid: 'oABCDEF123',
      guide_nickname: 'O',
      guide_headimgurl: 'http://x/y',
    });
    const got = await t.ok('getguideacct', { guide_openid: 'oABCDEF123' });
    expect(got['guide_openid']).toBe('oABCDEF123');
    expect(got).not.toHaveProperty('guide_account');
  });

  it('uses guide_account when both keys are sent, and treats null or "" as absent', async () => {
    await t.ok('addguideacct', { ...guideBody('both_keys'), guide_openid: 'oIgnored' });
    expect((await t.call('getguideacct', { guide_openid: 'oIgnored' })).json['errcode']).toBe(9300804);
    await t.ok('addguideacct', { ...guideBody('x'), guide_account: '', guide_openid: 'oEmptyAccount' });
    await t.ok('getguideacct', { guide_account: null, guide_openid: 'oEmptyAccount' });
    expect((await t.call('getguideacct', { guide_account: '', guide_openid: '' })).json['errcode']).toBe(
      40101,
    );
  });

  it('refuses a second add with 9300803', async () => {
    await t.ok('addguideacct', guideBody('alice_wx'));
    const again = await t.call('addguideacct', guideBody('alice_wx'));
    expect(again.json['errcode']).toBe(9300803);
  });

  it('counts the nickname in characters: 16 pass, 17 are 9300810', async () => {
    await t.ok('addguideacct', guideBody('sixteen_ok', '一二三四五六七八九十一二三四五六'));
    const long = await t.call(
      'addguideacct',
      guideBody('seventeen_no', '一二三四五六七八九十一二三四五六七'),
    );
    expect(long.json['errcode']).toBe(9300810);
    expect(long.json['errmsg']).toContain('17 characters');
    await t.ok('addguideacct', guideBody('emoji_nick', '😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀'));
  });

  it('requires nickname and head image, and an http(s) head image URL', async () => {
    const noNick = await t.call('addguideacct', {
      guide_account: 'no_nick_wx',
      guide_headimgurl: 'https://x/y',
    });
    expect(noNick.json).toMatchObject({ errcode: 40101 });
    expect(noNick.json['errmsg']).toContain('guide_nickname');
    const empty = await t.call('addguideacct', { ...guideBody('no_img_wx'), guide_headimgurl: '' });
    expect(empty.json['errcode']).toBe(40101);
    const ftp = await t.call('addguideacct', { ...guideBody('ftp_img_wx'), guide_headimgurl: 'ftp://x/y' });
    expect(ftp.json['errcode']).toBe(40097);
    expect(ftp.json['errmsg']).toContain('guide_headimgurl');
    // White space inside (which a URL parser would percent-encode) or around (which it would trim)
    // is refused, as the file's schema refuses it: what the service holds, export writes validly.
    for (const url of ['https://x.example/a b', ' https://x/y', 'https://x/y\t', 'https://x/\ny']) {
      const spaced = await t.call('addguideacct', { ...guideBody('spaced_img_wx'), guide_headimgurl: url });
      expect(spaced.json['errcode'], JSON.stringify(url)).toBe(40097);
    }
    const num = await t.call('addguideacct', { ...guideBody('num_nick_wx'), guide_nickname: 5 });
    expect(num.json['errcode']).toBe(40097);
    expect(num.json['errmsg']).toContain('guide_nickname must be a string');
  });

  it('refuses an invalid WeChat ID with 9300801 and a missing identity with 40101', async () => {
    expect((await t.call('addguideacct', guideBody('1starts_with_digit'))).json['errcode']).toBe(9300801);
    expect((await t.call('addguideacct', guideBody('short'))).json['errcode']).toBe(9300801);
    const none = await t.call('addguideacct', { guide_nickname: 'A', guide_headimgurl: 'https://x/y' });
    expect(none.json['errcode']).toBe(40101);
  });

  it('stops at the guide count limit with 9300812', async () => {
    const small = await startTestService({ settings: { maxGuides: 2 } });
    try {
      await small.ok('addguideacct', guideBody('limit_one'));
      await small.ok('addguideacct', guideBody('limit_two'));
      expect((await small.call('addguideacct', guideBody('limit_three'))).json['errcode']).toBe(9300812);
    } finally {
      await small.close();
    }
  });
});

describe('invitations', () => {
  it('keeps a guide pending under --invites manual until accepted, rejected or expired', async () => {
    const manual = await startTestService({ settings: { invites: 'manual' } });
    try {
      for (const a of ['pending_a', 'pending_b', 'pending_c']) await manual.ok('addguideacct', guideBody(a));
      expect((await manual.ok('getguideacct', { guide_account: 'pending_a' }))['status']).toBe(1);
      await manual.sim('invitation', { guide_account: 'pending_a', accept: true });
      await manual.sim('invitation', { guide_account: 'pending_b', accept: false });
      expect((await manual.ok('getguideacct', { guide_account: 'pending_a' }))['status']).toBe(2);
      expect((await manual.ok('getguideacct', { guide_account: 'pending_b' }))['status']).toBe(3);
      await manual.sim('clock', { advance: 7 * 86_400 });
      await manual.renewToken();
      expect((await manual.ok('getguideacct', { guide_account: 'pending_c' }))['status']).toBe(4);
      // A rejected or expired guide can be invited again.
      await manual.ok('addguideacct', guideBody('pending_b'));
      expect((await manual.ok('getguideacct', { guide_account: 'pending_b' }))['status']).toBe(1);
      expect((await manual.call('addguideacct', guideBody('pending_a'))).json['errcode']).toBe(9300803);
    } finally {
      await manual.close();
    }
  });

  it('invites a rejected guide again in place, keeping its quick replies and groups (as the README says)', async () => {
    const manual = await startTestService({ settings: { invites: 'manual' } });
    try {
      await manual.ok('addguideacct', guideBody('declined_wx'));
      const reply = {
        guide_account: 'declined_wx',
        is_delete: false,
        guide_fast_reply_list: [{ content: 'hi' }],
      };
      await manual.ok('setguideconfig', reply);
      const group = await manual.ok('newguidegroup', { group_name: 'North' });
      await manual.ok('addguide2guidegroup', { group_id: group['group_id'], guide_account: 'declined_wx' });
      await manual.sim('invitation', { guide_account: 'declined_wx', accept: false });
      await manual.ok('addguideacct', guideBody('declined_wx'));
      expect((await manual.ok('getguideacct', { guide_account: 'declined_wx' }))['status']).toBe(1);
      const config = await manual.ok('getguideconfig', { guide_account: 'declined_wx' });
      expect(config['guide_fast_reply_list']).toMatchObject([{ content: 'hi' }]);
      const groups = await manual.ok('getgroupbyguide', { guide_account: 'declined_wx' });
      expect(groups['group_id_list']).toHaveLength(1);
    } finally {
      await manual.close();
    }
  });
});

describe('/__sim/ as the README says', () => {
  it('customers need a guide that accepted its invitation (40097 before)', async () => {
    const manual = await startTestService({ settings: { invites: 'manual' } });
    try {
      await manual.ok('addguideacct', guideBody('waiting_wx'));
      const body = JSON.stringify({ guide_account: 'waiting_wx', openids: ['oCustomer1'] });
      const early = await rawRequest(`${manual.url}/__sim/customers`, { method: 'POST', body });
      expect(early.json['errcode']).toBe(40097);
      await manual.sim('invitation', { guide_account: 'waiting_wx', accept: true });
      expect(await manual.sim('customers', JSON.parse(body))).toMatchObject({ bound: 1 });
    } finally {
      await manual.close();
    }
  });

  it('reset empties the account but keeps the clock and the calls record', async () => {
    await t.ok('addguideacct', guideBody('kept_wx'));
    const moved = Number((await t.sim('clock', { advance: 3600 }))['now']);
    await t.sim('reset');
    expect(Number((await t.sim('clock'))['now'])).toBeGreaterThanOrEqual(moved);
    expect((await t.ok('getguideacctlist', { page: 0, num: 10 }))['total_num']).toBe(0);
    const calls = (await t.sim('calls'))['calls'] as Array<{ operation: string }>;
    expect(calls.map((c) => c.operation)).toContain('addguideacct');
  });
});

describe('updateguideacct and delguideacct', () => {
  it('updates nickname and head image separately', async () => {
    await t.ok('addguideacct', guideBody('alice_wx', 'Alice'));
    await t.ok('updateguideacct', { guide_account: 'alice_wx', guide_nickname: 'Alice B' });
    await t.ok('updateguideacct', { guide_account: 'alice_wx', guide_headimgurl: 'https://img/new' });
    const got = await t.ok('getguideacct', { guide_account: 'alice_wx' });
    expect(got).toMatchObject({ guide_nickname: 'Alice B', guide_headimgurl: 'https://img/new' });
    const long = await t.call('updateguideacct', {
      guide_account: 'alice_wx',
      guide_nickname: 'x'.repeat(17),
    });
    expect(long.json['errcode']).toBe(9300810);
    expect((await t.call('updateguideacct', { guide_account: 'alice_wx' })).json['errcode']).toBe(40101);
  });

  it('answers 9300804 for a guide that does not exist', async () => {
    for (const op of ['getguideacct', 'updateguideacct', 'delguideacct']) {
      const answer = await t.call(op, { guide_account: 'ghost_wx', guide_nickname: 'G' });
      expect(answer.json['errcode'], op).toBe(9300804);
    }
  });

  it('deletes a guide with its memberships and configuration', async () => {
    await t.ok('addguideacct', guideBody('alice_wx'));
    const { group_id } = await t.ok('newguidegroup', { group_name: 'G' });
    await t.ok('addguide2guidegroup', { group_id, guide_account: 'alice_wx' });
    await t.ok('setguideconfig', {
      guide_account: 'alice_wx',
      is_delete: false,
      guide_fast_reply_list: [{ content: 'hi' }],
      guide_auto_reply: { msgtype: 1, content: 'welcome' },
    });
    await t.ok('delguideacct', { guide_account: 'alice_wx' });
    expect((await t.ok('getgroupinfo', { group_id, page: 0, num: 10 }))['total_num']).toBe(0);
    await t.ok('addguideacct', guideBody('alice_wx'));
    const config = await t.ok('getguideconfig', { guide_account: 'alice_wx' });
    expect(config['guide_fast_reply_list']).toEqual([]);
    expect(config).not.toHaveProperty('guide_auto_reply');
    expect((await t.ok('getgroupbyguide', { guide_account: 'alice_wx' }))['group_id_list']).toEqual([]);
  });
});

describe('getguideacctlist', () => {
  it('pages in creation order and clamps num to 100', async () => {
    for (let i = 0; i < 130; i++)
      await t.ok('addguideacct', guideBody(`guide_${String(i).padStart(3, '0')}`));
    const first = await t.ok('getguideacctlist', { page: 0, num: 500 });
    expect(first['total_num']).toBe(130);
    const list = first['list'] as Array<Record<string, unknown>>;
    expect(list).toHaveLength(100);
    expect(list[0]).toEqual({
      guide_account: 'guide_000',
      guide_headimgurl: 'https://mmbiz.qpic.cn/mmbiz_jpg/guide_000/0',
      guide_nickname: 'guide_000',
    });
    const second = await t.ok('getguideacctlist', { page: 1, num: 500 });
    expect((second['list'] as unknown[]).length).toBe(30);
    const beyond = await t.ok('getguideacctlist', { page: 9, num: 100 });
    expect(beyond['list']).toEqual([]);
    const small = await t.ok('getguideacctlist', { page: 2, num: 7 });
    expect((small['list'] as Array<Record<string, unknown>>)[0]?.['guide_account']).toBe('guide_014');
  });

  it('checks page and num', async () => {
    expect((await t.call('getguideacctlist', { page: 0 })).json['errcode']).toBe(40101);
    expect((await t.call('getguideacctlist', { page: -1, num: 10 })).json['errcode']).toBe(40097);
    expect((await t.call('getguideacctlist', { page: 0, num: 0 })).json['errcode']).toBe(40097);
    expect((await t.call('getguideacctlist', { page: 'x', num: 10 })).json['errmsg']).toContain('page');
    expect((await t.call('getguideacctlist', { page: '1', num: '10' })).json['errcode']).toBe(0);
  });
});
