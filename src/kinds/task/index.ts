import { canonicalTask, exportTasks } from './export.js';
import { normaliseTask } from './normalise.js';
import { planTasks } from './plan.js';
import { readGuideTasks, taskReadScope } from './read.js';

/**
 * The task kind (mass-send tasks) as one module: each part of guidectl asks it one thing. The other
 * kinds follow this shape, and a registry of them all comes later.
 */
export interface TaskKind {
  readonly kind: 'task';
  /** A task as written, once checked, as the planner reads it. */
  readonly normalise: typeof normaliseTask;
  /** The guides whose tasks a plan reads. */
  readonly readScope: typeof taskReadScope;
  /** One guide's tasks, through a read port. */
  readonly read: typeof readGuideTasks;
  /** The desired tasks against the live ones, as calls and changes. */
  readonly plan: typeof planTasks;
  /** The pending tasks as a file writes them. */
  readonly export: typeof exportTasks;
  /** A live task as the plan's digests cover it. */
  readonly fingerprint: typeof canonicalTask;
}

export const TASK_KIND: TaskKind = {
  kind: 'task',
  normalise: normaliseTask,
  readScope: taskReadScope,
  read: readGuideTasks,
  plan: planTasks,
  export: exportTasks,
  fingerprint: canonicalTask,
};
