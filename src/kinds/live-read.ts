import type { Clock } from '../core/clock.js';
import type { GuideId } from '../core/desired.js';
import type { LiveGuide, LiveReadScope, LiveState } from '../core/live.js';
import type { PartOf } from './config-port.js';
import type { ReadPort } from './read-port.js';

/** The operations the live state is read with. */
export type LiveReadOperation =
  | 'getguideacctlist'
  | 'getguidegrouplist'
  | 'getgroupinfo'
  | 'getguideconfig'
  | 'getguideacctconfig'
  | 'getguidemassendjoblist';

export type LiveReadPort = ReadPort<LiveReadOperation>;

/**
 * The live state while it is read: each kind's read writes its own part. `live/` makes it with
 * empty lists and hands it on only once every read has ended.
 */
export type LiveDraft = { -readonly [K in keyof LiveState]: LiveState[K] };

/** What `live/` hands every kind's read: the scope, and the read calls with their counting. */
export interface ReadContext {
  readonly scope: LiveReadScope;
  /** Page size asked of list calls. */
  readonly pageSize: number;
  /** The clock of {@link LiveState.readAt}. */
  readonly clock: Clock;
  /** Starts a read through the port, each call counted as it is made. */
  readonly start: <T>(read: (port: LiveReadPort) => Promise<T>) => Promise<T>;
  /**
   * Starts a read once the read window has room for it: counted as one call when asked, since
   * 20,000 guides would otherwise wait as 20,000 calls in the client.
   */
  readonly startWindowed: <T>(read: (port: LiveReadPort) => Promise<T>) => Promise<T>;
}

/** What the account-wide reads are handed besides: where the guide list tells of each new page. */
export interface AccountReadContext extends ReadContext {
  /** Told of each page's new guides as it comes in, so that the reads of each guide start at once. */
  readonly onGuides: (guides: readonly LiveGuide[]) => void;
}

/** The reads of one per-guide kind during one read of the live state. */
export interface GuideReads {
  /** Starts the reads of one listed guide (`key`: its `guideKey`) when the scope names it. */
  readonly add: (guide: GuideId, key: string) => void;
  /** Waits for the reads started and writes them into `draft`, whose guides are read by then. */
  readonly finish: (draft: LiveDraft) => Promise<void>;
}

/**
 * How a kind is read: `once` for the whole account (every such read at once); `perGuide` for
 * each listed guide the scope names, as the page listing it comes in; or inside the read of
 * another kind (a group's members, with the group).
 */
export type KindRead =
  | { readonly once: (context: AccountReadContext, draft: LiveDraft) => Promise<void> }
  | { readonly perGuide: (context: ReadContext) => GuideReads }
  | PartOf;

/** The read scope of a kind whose list is always read whole: it adds nothing to the scope. */
export function readWhole(): Partial<LiveReadScope> {
  return {};
}
