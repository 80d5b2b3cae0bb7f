import { describe, expect, it } from 'vitest';
import { listTasks, type TaskReader } from '../../src/inspect/list-tasks.js';
import type { Id64 } from '../../src/wire/ids.js';
import type { MassendTask } from '../../src/wire/messages.js';

/** An account of `n` guides (g0000…), each with one pending task; counts the lists being read at once. */
function account(n: number): TaskReader & { most: number } {
  let reading = 0;
  const reader = {
    most: 0,
    async *iterateGuideAcctList() {
      for (let i = 0; i < n; i++)
        yield { guide_account: `g${String(i).padStart(4, '0')}`, guide_headimgurl: '', guide_nickname: '' };
    },
    async *iterateGuideMassendJobList(request: { guide_account?: string }) {
      reading++;
      reader.most = Math.max(reader.most, reading);
      // Pending until the next microtask: every worker of the window starts its read before any
      // read ends, so `most` is the window, with no timer and no real wait.
      await Promise.resolve();
      const task: MassendTask = {
        task_id: String(1_000 + Number(request.guide_account?.slice(1))) as Id64,
        guide_account: request.guide_account ?? '',
        create_time: 0,
        update_time: 0,
        push_time: 100,
        finish_time: 0,
        task_name: 'T',
        task_remark: '',
        task_status: 1,
        material: [],
        buyer_info: [
          { openid: 'a', send_status: 1 },
          { openid: 'b', send_status: 1 },
        ],
      };
      yield task;
      reading--;
    },
  };
  return reader as unknown as TaskReader & { most: number };
}

describe('listTasks', () => {
  it('reads a window of guides at a time, not one pending read per guide, and keeps the guide order', async () => {
    const reader = account(1_000);
    const progress: number[] = [];
    const tasks = await listTasks(reader, {}, (done) => progress.push(done), 16);
    expect(tasks).toHaveLength(1_000);
    expect(reader.most).toBe(16);
    expect(tasks.map((t) => t.id)).toEqual(Array.from({ length: 1_000 }, (_, i) => String(1_000 + i)));
    expect(tasks[0]).toMatchObject({
      guide: { kind: 'account', account: 'g0000' },
      state: 'pending',
      recipients: 2,
    });
    expect(progress).toEqual(Array.from({ length: 1_000 }, (_, i) => i + 1));
  });
});
