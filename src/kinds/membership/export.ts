import { compareText } from '../../core/compare-text.js';

/** A group's members as the plan's live digest and fingerprints cover them: sorted, not as listed. */
export function canonicalMembers(members: readonly string[]): string[] {
  return [...members].sort(compareText);
}
