export {
  type LiveReader,
  type LiveReadScope,
  READ_EVERYTHING,
  type ReadLiveOptions,
  type ReadProgress,
  readLiveState,
  readOnlyClient,
  readScopeFor,
} from './read-live-state.js';
export { type QuotaReader, readQuotas } from './read-quotas.js';
