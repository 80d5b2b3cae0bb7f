import { describe, expect, it } from 'vitest';
import { normaliseTask } from '../../src/kinds/task/normalise.js';

// The task kind's normalising: a task as written, once checked, as the planner reads it.

const source = { file: 't.yaml', line: 3, column: 5 };

describe('the task kind normalises', () => {
  it('a task by account: its push time with its offset, recipients as a sorted set, no remark as empty', () => {
    const task = normaliseTask(
      {
        name: 'Sale',
        guide: 'alice_wx',
        push_at: '2026-12-01T09:30:00+08:00',
        materials: [{ text: 'Hello' }, { image: 'IMG_1' }],
      },
      ['oB', 'oA', 'oB'],
      source,
    );
    expect(task).toEqual({
      name: 'Sale',
      guide: { kind: 'account', account: 'alice_wx' },
      remark: '',
      pushAt: Date.UTC(2026, 11, 1, 1, 30) / 1000,
      offsetMinutes: 480,
      recipients: ['oA', 'oB'],
      materials: [
        { type: 'text', text: 'Hello' },
        { type: 'image', mediaId: 'IMG_1' },
      ],
      source,
    });
  });

  it('a task by openid, with its remark and a card', () => {
    const task = normaliseTask(
      {
        name: 'Card',
        guide_openid: 'oGuide',
        remark: 'for regulars',
        push_at: '2026-12-01T01:30:00Z',
        materials: [{ miniprogram: { appid: 'wx1', title: 'Shop', path: 'pages/index', media_id: 'M' } }],
      },
      [],
      source,
    );
    expect(task).toMatchObject({
      guide: { kind: 'openid', openid: 'oGuide' },
      remark: 'for regulars',
      offsetMinutes: 0,
      materials: [{ type: 'miniprogram', appid: 'wx1', title: 'Shop', path: 'pages/index', mediaId: 'M' }],
    });
  });

  it('refuses a task the checks should have stopped: that is a bug, not a user error', () => {
    expect(() =>
      normaliseTask({ name: 'X', guide: 'a_wx', push_at: 'soon', materials: [] }, [], source),
    ).toThrow('normalise: a task without a guide or a push time passed the checks');
  });
});
