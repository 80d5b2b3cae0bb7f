import type { GuideClient } from '../client/index.js';
import type { TaskState, TaskStatusFilter, TaskSummary } from '../core/account-records.js';
import type { GuideId } from '../core/desired.js';
import { mapLimited } from '../core/map-limited.js';
import { guideIdOf, wireGuideIdentity } from '../wire/guide-identity.js';
import type { MassendTask, TaskStatus } from '../wire/messages.js';
import { interruptedRead } from './interrupted.js';

/** What `listTasks` reads with: the guide list and each guide's task list, every page. */
export type TaskReader = Pick<GuideClient, 'iterateGuideAcctList' | 'iterateGuideMassendJobList'>;

/** The wire states each filter asks for (`executed` covers completed: both are history). */
const FILTERS: Readonly<Record<TaskStatusFilter, readonly TaskStatus[]>> = {
  pending: [1],
  executed: [2, 3],
  completed: [3],
  cancelled: [4],
};

const STATES: Readonly<Record<TaskStatus, TaskState>> = {
  1: 'pending',
  2: 'executed',
  3: 'completed',
  4: 'cancelled',
};

/** Guides whose task lists are read at once (the client bounds the calls in flight below this). */
const TASK_READ_WINDOW = 256;

export interface TaskQuery {
  /** One guide; every guide of the account when absent. */
  readonly guide?: GuideId;
  readonly status?: TaskStatusFilter;
}

/**
 * The live tasks of one guide or of every guide, every page of each, filtered by the service
 * (`task_status`), `window` guides at a time, each guide's tasks in the order listed;
 * `onGuideDone` counts the guides read, for progress.
 */
export async function listTasks(
  reader: TaskReader,
  query: TaskQuery,
  onGuideDone?: (done: number, total: number) => void,
  window = TASK_READ_WINDOW,
): Promise<TaskSummary[]> {
  try {
    return await readTasks(reader, query, onGuideDone, window);
  } catch (error) {
    throw interruptedRead(error, 'the tasks');
  }
}

async function readTasks(
  reader: TaskReader,
  query: TaskQuery,
  onGuideDone: ((done: number, total: number) => void) | undefined,
  window: number,
): Promise<TaskSummary[]> {
  const guides: GuideId[] = [];
  if (query.guide !== undefined) guides.push(query.guide);
  else {
    for await (const item of reader.iterateGuideAcctList()) {
      const id = guideIdOf(item);
      if (id !== undefined) guides.push(id);
    }
  }
  let done = 0;
  // Only `window` lists are read at once, not one pending read per guide held in memory.
  const perGuide = await mapLimited(guides, window, async (guide) => {
    const request = {
      ...wireGuideIdentity(guide),
      ...(query.status === undefined ? {} : { task_status: FILTERS[query.status] }),
    };
    const tasks: TaskSummary[] = [];
    for await (const task of reader.iterateGuideMassendJobList(request)) tasks.push(summarise(task, guide));
    onGuideDone?.(++done, guides.length);
    return tasks;
  });
  return perGuide.flat();
}

function summarise(task: MassendTask, listedFor: GuideId): TaskSummary {
  return {
    id: task.task_id,
    guide: guideIdOf(task) ?? listedFor,
    name: task.task_name,
    remark: task.task_remark,
    pushAt: task.push_time,
    state: STATES[task.task_status],
    recipients: new Set(task.buyer_info.map((b) => b.openid)).size,
    materials: task.material.length,
  };
}
