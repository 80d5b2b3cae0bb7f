import { sortedText } from '../../core/compare-text.js';
import type { DesiredGroup, DesiredGuide, DesiredState, SourceRef } from '../../core/desired.js';
import type { Diagnostic, DiagnosticCode } from '../../core/diagnostics.js';
import type { GroupRef } from '../../core/plan-data.js';
import type { GroupMatch } from '../group/plan.js';
import type { PlanBuilder } from '../plan-builder.js';
import type { KindPlan } from '../plan-context.js';
import { ADD_MEMBER, REMOVE_MEMBER } from './writes.js';

/**
 * Memberships of guides in groups: each member a group names must be a guide that exists after
 * the plan; added after the group and the guide are created, removed when the files drop them.
 */

/** The membership kind's steps: its members checked before any call; added and removed after the guides. */
export const MEMBERSHIP_PLAN: KindPlan = {
  check: (ctx) => {
    const found = checkMembersExist(ctx.desired, ctx.desiredGuides, ctx.desiredGroups, ctx.liveAccounts);
    for (const d of found) ctx.diagnostics.push(d);
  },
  link: (ctx) => {
    const matchedGroups = ctx.facts.get('matchedGroups');
    const duplicates = ctx.facts.get('duplicates');
    const deletedAccounts = ctx.facts.get('deletedAccounts');
    ctx.facts.set(
      'moves',
      planMemberships(ctx.builder, ctx.desiredGroups, {
        matchedGroups,
        duplicates,
        liveAccounts: ctx.liveAccounts,
        deletedAccounts,
      }),
    );
  },
};

/** Every member a group of the files names must be a declared guide, or a live one the plan keeps. */
export function checkMembersExist(
  desired: DesiredState,
  desiredGuides: readonly DesiredGuide[],
  desiredGroups: readonly DesiredGroup[],
  liveAccounts: ReadonlySet<string>,
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const error = (code: DiagnosticCode, source: SourceRef, message: string, hint: string): void => {
    diagnostics.push({ ...source, severity: 'error', code, message, hint });
  };
  const declaredAccounts = new Set(
    desiredGuides.flatMap((g) => (g.id.kind === 'account' ? [g.id.account] : [])),
  );
  for (const group of desiredGroups) {
    for (const member of group.members ?? []) {
      if (declaredAccounts.has(member)) continue;
      if (!liveAccounts.has(member)) {
        error(
          'member-not-found',
          group.source,
          `member "${member}" of group "${group.name}" is neither declared in the files nor a live guide`,
          `declare the guide under guides: with account: ${member}, or remove it from members`,
        );
      } else if (desired.prune.guides) {
        error(
          'member-would-be-pruned',
          group.source,
          `member "${member}" of group "${group.name}" is a live guide that the files do not declare, so prune.guides would delete it`,
          `declare the guide under guides: with account: ${member}, or remove it from members`,
        );
      }
    }
  }
  return diagnostics;
}

export interface MembershipContext extends Pick<GroupMatch, 'matchedGroups' | 'duplicates'> {
  readonly liveAccounts: ReadonlySet<string>;
  /** Accounts of the live guides the plan deletes. */
  readonly deletedAccounts: ReadonlySet<string>;
}

/**
 * The memberships of the groups the files name: what the files say, or, for a group whose members
 * are not managed but that has live copies, the kept group's members and those of its copies.
 * Returns, per declared name, the indices of the calls that add members to the kept group.
 */
export function planMemberships(
  b: PlanBuilder,
  desiredGroups: readonly DesiredGroup[],
  ctx: MembershipContext,
): Map<string, number[]> {
  const moves = new Map<string, number[]>();
  for (const group of desiredGroups) {
    const current = ctx.matchedGroups.get(group.name);
    const extras = ctx.duplicates.get(group.name) ?? [];
    if (group.members === undefined && extras.length === 0) continue;
    const groupId: string | GroupRef = current === undefined ? { $group: group.name } : current.id;
    const before = new Set(current?.members ?? []);
    // Members managed: the files say them. Not managed: the kept group's, and those of its copies.
    const merged = extras
      .flatMap((g) => g.members ?? [])
      .filter((m) => ctx.liveAccounts.has(m) && !ctx.deletedAccounts.has(m));
    const after = new Set(group.members ?? [...before, ...merged]);
    const adds = sortedText([...after].filter((m) => !before.has(m)));
    const removes = sortedText([...before].filter((m) => !after.has(m) && !ctx.deletedAccounts.has(m)));
    const added: number[] = [];
    for (const account of adds) {
      added.push(b.calls.length);
      b.call(ADD_MEMBER, { group_id: groupId, guide_account: account });
    }
    moves.set(group.name, added);
    for (const account of removes) {
      b.call(REMOVE_MEMBER, { group_id: groupId, guide_account: account });
    }
    if (current !== undefined && (adds.length > 0 || removes.length > 0)) {
      b.change({
        resource: 'group',
        action: 'update',
        address: group.name,
        fields: [
          { field: 'members', before: sortedText(current.members ?? []), after: sortedText([...after]) },
        ],
      });
    }
  }
  return moves;
}
