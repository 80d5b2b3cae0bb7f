import { describeTask } from '../../src/core/desired.js';
import type { LiveState } from '../../src/core/live.js';
import { PlanBuilder } from '../../src/kinds/plan-builder.js';
import { CHANGE_ORDER } from '../../src/kinds/registry.js';
import { liveState } from './plan-builder.js';

/**
 * A plan builder that names subjects as the planner does against `live`: for the tests of one
 * kind's planner on its own.
 */
export function builderFor(live: LiveState = liveState()): PlanBuilder {
  const groups = new Map(live.groups.map((g) => [g.id, g.name]));
  const tasks = new Map((live.tasks ?? []).map((t) => [t.id, describeTask(t.guide, t.name)]));
  return new PlanBuilder(
    { groupName: (id) => groups.get(id), taskName: (id) => tasks.get(id) },
    CHANGE_ORDER,
  );
}
