/**
 * The use cases, as data in and data out: `planRun` (guidectl plan) and `applyRun` (guidectl
 * apply, of files or of a saved plan). The CLI parses flags, wires real dependencies (a client,
 * progress lines, a prompt) and renders what they return; a library user can run them the same way.
 */
export type { Applied, ApplyRun, Drift, Reviewed } from '../core/apply-run-data.js';
export type { EnvironmentApply } from '../core/environment-plan.js';
export { shellWord } from '../core/shell-word.js';
export { type ApplyDeps, type ApplyFlags, type ApplySource, applyRun } from './apply-run.js';
export {
  type AllEnvsPlan,
  type ApplyEnvironmentsOptions,
  applyEnvironmentsInOrder,
  DEFAULT_ENV_PARALLELISM,
  type PlanEnvironment,
  planAllEnvironments,
} from './each-environment.js';
export { checkExportRequest, type ExportRequest } from './export-request.js';
export {
  declaredEnvironment,
  environmentOfFlags,
  type FilesLoad,
  type LoadedFiles,
  type LoadResult,
  loadEachEnvironment,
  loadFiles,
  type ReadFiles,
  readAllEnvironments,
  readAndReport,
} from './files.js';
export {
  type CheckedPlan,
  evaluateGuards,
  type LiveSource,
  liveSourceOf,
  makePlan,
  type PlanRun,
  plannedTarget,
  planReadScope,
  planRun,
} from './plan-run.js';
export {
  applySourceOf,
  checkPlanOut,
  checkSavedEnvironment,
  checkSavedTarget,
  checkSourceTarget,
  isSavedPlanFile,
  readSavedPlan,
  readSavedPlanToShow,
  recordedPath,
  refuseSavedPlans,
  type SplitPaths,
  savedPlanSource,
  savePlanRun,
  splitSavedPlans,
  writeSavedPlan,
} from './saved-plan-file.js';
export { type StaleFacts, staleReport } from './stale-facts.js';
export { type VerifyMode, type VerifyRead, verifyRead } from './verify.js';
