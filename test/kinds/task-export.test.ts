import { describe, expect, it } from 'vitest';
import { UNKNOWN_MEDIA_ID } from '../../src/core/guide-rules.js';
import type { LiveTask } from '../../src/core/live.js';
import { canonicalTask, exportTasks } from '../../src/kinds/task/export.js';

// The task kind's outputs: the pending tasks as a file writes them, and a task as the plan's
// digests cover it.

const NOW = 1_796_000_000; // 2026-11-30T00:53:20Z
const amy = { kind: 'account', account: 'amy_wx' } as const;
const bob = { kind: 'openid', openid: 'oBob' } as const;

const task = (id: string, name: string, over: Partial<LiveTask> = {}): LiveTask => ({
  id,
  guide: amy,
  name,
  remark: '',
  pushAt: NOW + 3600,
  status: 'pending',
  recipients: ['oA', 'oB'],
  materials: [{ type: 'text', text: 'yes' }],
  ...over,
});

describe('the task kind exports', () => {
  it('the pending tasks by guide and name, the oldest of a name, times in UTC', () => {
    const warnings: string[] = [];
    const written = exportTasks(
      [
        task('9007199254740995', 'Sale', { remark: 'later copy' }),
        task('12', 'Done', { status: 'executed', pushAt: NOW - 60 }),
        task('14', 'Sale', { guide: bob }),
        task('9007199254740993', 'Sale', { remark: 'kept' }),
      ],
      warnings,
    );
    expect(written).toEqual([
      {
        name: 'Sale',
        guide: 'amy_wx',
        remark: 'kept',
        push_at: '2026-11-30T01:53:20Z',
        recipients: ['oA', 'oB'],
        materials: [{ text: 'yes' }],
      },
      {
        name: 'Sale',
        guide_openid: 'oBob',
        push_at: '2026-11-30T01:53:20Z',
        recipients: ['oA', 'oB'],
        materials: [{ text: 'yes' }],
      },
    ]);
    expect(warnings).toEqual([
      'task "Sale" of amy_wx (id 9007199254740995) has the name of another pending task of the guide and was left out: a plan of the file keeps the one written and cancels this copy',
    ]);
  });

  it('an image or a card with the placeholder for the media id that cannot be read back, and says so', () => {
    const warnings: string[] = [];
    const written = exportTasks(
      [
        task('1', 'Pic', {
          materials: [
            { type: 'image', picUrl: 'https://x/y/0' },
            { type: 'miniprogram', appid: 'wx1234567890abcdef', title: 'Shop', path: 'pages/index' },
          ],
        }),
      ],
      warnings,
    );
    expect(written).toEqual([
      expect.objectContaining({
        materials: [
          { image: UNKNOWN_MEDIA_ID },
          {
            miniprogram: {
              appid: 'wx1234567890abcdef',
              title: 'Shop',
              path: 'pages/index',
              media_id: UNKNOWN_MEDIA_ID,
            },
          },
        ],
      }),
    ]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain(`task "Pic" of amy_wx: an image's media_id cannot be read back`);
    expect(warnings[1]).toContain(`task "Pic" of amy_wx: a mini-program card's media_id cannot be read back`);
  });
});

describe('the task kind fingerprints', () => {
  it('a task with its guide as a key, every other field as read', () => {
    const live = task('7', 'Sale', { guide: bob, status: 'completed' });
    expect(canonicalTask(live)).toEqual({ ...live, guide: 'openid:oBob' });
  });
});
