import { compareText } from '../../core/compare-text.js';

/** A group's members as the plan's live digest and fingerprints cover them: sorted, not as listed. */
export function canonicalMembers(members: readonly string[]): string[] {
  return [...members].sort(compareText);
}

/** A group's members as the files write them: sorted, none when they were not read. */
export function exportMembers(members: readonly string[] | undefined): string[] {
  return [...(members ?? [])].sort();
}
