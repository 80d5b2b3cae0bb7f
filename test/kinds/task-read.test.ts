import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuideClient, type GuideClient } from '../../src/client/index.js';
import type { DesiredState } from '../../src/core/desired.js';
import { readGuideTasks, type TaskRead, taskReadScope } from '../../src/kinds/task/read.js';
import { FAST_RETRY } from '../client/helpers.js';
import { guideBody, startTestService, type TestService } from '../helpers/service.js';

// The task kind's read, through its port, against the guide service on 127.0.0.1: what it asks
// for and how it decodes the answers, without the live reader around it.

let t: TestService;
let client: GuideClient;
let now: number;
const alice = { kind: 'account', account: 'alice_wx' } as const;

/** The port over the client, counting the calls made through it. */
function countingPort(): { read: TaskRead; calls: string[] } {
  const calls: string[] = [];
  const read: TaskRead = (operation, request) => {
    calls.push(operation);
    return client[operation](request);
  };
  return { read, calls };
}

async function addTask(name: string, material: unknown[]): Promise<string> {
  const answer = await t.call('addguidemassendjob', {
    guide_account: 'alice_wx',
    task_name: name,
    push_time: now + 3600,
    openid: ['oCustomer2', 'oCustomer1'],
    material,
  });
  // The id as written: a 64-bit id does not fit a JavaScript number.
  const id = /"task_id":([0-9]+)/.exec(answer.text)?.[1];
  if (id === undefined) throw new Error(answer.text);
  return id;
}

/** alice_wx with two customers and five tasks: a text, an image, a card, two more; one cancelled. */
beforeAll(async () => {
  t = await startTestService();
  client = createGuideClient({ baseUrl: t.url, auth: t.service.credentials, retry: FAST_RETRY });
  now = Number((await t.sim('clock'))['now']);
  await t.ok('addguideacct', guideBody('alice_wx'));
  for (const openid of ['oCustomer1', 'oCustomer2']) {
    await t.sim('follow', { openid });
    const { qrcode_url } = await t.ok('guidecreateqrcode', { guide_account: 'alice_wx' });
    await t.sim('scan', { openid, qrcode_url });
  }
  await addTask('Text', [{ type: 1, word: 'Hello' }]);
  await addTask('Image', [{ type: 3, media_id: 'IMG_1' }]);
  await addTask('Card', [
    { type: 49, title: 'Shop', path: 'pages/index', appid: 'wx1234567890abcdef', media_id: 'COVER_1' },
  ]);
  await addTask('Fourth', [{ type: 1, word: 'four' }]);
  const cancelled = await addTask('Cancelled', [{ type: 1, word: 'gone' }]);
  await t.ok('cancelguidemassendjob', { task_id: cancelled });
});
afterAll(async () => {
  await client.close();
  await t.close();
});

describe('the task kind reads', () => {
  it('every task of a guide but the cancelled ones, a page at a time, through its port', async () => {
    const { read, calls } = countingPort();
    const tasks = await readGuideTasks(read, alice, 2);
    expect(tasks.map((task) => task.name).sort()).toEqual(['Card', 'Fourth', 'Image', 'Text']);
    // Four tasks in pages of two: the first page tells the total, the second is asked for then.
    expect(calls).toEqual(['getguidemassendjoblist', 'getguidemassendjoblist']);
    for (const task of tasks) {
      expect(task).toMatchObject({ guide: alice, status: 'pending', pushAt: now + 3600, remark: '' });
      expect(task.recipients).toEqual(['oCustomer1', 'oCustomer2']);
    }
  });

  it('each material as the live model holds it: an image by its picture URL, a card without its cover', async () => {
    const tasks = await readGuideTasks(countingPort().read, alice, 100);
    const materials = Object.fromEntries(tasks.map((task) => [task.name, task.materials]));
    expect(materials['Text']).toEqual([{ type: 'text', text: 'Hello' }]);
    expect(materials['Image']).toEqual([{ type: 'image', picUrl: expect.stringMatching(/^https?:\/\//) }]);
    expect(materials['Card']).toEqual([
      { type: 'miniprogram', appid: 'wx1234567890abcdef', title: 'Shop', path: 'pages/index' },
    ]);
  });
});

describe('the task kind reads for a plan', () => {
  const state = (tasks: DesiredState['tasks']): DesiredState => ({
    guides: [
      {
        id: alice,
        nickname: 'Alice',
        headImageUrl: 'https://img/a',
        source: { file: 't.yaml', line: 1, column: 1 },
      },
    ],
    groups: [],
    ...(tasks === undefined ? {} : { tasks }),
    prune: { guides: false, groups: false },
  });

  it('no tasks without a tasks list, and with one those of the guides declared and named', () => {
    expect(taskReadScope(state(undefined))).toBeUndefined();
    expect(taskReadScope(state([]))).toEqual(new Set(['account:alice_wx']));
    const bob = { kind: 'openid', openid: 'oBob' } as const;
    const task = {
      name: 'Sale',
      guide: bob,
      remark: '',
      pushAt: now,
      offsetMinutes: 0,
      recipients: [],
      materials: [],
      source: { file: 't.yaml', line: 9, column: 1 },
    };
    expect(taskReadScope(state([task]))).toEqual(new Set(['account:alice_wx', 'openid:oBob']));
  });
});
