export {
  canonicalJson,
  desiredDigest,
  diffCalls,
  diffLiveFingerprints,
  type LiveFingerprints,
  liveDigest,
  liveFingerprints,
  PLAN_ID_LENGTH,
  planId,
  sha256Hex,
} from './digest.js';
export {
  checkDeleteGuards,
  checkProtection,
  countDeletes,
  countLive,
  type GuardFlags,
  isRefused,
  overrideGuardPolicy,
  resolveGuardPolicy,
} from './guards.js';
export { type PlanResult, planChanges } from './plan-changes.js';
export { sameWelcome, sameWelcomeList, welcomeToJson, welcomeToWire } from './welcome.js';
