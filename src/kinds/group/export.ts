import { compareText } from '../../core/compare-text.js';
import type { DesiredGroup, DesiredState } from '../../core/desired.js';
import type { LiveGroup } from '../../core/live.js';
import { comparedByName, type KindDigest, type KindExport } from '../live-part.js';
import { canonicalMembers, exportMembers } from '../membership/export.js';

/** A group as the plan's live digest and fingerprints cover it: its members (when read) sorted. */
export function canonicalGroup(group: LiveGroup): LiveGroup {
  return group.members === undefined ? group : { ...group, members: canonicalMembers(group.members) };
}

/** The groups in the live digest's order (by id, then name), not the order the API listed them. */
export function canonicalGroups(groups: readonly LiveGroup[]): LiveGroup[] {
  return [...groups]
    .sort((a, b) => compareText(a.id, b.id) || compareText(a.name, b.name))
    .map(canonicalGroup);
}

/** The desired groups in the desired digest's order: by name, their members (when managed) sorted. */
export function canonicalDesiredGroups(groups: readonly DesiredGroup[]): DesiredGroup[] {
  return [...groups]
    .sort((a, b) => compareText(a.name, b.name))
    .map((g) => (g.members === undefined ? g : { ...g, members: canonicalMembers(g.members) }));
}

/** The group kind's section of the desired digest (with its members): the groups in its order. */
export function digestDesiredGroups(desired: DesiredState): Partial<DesiredState> {
  return { groups: canonicalDesiredGroups(desired.groups) };
}

/** Each group's fingerprint (`hash` of its canonical form) with its name, by id. */
export function groupFingerprints(
  groups: readonly LiveGroup[],
  hash: (value: unknown) => string,
): Record<string, { name: string; hash: string }> {
  const out: Record<string, { name: string; hash: string }> = {};
  for (const group of [...groups].sort((a, b) => compareText(a.id, b.id))) {
    out[group.id] = { name: group.name, hash: hash(canonicalGroup(group)) };
  }
  return out;
}

/**
 * The groups as the files write them, by name, with their members. Groups that share a name are
 * left out, each name said in `warnings`: a file gives a group name once, and a plan of one name
 * matching several live groups keeps one and deletes the others, so written at all they would
 * not plan to no changes.
 */
export function exportGroups(groups: readonly LiveGroup[], warnings: string[]): object[] {
  const shared = sharedGroupNames(groups);
  const out = groups
    .filter((g) => !shared.has(g.name))
    .sort((x, y) => compareText(x.name, y.name))
    .map((group) => ({ name: group.name, members: exportMembers(group.members) }));
  for (const [name, copies] of [...shared].sort(([x], [y]) => compareText(x, y))) {
    warnings.push(
      `groups ${copies.map((g) => `id ${g.id}`).join(', ')} share the name "${name}", which a file cannot give twice: ` +
        'all were left out, so a plan of the file leaves them alone; to manage them, add the group to the file ' +
        '(a plan then keeps one, moves the members of the others onto it and deletes the others)',
    );
  }
  return out;
}

/** The live groups of each name that more than one live group has, by name. */
function sharedGroupNames(groups: readonly LiveGroup[]): Map<string, LiveGroup[]> {
  const byName = new Map<string, LiveGroup[]>();
  for (const group of groups) byName.set(group.name, [...(byName.get(group.name) ?? []), group]);
  for (const [name, copies] of byName) if (copies.length < 2) byName.delete(name);
  return byName;
}

/** The groups' part of the live digest and fingerprints: by id, each with its members when read. */
export const GROUP_DIGEST: KindDigest = {
  resource: 'group',
  canonical: (live) => ({ groups: canonicalGroups(live.groups) }),
  fingerprints: (live, hash) => ({ groups: groupFingerprints(live.groups, hash) }),
  compared: (fingerprints) => comparedByName(fingerprints.groups),
  decode: (saved, read) => ({ groups: read.named(saved['groups'], 'live_fingerprints.groups') }),
};

/** The file's `groups` section. */
export const GROUP_EXPORT: KindExport = {
  write: (live, { warnings }) => ({ groups: exportGroups(live.groups, warnings) }),
};
