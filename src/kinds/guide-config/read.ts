import { type DesiredState, guideKey } from '../../core/desired.js';

/** The keys of the guides whose quick replies or welcome messages the files manage: the configurations read. */
export function guideConfigsToRead(desired: DesiredState): Set<string> {
  return new Set(
    desired.guides
      .filter((g) => g.quickReplies !== undefined || g.welcome !== undefined)
      .map((g) => guideKey(g.id)),
  );
}
