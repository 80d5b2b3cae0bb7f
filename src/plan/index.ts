export { isRefused } from '../core/safety.js';
export { detectReplacedWords } from '../kinds/account/semantics.js';
export { messageToJson, sameWelcome, sameWelcomeList, welcomeToWire } from '../kinds/welcome.js';
export {
  canonicalJson,
  desiredDigest,
  diffCalls,
  diffLiveFingerprints,
  type GuardSettings,
  guardSettingsToJson,
  type LiveFingerprints,
  liveDigest,
  liveFingerprints,
  PLAN_ID_LENGTH,
  type PlanBasis,
  type ProtectedNames,
  planBasis,
  planId,
  protectedNamesToJson,
  readScopeToJson,
  sha256Hex,
} from './digest.js';
export {
  checkDeleteGuards,
  checkProtection,
  countDeletes,
  countLive,
  type GuardFlags,
  protectionFromNames,
  resolveGuardPolicy,
} from './guards.js';
export { type PlanResult, planChanges } from './plan-changes.js';
export { partialFit, plannedOperations, planQuota, quotaShortfall } from './quota-fit.js';
export {
  decodeSavedPlan,
  encodeSavedPlan,
  SAVED_PLAN_FORMAT_VERSION,
  SAVED_PLAN_KIND,
  type SavedEnvironment,
  type SavedPlan,
} from './saved-plan.js';
