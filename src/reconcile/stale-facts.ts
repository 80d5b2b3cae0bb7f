import type { LiveState } from '../core/live.js';
import { ifDefined } from '../core/records.js';
import type { StaleReport } from '../core/safety.js';
import {
  diffCalls,
  diffLiveFingerprints,
  liveFingerprints,
  planBasis,
  planId,
  type SavedPlan,
} from '../plan/index.js';
import type { LoadedFiles } from './files.js';
import { makePlan } from './plan-run.js';

/** What apply found changed since a saved plan was made. */
export interface StaleFacts {
  readonly liveChanged: boolean;
  readonly filesChanged: boolean;
  /** The files checked, as the user named them. */
  readonly paths: readonly string[];
  readonly files: LoadedFiles | undefined;
  readonly live: LiveState;
}

/**
 * Why a saved plan is stale: what changed in the account (from the fingerprints the plan saved),
 * whether the files changed, and — the files at hand — how a plan made now differs.
 */
export function staleReport(saved: SavedPlan, facts: StaleFacts): StaleReport {
  const { files, live } = facts;
  let now: StaleReport['now'];
  let nowErrors: number | undefined;
  if (files !== undefined) {
    const made = makePlan(files.state, live);
    if (made.plan === undefined) {
      nowErrors = made.diagnostics.filter((d) => d.severity === 'error').length;
    } else {
      now = {
        planId: planId(made.plan, planBasis(files.state, live, saved.basis.readScope, saved.basis)),
        calls: diffCalls(saved.plan.calls, made.plan.calls),
      };
    }
  }
  const environment = saved.environment?.name;
  return {
    savedPlanId: saved.planId,
    ...ifDefined('environment', environment),
    ...(facts.liveChanged
      ? { live: diffLiveFingerprints(saved.liveFingerprints, liveFingerprints(live)) }
      : {}),
    filesChanged: facts.filesChanged,
    paths: facts.paths,
    ...ifDefined('now', now),
    ...ifDefined('nowErrors', nowErrors),
  };
}
