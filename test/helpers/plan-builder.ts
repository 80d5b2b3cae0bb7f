import {
  DELETE_KINDS,
  type DesiredGroup,
  type DesiredGuide,
  type DesiredState,
  type GuideId,
  type SourceRef,
} from '../../src/core/desired.js';
import type { Diagnostic } from '../../src/core/diagnostics.js';
import type { LiveGroup, LiveGuide, LiveState } from '../../src/core/live.js';
import type { Plan } from '../../src/core/plan-data.js';
import type { DeleteCounts } from '../../src/core/safety.js';
import { planChanges } from '../../src/plan/index.js';

/**
 * Desired and live states built in code, and plans made from them through the planner itself —
 * so that a test of apply or of a renderer never spells a planned call by hand, and a change of
 * the call type reaches it through the planner.
 */

/** Where a hand-built desired object "was written". */
export const SOURCE: SourceRef = { file: 'guides.yaml', line: 1, column: 1 };

/** A guide id from an account (`alice_wx`) or an `openid oXYZ` as the user would write it. */
export function guideId(name: string): GuideId {
  return name.startsWith('openid ')
    ? { kind: 'openid', openid: name.slice('openid '.length) }
    : { kind: 'account', account: name };
}

/** A desired guide named `name` (nickname = the name cut to 16, image under img.example). */
export function desiredGuide(name: string, extra: Partial<DesiredGuide> = {}): DesiredGuide {
  const id = guideId(name);
  const bare = id.kind === 'account' ? id.account : id.openid;
  return {
    id,
    nickname: bare.slice(0, 16),
    headImageUrl: `https://img.example/${bare}`,
    source: SOURCE,
    ...extra,
  };
}

/** A desired group; `members` absent leaves the live membership alone. */
export function desiredGroup(name: string, members?: readonly string[]): DesiredGroup {
  return { name, ...(members === undefined ? {} : { members }), source: SOURCE };
}

/** A desired state: nothing pruned unless said. */
export function desiredState(parts: Partial<DesiredState> = {}): DesiredState {
  return { guides: [], groups: [], prune: { guides: false, groups: false }, ...parts };
}

/** A live guide as `desiredGuide` would declare it (so that, unchanged, the two agree). */
export function liveGuide(name: string, extra: Partial<LiveGuide> = {}): LiveGuide {
  const { id, nickname, headImageUrl } = desiredGuide(name);
  return { id, nickname, headImageUrl, ...extra };
}

export function liveGroup(id: string, name: string, members?: readonly string[]): LiveGroup {
  return { id, name, ...(members === undefined ? {} : { members }) };
}

export function liveState(parts: Partial<LiveState> = {}): LiveState {
  return { guides: [], groups: [], account: {}, ...parts };
}

/** The plan of `desired` against `live` (an empty account by default); throws on a plan error. */
export function planOf(desired: DesiredState, live: LiveState = liveState()): Plan {
  const { plan, diagnostics } = planChanges(desired, live);
  if (plan === undefined) throw new Error(`no plan: ${diagnostics.map((d) => d.message).join('; ')}`);
  return plan;
}

/** The diagnostics of planning `desired` against `live` (errors and warnings). */
export function planDiagnostics(desired: DesiredState, live: LiveState = liveState()): readonly Diagnostic[] {
  return planChanges(desired, live).diagnostics;
}

/** Deletion counts of every kind, zero but for those given: a new kind needs no test edited. */
export function deleteCounts(given: Partial<DeleteCounts>): DeleteCounts {
  return Object.fromEntries(DELETE_KINDS.map((kind) => [kind, given[kind] ?? 0])) as DeleteCounts;
}
