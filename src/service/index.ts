export type { ConnectionLimits } from './connections.js';
export { connectionLimitsFor, DEFAULT_CONNECTION_LIMITS } from './connections.js';
export type { ServiceSettings } from './context.js';
export { DEFAULT_SETTINGS, MAX_PAGE_SIZE } from './context.js';
export type { FaultSpec } from './faults.js';
export { parseFaults } from './faults.js';
export type { CallRecord, GuideServiceOptions } from './server.js';
export { GuideService, ListenError, UnknownSecretError } from './server.js';
export { StoreError } from './store.js';
