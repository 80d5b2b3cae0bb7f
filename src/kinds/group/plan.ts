import { compareText, sortedText } from '../../core/compare-text.js';
import type { DesiredGroup, DesiredState } from '../../core/desired.js';
import type { Diagnostic } from '../../core/diagnostics.js';
import type { LiveGroup, LiveState } from '../../core/live.js';
import type { Unmanaged } from '../../core/plan-data.js';
import type { PlanBuilder } from '../plan-builder.js';
import type { KindPlan } from '../plan-context.js';
import { CREATE_GROUP, DELETE_GROUP } from './writes.js';

/**
 * Guide groups: matched with live groups by name, created when missing, deleted when pruned; the
 * copies of one declared name (left by two applies at once) merged into one and deleted.
 */

/**
 * The group kind's steps: declared groups matched with live ones (a warning for each with
 * copies, said with the plan), created, deleted; then the copies, once their members moved.
 */
export const GROUP_PLAN: KindPlan = {
  check: (ctx) => {
    const { matchedGroups, duplicates, warnings } = matchGroups(ctx.desiredGroups, ctx.live.groups);
    ctx.facts.set('matchedGroups', matchedGroups);
    ctx.facts.set('duplicates', duplicates);
    for (const w of warnings) ctx.planNotes.push(w);
  },
  create: (ctx) => planGroupCreations(ctx.builder, ctx.desiredGroups, ctx.facts.get('matchedGroups')),
  delete: (ctx) => {
    for (const u of planGroupDeletions(ctx.builder, ctx.desired, ctx.live)) ctx.unmanaged.push(u);
  },
  merge: (ctx) =>
    deleteCopies(ctx.builder, ctx.desiredGroups, ctx.facts.get('duplicates'), ctx.facts.get('moves')),
};

export interface GroupMatch {
  /** The live group each declared name manages, if any. */
  readonly matchedGroups: ReadonlyMap<string, LiveGroup | undefined>;
  /** The other live groups of a declared name, to merge into the matched one and delete. */
  readonly duplicates: ReadonlyMap<string, readonly LiveGroup[]>;
  readonly warnings: readonly Diagnostic[];
}

/**
 * Matches declared groups with live groups by name. Several live groups of one declared name
 * (left by two applies at once, or by hand) are reconciled: one is kept (see {@link keepFirst}),
 * the others are merged into it and deleted, and a warning says which.
 */
export function matchGroups(
  desiredGroups: readonly DesiredGroup[],
  liveGroups: readonly LiveGroup[],
): GroupMatch {
  const liveByName = new Map<string, LiveGroup[]>();
  for (const group of liveGroups) liveByName.set(group.name, [...(liveByName.get(group.name) ?? []), group]);
  const matchedGroups = new Map<string, LiveGroup | undefined>();
  const duplicates = new Map<string, readonly LiveGroup[]>();
  const warnings: Diagnostic[] = [];
  for (const group of desiredGroups) {
    const candidates = liveByName.get(group.name) ?? [];
    const [kept, ...extras] = [...candidates].sort(keepFirst);
    if (kept !== undefined && extras.length > 0) {
      duplicates.set(group.name, extras);
      warnings.push({
        ...group.source,
        severity: 'warning',
        code: 'group-live-duplicates',
        message: `group "${group.name}" matches ${candidates.length} live groups; the plan keeps id ${kept.id} (the most members, then the lowest id), moves the members of ${extras.map((g) => `id ${g.id}`).join(', ')} onto it and deletes ${extras.length === 1 ? 'it' : 'them'}`,
        hint: 'two applies at once, or a group created by hand, leave such copies; run one apply at a time',
      });
    }
    matchedGroups.set(group.name, kept);
  }
  return { matchedGroups, duplicates, warnings };
}

/** Creates the declared groups that no live group matches, in the order given (by name). */
export function planGroupCreations(
  b: PlanBuilder,
  desiredGroups: readonly DesiredGroup[],
  matchedGroups: GroupMatch['matchedGroups'],
): void {
  for (const group of desiredGroups) {
    if (matchedGroups.get(group.name) === undefined) {
      b.call(CREATE_GROUP, { group_name: group.name }, { createsGroup: group.name });
      b.change({
        resource: 'group',
        action: 'create',
        address: group.name,
        fields: group.members === undefined ? [] : [{ field: 'members', after: sortedText(group.members) }],
      });
    }
  }
}

/** Deletes the copies of declared groups, each once the members moved off it are on the kept one. */
export function deleteCopies(
  b: PlanBuilder,
  desiredGroups: readonly DesiredGroup[],
  duplicates: GroupMatch['duplicates'],
  moves: ReadonlyMap<string, readonly number[]>,
): void {
  for (const group of desiredGroups) {
    for (const extra of duplicates.get(group.name) ?? []) {
      deleteGroup(b, extra, `${extra.name} (id ${extra.id}, a copy)`, moves.get(group.name));
    }
  }
}

/** The live groups the files do not declare: deleted under `prune.groups`, else listed as unmanaged. */
export function planGroupDeletions(b: PlanBuilder, desired: DesiredState, live: LiveState): Unmanaged[] {
  const unmanaged: Unmanaged[] = [];
  const desiredGroupNames = new Set(desired.groups.map((g) => g.name));
  const extraGroups = live.groups
    .filter((g) => !desiredGroupNames.has(g.name))
    .sort((x, y) => compareText(x.name, y.name) || compareText(x.id, y.id));
  for (const group of extraGroups) {
    if (!desired.prune.groups) {
      unmanaged.push({ resource: 'group', address: group.name });
      continue;
    }
    deleteGroup(b, group, group.name);
  }
  return unmanaged;
}

/** Deletes a live group (after the calls `after`), under `address` in the changes. */
function deleteGroup(b: PlanBuilder, group: LiveGroup, address: string, after?: readonly number[]): void {
  b.call(DELETE_GROUP, { group_id: group.id }, after === undefined ? {} : { after });
  b.change({
    resource: 'group',
    action: 'delete',
    address,
    fields: group.members === undefined ? [] : [{ field: 'members', before: sortedText(group.members) }],
  });
}

/**
 * Which of several live groups of one name the plan keeps: the one with the most members (the
 * fewest moves), then the lowest id (the oldest, as the service allots ids) — so that every plan
 * of the same account keeps the same one.
 */
function keepFirst(a: LiveGroup, b: LiveGroup): number {
  const members = (b.members?.length ?? 0) - (a.members?.length ?? 0);
  if (members !== 0) return members;
  const x = BigInt(a.id);
  const y = BigInt(b.id);
  return x < y ? -1 : x > y ? 1 : 0;
}
