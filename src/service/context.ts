import { MAX_GUIDES, MAX_SENSITIVE_WORDS } from '../core/guide-rules.js';
import type { Store } from './store.js';

/** How the service behaves where the real API's behaviour is a choice (docs/serve.md says which). */
export interface ServiceSettings {
  /** What `black_keyword` with `is_delete: false` does: add to the list, or replace it. */
  readonly sensitiveWords: 'append' | 'replace';
  /** `auto`: a new guide's invitation is accepted at once; `manual`: it waits for /__sim/invitation. */
  readonly invites: 'auto' | 'manual';
  /** Lifetime of an access token, in seconds. */
  readonly tokenTtl: number;
  /** Most guides of the account (9300812 past it). */
  readonly maxGuides: number;
  /** Most sensitive words of the account (9300814 past it). */
  readonly maxSensitiveWords: number;
}

export const DEFAULT_SETTINGS: ServiceSettings = {
  sensitiveWords: 'append',
  invites: 'auto',
  tokenTtl: 7200,
  maxGuides: MAX_GUIDES,
  maxSensitiveWords: MAX_SENSITIVE_WORDS,
};

/** What an operation sees: the store (inside the call's transaction) and the time of the call. */
export interface OpContext {
  readonly store: Store;
  /** Unix seconds of the call, from the service's clock. */
  readonly now: number;
  /** Milliseconds of the call, for id generation. */
  readonly nowMs: number;
  readonly settings: ServiceSettings;
}

/** Largest page the service returns; a larger `num`/`limit` is clamped to it. */
export const MAX_PAGE_SIZE = 100;

/** A pending invitation that nobody answers expires after this long (status 4). */
export const INVITATION_TTL_SECONDS = 7 * 24 * 3600;

// Snowflake-style 64-bit ids, like the real ones (e.g. 1860131524965138433): milliseconds since
// 2010-11-04 shifted left by 22 bits, then worker and sequence bits. Ids are odd, so that none
// can be held exactly by a double (they exceed 2^53): a client that rounds them through
// JSON.parse is caught at once. Strictly increasing, even if the clock is moved back, because
// the last id is kept in the store.
const ID_EPOCH_MS = 1_288_834_974_657n;
const WORKER_AND_FIRST_SEQUENCE = (0x2a5n << 12n) | 1n;

export function nextId64(ctx: OpContext): string {
  const fromClock =
    ((BigInt(Math.max(ctx.nowMs, Number(ID_EPOCH_MS))) - ID_EPOCH_MS) << 22n) | WORKER_AND_FIRST_SEQUENCE;
  const last = BigInt(ctx.store.getMeta('last_id64') ?? '0');
  const id = fromClock > last ? fromClock : last + 2n;
  ctx.store.setMeta('last_id64', id.toString());
  return id.toString();
}
