import type { CallBody, CallSubject, PlannedOperation } from '../core/plan-data.js';
import { WRITE_EFFECTS } from '../kinds/registry.js';

/**
 * The subject of a call (see {@link CallSubject}): whom its operation acts on, read from the body
 * the planner wrote for it. `groupName` gives the name of a live group the body names by id.
 * The one place a call's subject is made: the planner fills each call's subject with it, and a
 * saved plan's subjects are computed again with it rather than trusted, so the two cannot
 * disagree; renderers read `subject` and never a body. Undefined when
 * the body lacks what its operation needs (only a saved plan edited by hand can). `taskName` names a
 * live task by its id, as {@link describeTask} does.
 */
export function callSubject(
  operation: PlannedOperation,
  body: CallBody,
  groupName: (id: string) => string | undefined,
  taskName: (id: string) => string | undefined = () => undefined,
): CallSubject | undefined {
  return WRITE_EFFECTS[operation].subject(body, { groupName, taskName });
}
