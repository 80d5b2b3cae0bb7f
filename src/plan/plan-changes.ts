import { compareText } from '../core/compare-text.js';
import { type DesiredState, describeGuideId, describeTask, guideKey } from '../core/desired.js';
import { type Diagnostic, hasErrors } from '../core/diagnostics.js';
import type { LiveGuide, LiveState } from '../core/live.js';
import { PLAN_FORMAT_VERSION, type Plan } from '../core/plan.js';
import { ifDefined } from '../core/records.js';
import { planAccount } from '../kinds/account/plan.js';
import { deleteCopies, matchGroups, planGroupCreations, planGroupDeletions } from '../kinds/group/plan.js';
import { planGuideDeletions, planGuides } from '../kinds/guide/plan.js';
import { planGuideConfig } from '../kinds/guide-config/plan.js';
import type { SubjectNames } from '../kinds/kind.js';
import { checkMembersExist, planMemberships } from '../kinds/membership/plan.js';
import { PlanBuilder } from '../kinds/plan-builder.js';
import { TASK_KIND } from '../kinds/task/index.js';

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
 * Order of calls: groups created, guides created or updated, configuration (guides, then the
 * account), memberships (adds, then removes), tasks (adds and updates, then cancellations),
 * deletions (guides, then groups). Within each step
 * resources go by address (guides by key, groups by name), so moving a guide between files does
 * not change the plan.
 */
export function planChanges(desired: DesiredState, live: LiveState): PlanResult {
  const liveGuides = new Map<string, LiveGuide>(live.guides.map((g) => [guideKey(g.id), g]));
  const desiredGuides = [...desired.guides].sort((a, b) => compareText(guideKey(a.id), guideKey(b.id)));
  const desiredKeys = new Set(desiredGuides.map((g) => guideKey(g.id)));
  const desiredGroups = [...desired.groups].sort((a, b) => compareText(a.name, b.name));

  const { matchedGroups, duplicates, warnings } = matchGroups(desiredGroups, live.groups);

  const liveAccounts = new Set(live.guides.flatMap((g) => (g.id.kind === 'account' ? [g.id.account] : [])));
  const diagnostics = checkMembersExist(desired, desiredGuides, desiredGroups, liveAccounts);
  if (diagnostics.length > 0) return { diagnostics };

  const b = new PlanBuilder(namesIn(live));

  // 1. Groups created.
  planGroupCreations(b, desiredGroups, matchedGroups);

  // 2. Guides created or updated.
  const { guideFields, addedAt } = planGuides(b, desiredGuides, liveGuides);

  // 3. Configuration: each guide's quick replies and welcome messages, then the account.
  const tooLarge: Diagnostic[] = [];
  for (const guide of desiredGuides) {
    const key = guideKey(guide.id);
    const fields = guideFields.get(key) ?? [];
    planGuideConfig(b, guide, liveGuides.get(key), fields, tooLarge);
    if (fields.length > 0) {
      b.change({
        resource: 'guide',
        action: addedAt.has(key) ? 'create' : 'update',
        address: describeGuideId(guide.id),
        fields,
      });
    }
  }
  planAccount(b, desired, live, tooLarge);

  // 4. Memberships of the groups the file names.
  const deletedAccounts = new Set(
    desired.prune.guides
      ? live.guides.flatMap((g) =>
          g.id.kind === 'account' && !desiredKeys.has(guideKey(g.id)) ? [g.id.account] : [],
        )
      : [],
  );
  const moves = planMemberships(b, desiredGroups, {
    matchedGroups,
    duplicates,
    liveAccounts,
    deletedAccounts,
  });

  // 5. Tasks: added, updated, cancelled (after the guides they need are created).
  const tasks = TASK_KIND.plan(b, desired, live, {
    now: taskClock(desired, live),
    guidesAfter: new Set([
      ...desiredKeys,
      ...(desired.prune.guides ? [] : live.guides.map((g) => guideKey(g.id))),
    ]),
  });
  if (tooLarge.length > 0 || hasErrors(tasks.diagnostics))
    return { diagnostics: [...tooLarge, ...tasks.diagnostics] };

  // 6. Deletions, or mentions of what is left alone.
  const unmanaged = [
    ...planGuideDeletions(b, desired, live, desiredKeys),
    ...planGroupDeletions(b, desired, live),
    ...tasks.unmanaged,
  ];
  deleteCopies(b, desiredGroups, duplicates, moves);

  const semantics = desired.account?.sensitiveWords?.semantics;
  return {
    diagnostics: [...warnings, ...tasks.diagnostics],
    plan: {
      formatVersion: PLAN_FORMAT_VERSION,
      summary: b.summary(),
      changes: b.sortedChanges(),
      calls: b.calls,
      unmanaged,
      ...ifDefined('sensitiveWordSemantics', semantics),
    },
  };
}

/** The "now" of the task rules: when the live state was read. Tasks need it; a read without a clock is a bug. */
function taskClock(desired: DesiredState, live: LiveState): number {
  if (desired.tasks !== undefined && live.readAt === undefined)
    throw new Error('planChanges: tasks are managed but the live state has no readAt (the time of the read)');
  return live.readAt ?? 0;
}
