import type { GuideId } from './desired.js';

/**
 * A mass-send task's state, by name: `pending` not yet executed (wire 1), `executed` (2),
 * `completed` (3, delivered), `cancelled` (4). Only a pending task can change.
 */
export type TaskState = 'pending' | 'executed' | 'completed' | 'cancelled';

/** The states a `--status` filter names: `executed` covers executed and completed tasks. */
export type TaskStatusFilter = 'pending' | 'executed' | 'cancelled';

/**
 * A live mass-send task as `guidectl tasks` shows it. Invariants: `id` is the task's unsigned
 * 64-bit id as a canonical decimal string (never a double); `pushTime` is Unix seconds;
 * `recipients` counts distinct openids.
 */
export interface TaskSummary {
  readonly id: string;
  readonly guide: GuideId;
  readonly name: string;
  readonly remark: string;
  readonly pushTime: number;
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
