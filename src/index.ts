/**
 * The public library API of guidectl: `import { createGuideClient } from 'guidectl'`.
 *
 * - `createGuideClient`: a typed, lossless, resilient client of the WeChat shopping-guide API
 *   (or of the guide service below), one method per operation.
 * - The error classes it throws, each with a stable `code`.
 * - `parseJson` / `stringifyJson`: JSON that keeps 64-bit ids (`group_id`, `task_id`) exact.
 * - `GuideService`: the guide service itself, to run in-process (tests, local development).
 * - `loadFiles`, `planRun`, `applyRun`: the plan and apply use cases (what `guidectl plan` and
 *   `guidectl apply` do), as data in and data out; `encodeSavedPlan`/`decodeSavedPlan` for
 *   saved plans; `resolveTarget`/`openTarget` to reach the target the CLI would (the API with
 *   credentials from the environment, or the embedded service over a local database), and
 *   `targetRequestOf` to ask for it with the values of the CLI's flags.
 */

export { executePlan } from './apply/index.js';
export * from './client/index.js';
// The reconciler as a library: load the files, read the live state, plan, apply, render.
export {
  type LoadDesiredStateOptions,
  type LoadDesiredStateResult,
  loadDesiredState,
} from './config/index.js';
// The names of a client's credential variables (`GuideClientOptions.credentialVariables`).
export type { CredentialVariables } from './core/credential-variables.js';
export type { DesiredState } from './core/desired.js';
export type { Diagnostic } from './core/diagnostics.js';
export { GuidectlError, UsageError } from './core/errors.js';
export type { LiveState } from './core/live.js';
export type { ApplyResult, Plan, PlannedCall } from './core/plan-data.js';
export { READ_EVERYTHING, readLiveState, readOnlyClient, readScopeFor } from './live/index.js';
export {
  checkDeleteGuards,
  checkProtection,
  countDeletes,
  countLive,
  decodeSavedPlan,
  desiredDigest,
  encodeSavedPlan,
  liveDigest,
  planBasis,
  planChanges,
  planId,
  resolveGuardPolicy,
  SAVED_PLAN_FORMAT_VERSION,
  type SavedPlan,
} from './plan/index.js';
// The use cases, run from code exactly as the CLI runs them.
export {
  type Applied,
  type ApplyDeps,
  type ApplyFlags,
  type ApplyRun,
  type ApplySource,
  applyRun,
  applySourceOf,
  checkSourceTarget,
  type FilesLoad,
  type LiveSource,
  type LoadedFiles,
  liveSourceOf,
  loadFiles,
  type PlanRun,
  planReadScope,
  planRun,
  type Reviewed,
  type SplitPaths,
  splitSavedPlans,
  type VerifyMode,
} from './reconcile/index.js';
export { renderDiagnostics } from './report/diagnostic-text.js';
export { renderPlanMarkdown } from './report/markdown.js';
export { planToJson, renderPlan } from './report/plan.js';
export type {
  CallLimitSpec,
  CallRecord,
  ConnectionLimits,
  FaultSpec,
  GuideServiceOptions,
  OperationLimits,
  PerMinuteLimits,
  ServiceSettings,
} from './service/index.js';
export {
  GuideService,
  parseFaults,
  parsePerMinute,
  parseQuota,
  UnknownSecretError,
} from './service/index.js';
// Where the calls go, chosen as the CLI chooses it (flags and environment variables).
export {
  type ClientEvents,
  type OpenTarget,
  openTarget,
  resolveTarget,
  type Target,
  type TargetFlags,
  type TargetFlagValues,
  type TargetHost,
  type TargetLock,
  type TargetRequest,
  type TargetSettings,
  targetNow,
  targetRequestOf,
  withTarget,
} from './target/index.js';
export { ERRCODE, ERRCODE_MEANING } from './wire/errcodes.js';
export { type Id64, id64ToJson, MAX_ID64, toId64 } from './wire/ids.js';
export { parseJson, stringifyJson, stringifyJsonPretty } from './wire/json.js';
export * from './wire/messages.js';
export {
  isOperationName,
  OPERATION_NAMES,
  OPERATIONS,
  type OperationName,
  operationPath,
} from './wire/operations.js';
