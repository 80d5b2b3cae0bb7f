import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { guideBody, startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.sim('reset');
  await t.ok('addguideacct', guideBody('alice_wx', 'Alice'));
  await t.ok('addguideacct', guideBody('bob_wx', 'Bob'));
});

/** The group_id exactly as written in the answer's text. */
function rawId(text: string, key: string): string {
  const m = new RegExp(`"${key}":\\s*([0-9]+)`).exec(text);
  if (m?.[1] === undefined) throw new Error(`no bare number ${key} in ${text}`);
  return m[1];
}

describe('64-bit group ids', () => {
  it('are bare JSON numbers above 2^53 that survive create → list → use, as numbers or strings', async () => {
    const created = await t.call('newguidegroup', { group_name: 'Shanghai Flagship' });
    const id = rawId(created.text, 'group_id');
    expect(id).toMatch(/^[1-9][0-9]{18}$/);
    expect(BigInt(id) > 2n ** 53n).toBe(true);
    expect(BigInt(id) < 2n ** 64n).toBe(true);
    const list = await t.call('getguidegrouplist', {});
    expect(rawId(list.text, 'id')).toBe(id);
    // As a bare number in the request text, never rounded through a double.
    const byNumber = await t.call('addguide2guidegroup', `{"group_id": ${id}, "guide_account": "alice_wx"}`);
    expect(byNumber.json['errcode']).toBe(0);
    const byString = await t.call('getgroupinfo', { group_id: id, page: 0, num: 10 });
    expect(byString.json['total_num']).toBe(1);
    const ofGuide = await t.call('getgroupbyguide', { guide_account: 'alice_wx' });
    expect(ofGuide.text).toContain(`"group_id_list":[${id}]`);
    // No id can be held by a double: rounded through one, it names no group.
    const rounded = BigInt(Number(id)).toString();
    expect(rounded).not.toBe(id);
    const wrong = await t.call('getgroupinfo', `{"group_id": ${rounded}, "page": 0, "num": 10}`);
    expect(wrong.json['errcode']).toBe(40097);
  });

  it('are strictly increasing and distinct', async () => {
    const ids: bigint[] = [];
    for (let i = 0; i < 20; i++)
      ids.push(BigInt(rawId((await t.call('newguidegroup', { group_name: `g${i}` })).text, 'group_id')));
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    for (const id of ids) expect(BigInt(Number(id))).not.toBe(id);
  });

  it('refuses ids that are not unsigned 64-bit integers', async () => {
    for (const bad of ['-1', '18446744073709551616', 'abc', '1.5']) {
      const answer = await t.call('getgroupinfo', `{"group_id": "${bad}", "page": 0, "num": 1}`);
      expect(answer.json['errcode'], bad).toBe(40097);
      expect(answer.json['errmsg']).toContain('group_id');
    }
    expect((await t.call('getgroupinfo', { page: 0, num: 1 })).json['errcode']).toBe(40101);
  });
});

describe('membership', () => {
  it('adds, lists with join time, removes, and answers by guide', async () => {
    const { group_id: g1 } = await t.ok('newguidegroup', { group_name: 'A' });
    const { group_id: g2 } = await t.ok('newguidegroup', { group_name: 'A' }); // names need not be unique
    await t.ok('addguide2guidegroup', { group_id: g1, guide_account: 'alice_wx' });
    await t.ok('addguide2guidegroup', { group_id: g1, guide_account: 'bob_wx' });
    await t.ok('addguide2guidegroup', { group_id: g2, guide_account: 'alice_wx' });
    const info = await t.ok('getgroupinfo', { group_id: g1, page: 0, num: 10 });
    expect(info['total_num']).toBe(2);
    expect(info['guide_list']).toEqual([
      expect.objectContaining({
        guide_account: 'alice_wx',
        guide_nickname: 'Alice',
        create_time: expect.any(Number),
      }),
      expect.objectContaining({ guide_account: 'bob_wx', guide_nickname: 'Bob' }),
    ]);
    expect((await t.ok('getgroupbyguide', { guide_account: 'alice_wx' }))['group_id_list']).toEqual([g1, g2]);
    await t.ok('delguide2guidegroup', { group_id: g1, guide_account: 'alice_wx' });
    expect((await t.ok('getgroupbyguide', { guide_account: 'alice_wx' }))['group_id_list']).toEqual([g2]);
  });

  it('refuses doubled adds, removes of non-members, unknown groups and guides', async () => {
    const { group_id } = await t.ok('newguidegroup', { group_name: 'A' });
    await t.ok('addguide2guidegroup', { group_id, guide_account: 'alice_wx' });
    const again = await t.call('addguide2guidegroup', { group_id, guide_account: 'alice_wx' });
    expect(again.json['errcode']).toBe(40097);
    expect(again.json['errmsg']).toContain('already in group');
    const notIn = await t.call('delguide2guidegroup', { group_id, guide_account: 'bob_wx' });
    expect(notIn.json['errmsg']).toContain('not in group');
    expect(
      (await t.call('addguide2guidegroup', { group_id: '1234567890123456789', guide_account: 'bob_wx' }))
        .json['errcode'],
    ).toBe(40097);
    expect(
      (await t.call('addguide2guidegroup', { group_id, guide_account: 'ghost_wx' })).json['errcode'],
    ).toBe(9300804);
  });

  it('works by account only: a guide added by openid cannot join', async () => {
    await t.ok('addguideacct', {
      guide_openid: 'oOnlyOpenid',
      guide_nickname: 'O',
      guide_headimgurl: 'https://x/y',
    });
    const { group_id } = await t.ok('newguidegroup', { group_name: 'A' });
    const byOpenid = await t.call('addguide2guidegroup', { group_id, guide_openid: 'oOnlyOpenid' });
    expect(byOpenid.json['errcode']).toBe(40101);
    expect(byOpenid.json['errmsg']).toContain('guide_account');
  });

  it('deleting a group removes its memberships, not its guides', async () => {
    const { group_id } = await t.ok('newguidegroup', { group_name: 'A' });
    await t.ok('addguide2guidegroup', { group_id, guide_account: 'alice_wx' });
    await t.ok('delguidegroup', { group_id });
    expect((await t.ok('getguidegrouplist', {}))['group_list']).toEqual([]);
    expect((await t.ok('getgroupbyguide', { guide_account: 'alice_wx' }))['group_id_list']).toEqual([]);
    await t.ok('getguideacct', { guide_account: 'alice_wx' });
    expect((await t.call('delguidegroup', { group_id })).json['errcode']).toBe(40097);
  });

  it('pages the members of a group', async () => {
    const { group_id } = await t.ok('newguidegroup', { group_name: 'Big' });
    for (let i = 0; i < 120; i++) {
      await t.ok('addguideacct', guideBody(`member_${i}`));
      await t.ok('addguide2guidegroup', { group_id, guide_account: `member_${i}` });
    }
    const first = await t.ok('getgroupinfo', { group_id, page: 0, num: 1000 });
    expect(first['total_num']).toBe(120);
    expect((first['guide_list'] as unknown[]).length).toBe(100);
    const second = await t.ok('getgroupinfo', { group_id, page: 1, num: 100 });
    expect((second['guide_list'] as unknown[]).length).toBe(20);
  });

  it('checks group_name', async () => {
    expect((await t.call('newguidegroup', {})).json['errcode']).toBe(40101);
    expect((await t.call('newguidegroup', { group_name: '' })).json['errcode']).toBe(40097);
    expect((await t.call('newguidegroup', { group_name: 'x'.repeat(65) })).json['errmsg']).toContain(
      '65 characters',
    );
  });
});
