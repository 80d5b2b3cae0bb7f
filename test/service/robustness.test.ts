import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from '../../src/wire/operations.js';
import { guideBody, startTestService, type TestService } from '../helpers/service.js';

// Bodies made of the API's own field names with values of every type, seeded so that a failure
// repeats: whatever arrives, the service answers 200 with an errcode, never a 500, a hang or an
// internal error (the helper's close() fails the file if one was logged).

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
  await t.ok('addguideacct', guideBody('fuzz_guide'));
});
afterAll(() => t.close());

const FIELDS = [
  'guide_account',
  'guide_openid',
  'guide_nickname',
  'guide_headimgurl',
  'page',
  'num',
  'offset',
  'limit',
  'is_delete',
  'guide_fast_reply_list',
  'guide_auto_reply',
  'guide_auto_reply_plus',
  'black_keyword',
  'values',
  'group_id',
  'group_name',
  'task_id',
  'task_name',
  'task_remark',
  'push_time',
  'openid',
  'material',
  'msgtype',
  'content',
  'qrcode_info',
  'begin_time',
  'end_time',
  'task_status',
  'wxa_appid',
  'wx_username',
  'type',
  'word',
  'media_id',
  'title',
  'path',
  'appid',
];

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function value(r: () => number, depth: number): string {
  const pick = Math.floor(r() * (depth > 2 ? 9 : 12));
  switch (pick) {
    case 0:
      return 'null';
    case 1:
      return 'true';
    case 2:
      return '""';
    case 3:
      return JSON.stringify('fuzz_guide');
    case 4:
      return String(Math.floor(r() * 200) - 50);
    case 5:
      return '18446744073709551616';
    case 6:
      return '1860131524965138433';
    case 7:
      return JSON.stringify('x'.repeat(Math.floor(r() * 400)));
    case 8:
      return '-1.5e300';
    case 9:
      return `[${Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1)).join(',')}]`;
    default:
      return body(r, depth + 1);
  }
}

function body(r: () => number, depth = 0): string {
  const n = Math.floor(r() * 6);
  const fields = Array.from(
    { length: n },
    () => `${JSON.stringify(FIELDS[Math.floor(r() * FIELDS.length)])}:${value(r, depth)}`,
  );
  return `{${fields.join(',')}}`;
}

describe('random bodies', () => {
  it.each(OPERATION_NAMES)('%s answers every one of 40 random bodies with an errcode', async (op) => {
    const r = random(op.length * 7919);
    for (let i = 0; i < 40; i++) {
      const text = body(r);
      const answer = await t.call(op, text);
      expect(answer.status, text).toBe(200);
      expect(typeof answer.json['errcode'], text).toBe('number');
      expect(answer.json['errcode'], text).not.toBe(-1);
    }
  });
});
