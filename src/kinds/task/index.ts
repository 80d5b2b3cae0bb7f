import type { KindModule } from '../kind-module.js';
import { canonicalTask, exportTasks } from './export.js';
import { normaliseTask } from './normalise.js';
import { planTasks } from './plan.js';
import { readGuideTasks, taskReadScope } from './read.js';
import { TASK_MESSAGES } from './rules.js';
import { TASK_SCHEMA } from './schema.js';
import { TASK_WRITES } from './writes.js';

/** The task kind (mass-send tasks) as one module: each part of guidectl asks it one thing. */
export interface TaskKind extends KindModule {
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
  readonly writes: typeof TASK_WRITES;
}

export const TASK_KIND: TaskKind = {
  kind: 'task',
  schema: TASK_SCHEMA,
  messages: TASK_MESSAGES,
  writes: TASK_WRITES,
  normalise: normaliseTask,
  readScope: taskReadScope,
  read: readGuideTasks,
  plan: planTasks,
  export: exportTasks,
  fingerprint: canonicalTask,
};
