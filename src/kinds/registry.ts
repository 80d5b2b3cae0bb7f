import type { PlannedOperation } from '../core/plan.js';
import { ACCOUNT_WRITES } from './account/writes.js';
import { GROUP_WRITES } from './group/writes.js';
import { GUIDE_WRITES } from './guide/writes.js';
import { GUIDE_CONFIG_WRITES } from './guide-config/writes.js';
import type { DeletedKind, WriteEffects } from './kind.js';
import { MEMBERSHIP_WRITES } from './membership/writes.js';
import { TASK_WRITES } from './task/writes.js';

/**
 * The effect of every planned operation, each written once in its kind's `writes.ts`. Typed by
 * every operation, so the compiler names one that no kind writes.
 */
export const WRITE_EFFECTS: WriteEffects<PlannedOperation> = {
  ...GUIDE_WRITES,
  ...GUIDE_CONFIG_WRITES,
  ...GROUP_WRITES,
  ...MEMBERSHIP_WRITES,
  ...ACCOUNT_WRITES,
  ...TASK_WRITES,
};

/** The operation that creates or deletes a kind, for messages that name it. */
export function operationThat(does: 'creates' | 'deletes', kind: DeletedKind): PlannedOperation | undefined {
  return Object.values(WRITE_EFFECTS).find((effect) => effect[does] === kind)?.operation;
}
