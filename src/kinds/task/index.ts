import { AS_NORMALISED } from '../config-port.js';
import type { KindModule } from '../kind-module.js';
import { canonicalTask, exportTasks } from './export.js';
import { normaliseTaskSection } from './normalise.js';
import { TASK_PLAN } from './plan.js';
import { readGuideTasks, taskReadScope } from './read.js';
import { checkTaskRules, TASK_MESSAGES } from './rules.js';
import { TASK_SCHEMA } from './schema.js';
import { TASK_WRITES } from './writes.js';

/** The task kind (mass-send tasks) as one module: each part of guidectl asks it one thing. */
export interface TaskKind extends KindModule {
  readonly kind: 'task';
  /** The guides whose tasks a plan reads. */
  readonly readScope: typeof taskReadScope;
  /** One guide's tasks, through a read port. */
  readonly read: typeof readGuideTasks;
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
  readScope: taskReadScope,
  read: readGuideTasks,
  export: exportTasks,
  fingerprint: canonicalTask,
  // Config and the desired digest.
  check: checkTaskRules,
  normalise: normaliseTaskSection,
  desiredDigest: AS_NORMALISED,
  // Planning: its steps of a plan, and where its changes go in the plan's output.
  plan: TASK_PLAN,
  changeSection: { resource: 'task', rank: 3 },
};
