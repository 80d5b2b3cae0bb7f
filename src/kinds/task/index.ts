import { ifDefined } from '../../core/records.js';
import { AS_NORMALISED } from '../config-port.js';
import type { KindModule } from '../kind-module.js';
import { TASK_DIGEST, TASK_EXPORT } from './export.js';
import { normaliseTaskSection } from './normalise.js';
import { TASK_PLAN } from './plan.js';
import { TASK_READ, taskReadScope } from './read.js';
import { checkTaskRules, TASK_MESSAGES } from './rules.js';
import { TASK_SCHEMA } from './schema.js';
import { TASK_WRITES } from './writes.js';

/** The mass-send task kind, as the registry lists it. */
export const TASK_KIND = {
  schema: TASK_SCHEMA,
  messages: TASK_MESSAGES,
  writes: TASK_WRITES,
  // Config and the desired digest.
  check: checkTaskRules,
  normalise: normaliseTaskSection,
  desiredDigest: AS_NORMALISED,
  // Planning: its steps of a plan, and where its changes go in the plan's output.
  plan: TASK_PLAN,
  changeSection: { resource: 'task', rank: 3 },
  // Its part of the live state: read, digest, export (live/, plan/digest.ts, report/export.ts).
  readScope: (desired) => ifDefined('tasks', taskReadScope(desired)),
  read: TASK_READ,
  digest: TASK_DIGEST,
  export: TASK_EXPORT,
} as const satisfies KindModule;
