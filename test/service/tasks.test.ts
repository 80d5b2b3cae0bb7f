import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { guideBody, rawRequest, startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
let now: number;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

const alice = { guide_account: 'alice_wx' };

async function bindCustomer(openid: string, guide = alice): Promise<void> {
  await t.sim('follow', { openid });
  const { qrcode_url } = await t.ok('guidecreateqrcode', guide);
  const scan = await t.sim('scan', { openid, qrcode_url });
  expect(scan['action']).toBe(2);
}

beforeEach(async () => {
  await t.sim('reset');
  now = Number((await t.sim('clock'))['now']);
  // Tests move the clock forward; a token of an earlier test may have expired since.
  await t.renewToken();
  await t.ok('addguideacct', guideBody('alice_wx'));
  await t.ok('addguideacct', guideBody('bob_wx'));
  await bindCustomer('oCustomer1');
  await bindCustomer('oCustomer2');
});

function taskBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...alice,
    task_name: 'Spring sale',
    task_remark: 'for regulars',
    push_time: now + 3600,
    openid: ['oCustomer1', 'oCustomer2'],
    material: [
      { type: 1, word: 'Hello' },
      { type: 3, media_id: 'IMG_1' },
      { type: 49, title: 'Shop', path: 'pages/index', appid: 'wx1234567890abcdef', media_id: 'COVER_1' },
    ],
    ...over,
  };
}

async function addTask(over: Record<string, unknown> = {}): Promise<string> {
  const answer = await t.call('addguidemassendjob', taskBody(over));
  expect(answer.json['errcode'], answer.text).toBe(0);
  const m = /"task_id":([0-9]+)/.exec(answer.text);
  if (m?.[1] === undefined) throw new Error(answer.text);
  return m[1];
}

async function job(taskId: string): Promise<Record<string, unknown>> {
  return (await t.ok('getguidemassendjob', { task_id: taskId }))['job'] as Record<string, unknown>;
}

