import type { GuideId } from './desired.js';
import type { LiveTask, LiveTaskStatus } from './live.js';

/**
 * A mass-send task's state, by name: `pending` not yet executed (wire 1), `executed` (2),
 * `completed` (3, delivered), `cancelled` (4). Only a pending task can change. The planner's
 * {@link LiveTask} never holds a cancelled task.
 */
export type TaskState = LiveTaskStatus | 'cancelled';

/**
 * The states a `--status` filter names: the words the task table shows, in the order a task goes
 * through them. `executed` covers executed and completed tasks (both are history); `completed`,
 * only those delivered.
 */
export const TASK_STATUS_FILTERS = ['pending', 'executed', 'completed', 'cancelled'] as const;
export type TaskStatusFilter = (typeof TASK_STATUS_FILTERS)[number];

/**
 * A live mass-send task as `guidectl tasks` shows it: the {@link LiveTask} the planner reads, its
 * own fields the same, with cancelled tasks too and counts in place of the recipients and
 * materials (an account's every task is listed, so a summary holds no list of openids).
 * Invariants: `recipients` counts distinct openids.
 */
export interface TaskSummary extends Pick<LiveTask, 'id' | 'guide' | 'name' | 'remark' | 'pushAt'> {
  readonly state: TaskState;
  readonly recipients: number;
  readonly materials: number;
}

/**
 * One chat message between a guide and a customer, as the API answered it. `time` is Unix
 * seconds; `contentType` 1 text, 3 image, 49 mini-program card (another number is kept as it
 * came); `direction` 1 guide to customer, 2 customer to guide.
 */
export interface ChatRecord {
  readonly guide: GuideId;
  readonly customer: string;
  readonly time: number;
  readonly content: string;
  readonly contentType: number;
  readonly direction: number;
}
