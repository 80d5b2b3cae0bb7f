/**
 * Where the calls go: the target chosen from flags and the environment (`resolveTarget`), and a
 * client connected to it (`openTarget`), or both for the length of some work (`withTarget`): the
 * API at a base URL with credentials from the environment, or the guide service started
 * in-process over a local database, locked for writers.
 */
export { type TargetRequest, withTarget } from './connect.js';
export { describeTarget, resolveEnvironmentTarget } from './environment.js';
export { identifyTarget, targetNow } from './identity.js';
export {
  type OpenTarget,
  openTarget,
  type TargetClientOptions,
  type TargetHost,
  type TargetLock,
} from './open.js';
export {
  type ClientEvents,
  type TargetFlagValues,
  type TargetSettings,
  targetRequestOf,
} from './request.js';
export {
  proxyFromEnv,
  resolveTarget,
  type Target,
  type TargetFlags,
} from './resolve.js';