describe('mass-send tasks', () => {
  it('creates a task with a 64-bit id and reads it back with pic_url instead of media_id', async () => {
    const taskId = await addTask();
    expect(BigInt(taskId) > 2n ** 53n).toBe(true);
    const created = await t.call('addguidemassendjob', taskBody({ task_name: 'second' }));
    expect(created.text).toMatch(
      /"task_result":\[\{"task_id":[0-9]{19},"openid":\["oCustomer1","oCustomer2"\]\}\]/,
    );
    const read = await t.call('getguidemassendjob', `{"task_id": ${taskId}}`);
    expect(read.text).toContain(`"task_id":${taskId}`);
    const task = await job(taskId);
    expect(task).toMatchObject({
      guide_account: 'alice_wx',
      task_name: 'Spring sale',
      task_remark: 'for regulars',
      push_time: now + 3600,
      finish_time: 0,
      task_status: 1,
      buyer_info: [
        { openid: 'oCustomer1', send_status: 1 },
        { openid: 'oCustomer2', send_status: 1 },
      ],
    });
    const material = task['material'] as Array<Record<string, unknown>>;
    expect(material[0]).toEqual({ type: 1, word: 'Hello' });
    expect(material[1]).not.toHaveProperty('media_id');
    expect(String(material[1]?.['pic_url'])).toContain('IMG_1');
    expect(material[2]).toMatchObject({
      type: 49,
      title: 'Shop',
      path: 'pages/index',
      appid: 'wx1234567890abcdef',
    });
  });

  it('moves 1 → 2 when the push time passes → 3 when delivered, recipients sent or not following', async () => {
    const taskId = await addTask();
    await t.sim('unfollow', { openid: 'oCustomer2' });
    await t.sim('clock', { advance: 3600 });
    expect((await job(taskId))['task_status']).toBe(2);
    await t.sim('clock', { advance: 120 });
    const done = await job(taskId);
    expect(done['task_status']).toBe(3);
    expect(done['finish_time']).toBe(now + 3600 + 60);
    expect(done['buyer_info']).toEqual([
      { openid: 'oCustomer1', send_status: 2 },
      { openid: 'oCustomer2', send_status: 3 },
    ]);
  });

  it('updates and cancels only a task not yet executed; otherwise 40097 and no change', async () => {
    const taskId = await addTask();
    await t.ok('updateguidemassendjob', { task_id: taskId, task_name: 'Renamed', openid: ['oCustomer1'] });
    let task = await job(taskId);
    expect(task['task_name']).toBe('Renamed');
    expect(task['buyer_info']).toEqual([{ openid: 'oCustomer1', send_status: 1 }]);
    await t.ok('cancelguidemassendjob', { task_id: taskId });
    expect((await job(taskId))['task_status']).toBe(4);
    const again = await t.call('cancelguidemassendjob', { task_id: taskId });
    expect(again.json['errcode']).toBe(40097);
    const update = await t.call('updateguidemassendjob', { task_id: taskId, task_name: 'Nope' });
    expect(update.json['errcode']).toBe(40097);
    task = await job(taskId);
    expect(task).toMatchObject({ task_name: 'Renamed', task_status: 4 });

    const executed = await addTask({ push_time: now + 10 });
    await t.sim('clock', { advance: 11 });
    expect(
      (await t.call('updateguidemassendjob', { task_id: executed, task_name: 'Late' })).json['errcode'],
    ).toBe(40097);
    expect((await t.call('cancelguidemassendjob', { task_id: executed })).json['errcode']).toBe(40097);
    expect((await job(executed))['task_name']).toBe('Spring sale');
  });

  it('lists the tasks of a guide by status with offset and limit', async () => {
    const ids = [await addTask(), await addTask(), await addTask()];
    await t.ok('cancelguidemassendjob', { task_id: ids[1] });
    const all = await t.ok('getguidemassendjoblist', alice);
    expect(all['total_count']).toBe(3);
    const cancelled = await t.ok('getguidemassendjoblist', { ...alice, task_status: [4] });
    expect(cancelled['total_count']).toBe(1);
    const page = await t.ok('getguidemassendjoblist', { ...alice, task_status: [], offset: 1, limit: 1 });
    expect((page['list'] as unknown[]).length).toBe(1);
    // The page at offset 1 is the second task of the whole list, not the first again.
    expect((page['list'] as unknown[])[0]).toEqual((all['list'] as unknown[])[1]);
    expect((page['list'] as unknown[])[0]).not.toEqual((all['list'] as unknown[])[0]);
    expect((await t.ok('getguidemassendjoblist', { guide_account: 'bob_wx' }))['total_count']).toBe(0);
  });

  it('holds every limit at the boundary and refuses one past it with 40097', async () => {
    await addTask({ task_name: '一'.repeat(16), task_remark: 'r'.repeat(100) });
    await addTask({ material: [{ type: 1, word: 'a'.repeat(300) }] });
    await addTask({
      material: [{ type: 49, title: 't'.repeat(35), path: 'p', appid: 'wx1234567890abcdef', media_id: 'M' }],
    });
    await addTask({ push_time: now + 30 * 86_400 });
    const cases: Array<[string, Record<string, unknown>]> = [
      ['task_name', { task_name: '一'.repeat(17) }],
      ['task_remark', { task_remark: 'r'.repeat(101) }],
      [
        'material',
        {
          material: [
            { type: 1, word: 'a' },
            { type: 1, word: 'b' },
            { type: 1, word: 'c' },
            { type: 1, word: 'd' },
          ],
        },
      ],
      ['bytes', { material: [{ type: 1, word: '字'.repeat(101) }] }],
      [
        'title',
        {
          material: [
            { type: 49, title: 't'.repeat(36), path: 'p', appid: 'wx1234567890abcdef', media_id: 'M' },
          ],
        },
      ],
      ['past', { push_time: now - 1 }],
      ['month ahead', { push_time: now + 30 * 86_400 + 1 }],
      ['type', { material: [{ type: 2, word: 'x' }] }],
    ];
    for (const [hint, over] of cases) {
      const answer = await t.call('addguidemassendjob', taskBody(over));
      expect(answer.json['errcode'], hint).toBe(40097);
      expect(String(answer.json['errmsg']), hint).toContain(
        hint === 'type' ? 'type' : hint === 'bytes' ? '303 bytes' : hint,
      );
    }
    expect((await t.ok('getguidemassendjoblist', alice))['total_count']).toBe(4);
  });

  it('sends only to customers bound to the guide (9300806)', async () => {
    const notBound = await t.call('addguidemassendjob', taskBody({ openid: ['oCustomer1', 'oStranger'] }));
    expect(notBound.json['errcode']).toBe(9300806);
    expect(notBound.json['errmsg']).toContain('oStranger');
    const otherGuide = await t.call('addguidemassendjob', taskBody({ guide_account: 'bob_wx' }));
    expect(otherGuide.json['errcode']).toBe(9300806);
  });

  it('keeps an updated push_time inside [now, now + 30 days], and the task unchanged when refused', async () => {
    const taskId = await addTask();
    const past = await t.call('updateguidemassendjob', { task_id: taskId, push_time: now - 1 });
    expect(past.json['errcode']).toBe(40097);
    expect(String(past.json['errmsg'])).toContain('past');
    const late = await t.call('updateguidemassendjob', { task_id: taskId, push_time: now + 30 * 86_400 + 1 });
    expect(late.json['errcode']).toBe(40097);
    expect(String(late.json['errmsg'])).toContain('one month');
    expect((await job(taskId))['push_time']).toBe(now + 3600);
    await t.ok('updateguidemassendjob', { task_id: taskId, push_time: now + 30 * 86_400 });
    expect((await job(taskId))['push_time']).toBe(now + 30 * 86_400);
  });

  it('keeps an executed or completed task as it was: update and cancel answer 40097', async () => {
    const taskId = await addTask({ push_time: now + 10 });
    await t.sim('clock', { advance: 10 });
    const before = await t.call('getguidemassendjob', { task_id: taskId });
    expect(before.json['job']).toMatchObject({ task_status: 2 });
    await t.sim('clock', { advance: 7200 });
    await t.renewToken();
    expect((await job(taskId))['task_status']).toBe(3);
    const refused = [
      await t.call('updateguidemassendjob', { task_id: taskId, task_name: 'Late', push_time: now + 9000 }),
      await t.call('updateguidemassendjob', { task_id: taskId, openid: ['oCustomer1'] }),
      await t.call('cancelguidemassendjob', { task_id: taskId }),
    ];
    for (const answer of refused) {
      expect(answer.json['errcode'], answer.text).toBe(40097);
      expect(String(answer.json['errmsg'])).toContain('status 3');
    }
    expect(await job(taskId)).toMatchObject({
      task_name: 'Spring sale',
      task_status: 3,
      push_time: now + 10,
    });
  });

  it('takes a task id as a decimal string as well as a number, without losing a digit', async () => {
    const taskId = await addTask();
    await t.ok('updateguidemassendjob', { task_id: taskId, task_remark: 'by string' });
    await t.call('updateguidemassendjob', `{"task_id": ${taskId}, "task_name": "by number"}`);
    expect(await job(taskId)).toMatchObject({ task_remark: 'by string', task_name: 'by number' });
    const listed = await t.call('getguidemassendjoblist', alice);
    expect(listed.text).toContain(`"task_id":${taskId}`);
    await t.ok('cancelguidemassendjob', { task_id: taskId });
    expect((await job(taskId))['task_status']).toBe(4);
  });

  it('filters by status as the clock passes push times: pending [1], executed [2, 3], cancelled [4]', async () => {
    const soon = await addTask({ push_time: now + 60 });
    const later = await addTask({ push_time: now + 7200 });
    const cancelled = await addTask();
    await t.ok('cancelguidemassendjob', { task_id: cancelled });
    await t.sim('clock', { advance: 61 });
    const ids = async (statuses: number[]): Promise<string[]> => {
      const answer = await t.call('getguidemassendjoblist', { ...alice, task_status: statuses });
      return [...answer.text.matchAll(/"task_id":([0-9]+)/g)].map((m) => m[1] ?? '');
    };
    expect(await ids([1])).toEqual([later]);
    expect(await ids([2, 3])).toEqual([soon]);
    expect(await ids([4])).toEqual([cancelled]);
    expect(await ids([])).toEqual([soon, later, cancelled]);
    for (const bad of [[5], ['1'], [0]]) {
      const answer = await t.call('getguidemassendjoblist', { ...alice, task_status: bad });
      expect(answer.json['errcode'], JSON.stringify(bad)).toBe(40097);
    }
  });

  it('pages by offset and limit: limit clamped to 100, default 50, an offset past the end is an empty page', async () => {
    await t.sim('customers', { ...alice, openids: ['oCustomer1'] });
    for (let i = 0; i < 105; i++) await addTask({ task_name: `task ${i}`, openid: ['oCustomer1'] });
    const names = (answer: Record<string, unknown>): string[] =>
      (answer['list'] as Array<Record<string, unknown>>).map((task) => String(task['task_name']));
    const first = await t.ok('getguidemassendjoblist', alice);
    expect(first['total_count']).toBe(105);
    expect(names(first)).toHaveLength(50);
    const big = await t.ok('getguidemassendjoblist', { ...alice, offset: 3, limit: 1000 });
    expect(names(big)).toHaveLength(100);
    expect(names(big)[0]).toBe('task 3');
    const tail = await t.ok('getguidemassendjoblist', { ...alice, offset: 103, limit: 10 });
    expect(names(tail)).toEqual(['task 103', 'task 104']);
    const past = await t.ok('getguidemassendjoblist', { ...alice, offset: 105 });
    expect(past).toMatchObject({ total_count: 105, list: [] });
    for (const bad of [{ offset: -1 }, { limit: 0 }]) {
      expect((await t.call('getguidemassendjoblist', { ...alice, ...bad })).json['errcode']).toBe(40097);
    }
  });

  it('binds customers in bulk through /__sim/customers, leaving one bound elsewhere where it is', async () => {
    const answer = await t.sim('customers', {
      guide_account: 'bob_wx',
      openids: ['oBulk1', 'oBulk2', 'oCustomer1'],
    });
    expect(answer).toMatchObject({ bound: 2, bound_elsewhere: 1 });
    await t.ok('addguidemassendjob', taskBody({ guide_account: 'bob_wx', openid: ['oBulk1', 'oBulk2'] }));
    const refused = await t.call(
      'addguidemassendjob',
      taskBody({ guide_account: 'bob_wx', openid: ['oCustomer1'] }),
    );
    expect(refused.json['errcode']).toBe(9300806);
  });

  it('/__sim/ makes no customer whose openid the API would refuse (40003), binding none of the list', async () => {
    const bad = await rawRequest(`${t.url}/__sim/customers`, {
      method: 'POST',
      body: JSON.stringify({ guide_account: 'bob_wx', openids: ['oFine1', 'bad openid!'] }),
    });
    expect(bad.json).toEqual({
      errcode: 40003,
      errmsg: 'invalid openid: openids[1] "bad openid!"; an openid has 1 to 64 letters, digits, "_" or "-"',
    });
    const follow = await rawRequest(`${t.url}/__sim/follow`, {
      method: 'POST',
      body: JSON.stringify({ openid: 'x'.repeat(65) }),
    });
    expect(follow.json['errcode']).toBe(40003);
    const refused = await t.call(
      'addguidemassendjob',
      taskBody({ guide_account: 'bob_wx', openid: ['oFine1'] }),
    );
    expect(refused.json['errcode']).toBe(9300806);
  });

  it('answers 40097 for an unknown task and 40101 without task_id', async () => {
    expect((await t.call('getguidemassendjob', { task_id: '1860131524965138433' })).json['errcode']).toBe(
      40097,
    );
    expect((await t.call('getguidemassendjob', {})).json['errcode']).toBe(40101);
  });
});
