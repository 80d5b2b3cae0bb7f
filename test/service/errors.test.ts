import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

/** Each operation that names a guide, with the rest of a request that is otherwise valid. */
const GUIDE_OPERATIONS: Array<[string, Record<string, unknown>]> = [
  ['updateguideacct', { guide_nickname: 'N' }],
  ['getguideacct', {}],
  ['delguideacct', {}],
  ['guidecreateqrcode', {}],
  ['getguidebuyerchatrecord', { page: 0, num: 10 }],
  ['setguideconfig', { is_delete: false, guide_fast_reply_list: [{ content: 'a' }] }],
  ['getguideconfig', {}],
  ['getguidemassendjoblist', {}],
  [
    'addguidemassendjob',
    { task_name: 'n', push_time: 4102444800, openid: ['o'], material: [{ type: 1, word: 'w' }] },
  ],
];

describe('documented errors of every operation that names a guide', () => {
  it.each(GUIDE_OPERATIONS)('%s answers 9300804 for a guide that does not exist', async (op, rest) => {
    const answer = await t.call(op, { guide_account: 'nobody_wx', ...rest });
    expect(answer.json['errcode']).toBe(9300804);
    expect(answer.json['errmsg']).toContain('nobody_wx');
  });

  it.each(GUIDE_OPERATIONS.filter(([op]) => op !== 'getguideconfig'))(
    '%s answers 40101 without guide_account or guide_openid',
    async (op, rest) => {
      const answer = await t.call(op, rest);
      expect(answer.json['errcode']).toBe(40101);
    },
  );

  it.each([
    ['addguide2guidegroup', { group_id: '1860131524965138433' }],
    ['delguide2guidegroup', { group_id: '1860131524965138433' }],
    ['getgroupbyguide', {}],
  ])('%s names the guide by guide_account only (40101 with guide_openid)', async (op, rest) => {
    const answer = await t.call(op, { guide_openid: 'oSomeone', ...rest });
    expect(answer.json['errcode']).toBe(40101);
    expect(answer.json['errmsg']).toContain('guide_account');
  });

  it.each([
    'getguidemassendjob',
    'updateguidemassendjob',
    'cancelguidemassendjob',
    'getgroupinfo',
    'delguidegroup',
  ])('%s answers 40101 without its id and 40097 for an id that is not 64-bit', async (op) => {
    const key = op.includes('group') ? 'group_id' : 'task_id';
    const missing = await t.call(op, { page: 0, num: 1 });
    expect(missing.json['errcode']).toBe(40101);
    const bad = await t.call(op, { [key]: 'x1', page: 0, num: 1 });
    expect(bad.json['errcode']).toBe(40097);
    expect(bad.json['errmsg']).toContain(key);
  });

  it('setguideacctconfig needs is_delete, as a boolean', async () => {
    expect((await t.call('setguideacctconfig', { black_keyword: { values: ['a'] } })).json['errcode']).toBe(
      40101,
    );
    expect(
      (await t.call('setguideacctconfig', { is_delete: 1, black_keyword: { values: ['a'] } })).json[
        'errcode'
      ],
    ).toBe(40097);
  });
});
