import { compareText } from '../../core/compare-text.js';
import type { LiveGroup } from '../../core/live.js';
import { canonicalMembers } from '../membership/export.js';

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
