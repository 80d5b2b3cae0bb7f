import { compareText } from '../core/compare-text.js';
import { type DesiredState, describeTask, guideKey } from '../core/desired.js';
import { type Diagnostic, hasErrors } from '../core/diagnostics.js';
import type { LiveGuide, LiveState } from '../core/live.js';
import { PLAN_FORMAT_VERSION, type Plan } from '../core/plan-data.js';
import { ifDefined } from '../core/records.js';
import type { SubjectNames } from '../kinds/kind.js';
import { PlanBuilder } from '../kinds/plan-builder.js';
import { PLAN_PHASES, type PlanContext, PlanFacts } from '../kinds/plan-context.js';
import { CHANGE_ORDER, KINDS, PLAN_ORDER } from '../kinds/registry.js';

export interface PlanResult {
  /** Present exactly when there is no error. */
  readonly plan?: Plan;
  /** Plan errors (and warnings), each pinned to the place in the file that causes it. */
  readonly diagnostics: readonly Diagnostic[];
}

/** The names of the groups and tasks `live` holds, by id: what calls' subjects show. */
function namesIn(live: LiveState): SubjectNames {
  const groupNames = new Map(live.groups.map((g) => [g.id, g.name]));
  const taskNames = new Map((live.tasks ?? []).map((t) => [t.id, describeTask(t.guide, t.name)]));
  return { groupName: (id) => groupNames.get(id), taskName: (id) => taskNames.get(id) };
}

/**
 * Computes the plan that makes `live` match `desired`: the changes, and the exact ordered list of
 * calls. Pure: no I/O, no clock; the same input gives the same plan, byte for byte.
 *
 * The kinds' steps run phase by phase (`PLAN_PHASES`), the kinds of a phase in `PLAN_ORDER`. So
 * calls go: groups created, guides created or updated, configuration (guides, then the account),
 * memberships (adds, then removes), tasks (adds and updates, then cancellations), deletions
 * (guides, then groups), then the copies of declared groups. Within each step resources go by
 * address (guides by key, groups by name), so moving a guide between files does not change the
 * plan.
 */
export function planChanges(desired: DesiredState, live: LiveState): PlanResult {
  const ctx = contextOf(desired, live);
  for (const phase of PLAN_PHASES) {
    for (const kind of PLAN_ORDER[phase]) KINDS[kind].plan[phase]?.(ctx);
    // What the files name must exist before anything is planned: past that, more errors are noise.
    if (phase === 'check' && hasErrors(ctx.diagnostics)) return { diagnostics: ctx.diagnostics };
  }
  if (hasErrors(ctx.diagnostics)) return { diagnostics: ctx.diagnostics };

  const semantics = desired.account?.sensitiveWords?.semantics;
  return {
    diagnostics: [...ctx.planNotes, ...ctx.diagnostics],
    plan: {
      formatVersion: PLAN_FORMAT_VERSION,
      summary: ctx.builder.summary(),
      changes: ctx.builder.sortedChanges(),
      calls: ctx.builder.calls,
      unmanaged: ctx.unmanaged,
      ...ifDefined('sensitiveWordSemantics', semantics),
    },
  };
}

/** The context of one plan: the states, sorted by address, and nothing found yet. */
function contextOf(desired: DesiredState, live: LiveState): PlanContext {
  const desiredGuides = [...desired.guides].sort((a, b) => compareText(guideKey(a.id), guideKey(b.id)));
  return {
    builder: new PlanBuilder(namesIn(live), CHANGE_ORDER),
    desired,
    live,
    desiredGuides,
    desiredGroups: [...desired.groups].sort((a, b) => compareText(a.name, b.name)),
    liveGuides: new Map<string, LiveGuide>(live.guides.map((g) => [guideKey(g.id), g])),
    desiredKeys: new Set(desiredGuides.map((g) => guideKey(g.id))),
    liveAccounts: new Set(live.guides.flatMap((g) => (g.id.kind === 'account' ? [g.id.account] : []))),
    diagnostics: [],
    planNotes: [],
    unmanaged: [],
    facts: new PlanFacts(),
  };
}
