import { unixSeconds } from '../../core/clock.js';
import { compareText } from '../../core/compare-text.js';
import { type DesiredState, type GuideId, guideKey } from '../../core/desired.js';
import type { LiveMaterial, LiveTask, LiveTaskStatus } from '../../core/live.js';
import { wireGuideIdentity } from '../../wire/guide-identity.js';
import type { MassendTask, MaterialRead, TaskStatus } from '../../wire/messages.js';
import type { GuideReads, KindRead, ReadContext } from '../live-read.js';
import type { ReadPort } from '../read-port.js';

/** What the task kind reads: each guide's task list. */
export type TaskRead = ReadPort<'getguidemassendjoblist'>;

/**
 * The guides whose tasks a plan of `desired` reads: with a `tasks:` list (even an empty one, which
 * manages the tasks of every guide the files name), those of the guides declared and of those the
 * tasks name; without one, none (undefined).
 */
export function taskReadScope(desired: DesiredState): ReadonlySet<string> | undefined {
  const tasks = desired.tasks;
  if (tasks === undefined) return undefined;
  return new Set([...desired.guides.map((g) => guideKey(g.id)), ...tasks.map((t) => guideKey(t.guide))]);
}

/**
 * The tasks of each guide in scope, with the time the read began (the "now" of the task rules);
 * neither when no task is read.
 */
export const TASK_READ: KindRead = { perGuide: startTaskReads };

const NO_TASK_READS: GuideReads = { add: () => {}, finish: async () => {} };

function startTaskReads(context: ReadContext): GuideReads {
  const wanted = context.scope.tasks;
  if (wanted === undefined) return NO_TASK_READS;
  const readAt = unixSeconds(context.clock);
  const reads: Promise<LiveTask[]>[] = [];
  return {
    add: (guide, key) => {
      if (wanted !== 'all' && !wanted.has(key)) return;
      reads.push(context.start((port) => readGuideTasks(port, guide, context.pageSize)));
    },
    finish: async (draft) => {
      draft.tasks = (await Promise.all(reads)).flat();
      draft.readAt = readAt;
    },
  };
}

/** The statuses read: not yet executed, executed, completed. Cancelled tasks are never matched. */
const READ_STATUSES: readonly TaskStatus[] = [1, 2, 3];

/**
 * Every task of one guide but the cancelled ones. The first page tells the total and how many the
 * server serves a page; the other pages are then asked for at once (by offset), and paging goes on
 * one page at a time if they fall short (a server paging otherwise) until the total or an empty page.
 */
export async function readGuideTasks(read: TaskRead, guide: GuideId, pageSize: number): Promise<LiveTask[]> {
  const identity = wireGuideIdentity(guide);
  const seen = new Map<string, LiveTask>();
  const page = (offset: number): Promise<number> =>
    read('getguidemassendjoblist', { ...identity, task_status: READ_STATUSES, offset, limit: pageSize }).then(
      (answer) => {
        for (const item of answer.list) {
          const task = toLiveTask(item, guide);
          if (task !== undefined && !seen.has(task.id)) seen.set(task.id, task);
        }
        total = answer.total_count;
        return answer.list.length;
      },
    );
  let total = 0;
  const served = await page(0);
  if (served === 0 || seen.size >= total) return [...seen.values()];
  const pages = Math.ceil(total / served);
  const counts = await Promise.all(Array.from({ length: pages - 1 }, (_, i) => page((i + 1) * served)));
  let offset = pages * served;
  let empty = counts.includes(0);
  while (!empty && seen.size < total) {
    empty = (await page(offset)) === 0;
    offset += served;
  }
  return [...seen.values()];
}

function statusOf(status: TaskStatus): LiveTaskStatus | undefined {
  switch (status) {
    case 1:
      return 'pending';
    case 2:
      return 'executed';
    case 3:
      return 'completed';
    case 4:
      return undefined;
    default: {
      const unreachable: never = status;
      return unreachable;
    }
  }
}

/** A task as the live model holds it; undefined for a cancelled one (a server that ignored the filter). */
function toLiveTask(item: MassendTask, guide: GuideId): LiveTask | undefined {
  const status = statusOf(item.task_status);
  if (status === undefined) return undefined;
  return {
    id: item.task_id,
    guide,
    name: item.task_name,
    remark: item.task_remark,
    pushAt: item.push_time,
    status,
    recipients: [...new Set(item.buyer_info.map((b) => b.openid))].sort(compareText),
    materials: item.material.map(toLiveMaterial),
  };
}

function toLiveMaterial(m: MaterialRead): LiveMaterial {
  switch (m.type) {
    case 1:
      return { type: 'text', text: m.word ?? '' };
    case 3:
      return { type: 'image', picUrl: m.pic_url ?? '' };
    case 49:
      return { type: 'miniprogram', appid: m.appid ?? '', title: m.title ?? '', path: m.path ?? '' };
    default: {
      const unreachable: never = m.type;
      return unreachable;
    }
  }
}
