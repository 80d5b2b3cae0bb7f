/**
 * The live state: what the account holds now, as read through the guide API by `live/`. Parts the
 * desired state does not manage are not read, and are `undefined` here — never "empty".
 */
import type { GuideId } from './desired.js';

export interface LiveState {
  /** Every guide of the account, in the order the guide list answers them. */
  readonly guides: readonly LiveGuide[];
  /** Every group of the account, in the order the group list answers them. */
  readonly groups: readonly LiveGroup[];
  readonly account: LiveAccount;
  /**
   * The tasks of the guides whose tasks were read (see {@link LiveReadScope.tasks}), cancelled ones
   * left out; absent when no task was read.
   */
  readonly tasks?: readonly LiveTask[];
  /**
   * When the read began, in Unix seconds by the reader's clock: the "now" of the task rules
   * (a push time in the past, the one-month window). Absent when the reader had no clock.
   */
  readonly readAt?: number;
}

/** Task status on the wire: 1 not yet executed, 2 executed, 3 completed (cancelled ones are not read). */
export type LiveTaskStatus = 'pending' | 'executed' | 'completed';

/**
 * A task as read back. `id` is the unsigned 64-bit task id as a decimal string; `recipients` are
 * sorted by UTF-16 code units; materials as read back (an image or a card cover without its media id).
 */
export interface LiveTask {
  readonly id: string;
  readonly guide: GuideId;
  readonly name: string;
  readonly remark: string;
  readonly pushAt: number;
  readonly status: LiveTaskStatus;
  readonly recipients: readonly string[];
  readonly materials: readonly LiveMaterial[];
}

/** A task's material as read back: text, an image (its picture URL), a card (without its cover). */
export type LiveMaterial =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly picUrl: string }
  | { readonly type: 'miniprogram'; readonly appid: string; readonly title: string; readonly path: string };

/** A guide as listed. `config` is present exactly when it was read (its replies or welcome are managed). */
export interface LiveGuide {
  readonly id: GuideId;
  readonly nickname: string;
  readonly headImageUrl: string;
  readonly config?: LiveGuideConfig;
}

export interface LiveGuideConfig {
  /** Quick replies in their stored order. */
  readonly quickReplies: readonly string[];
  /** Welcome messages in sending order (at most two). */
  readonly welcome: readonly LiveWelcome[];
}

/**
 * A welcome message as read back. A card reads back without its `media_id` (the API does not
 * return it), so cards are compared by appid, title and path only.
 */
export type LiveWelcome =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly mediaId: string }
  | { readonly type: 'miniprogram'; readonly appid: string; readonly title: string; readonly path: string }
  /** A msgtype or content this version does not understand: never equal to anything desired. */
  | { readonly type: 'unknown'; readonly msgtype: number; readonly content: string };

/**
 * A group. `id` is the unsigned 64-bit group id as a decimal string. `members` are the guide
 * accounts of its members (membership works by account only), in the order listed; present
 * exactly when they were read (the file manages them, or everything was read).
 */
export interface LiveGroup {
  readonly id: string;
  readonly name: string;
  readonly members?: readonly string[];
}

/** Account-wide settings; each is present exactly when it was read. */
export interface LiveAccount {
  /** The offline auto reply, `null` when none is set. */
  readonly offlineAutoReply?: string | null;
  /** The sensitive words in stored order. */
  readonly sensitiveWords?: readonly string[];
  /** The account-wide welcome messages. */
  readonly defaultWelcome?: readonly LiveWelcome[];
}

/**
 * What a plan reads besides the guide and group lists: the least the desired state needs (see
 * `readScopeFor`), or `'all'` to read everything (for export). A saved plan records it, so that
 * apply reads exactly that again.
 */
export interface LiveReadScope {
  /** Keys (`guideKey`) of the guides whose quick replies or welcome messages are managed. */
  readonly guideConfigs: ReadonlySet<string> | 'all';
  /** Names of the groups whose members are managed. */
  readonly groupMembers: ReadonlySet<string> | 'all';
  readonly offlineAutoReply: boolean;
  readonly sensitiveWords: boolean;
  readonly defaultWelcome: boolean;
  /** Keys (`guideKey`) of the guides whose tasks are read, or `'all'` (export); absent: none. */
  readonly tasks?: ReadonlySet<string> | 'all';
  /**
   * How many guides the list is expected to hold, when the reader knows (the check after an
   * apply: those read before, plus those created, less those deleted): the pages they fill are
   * asked for with the first page instead of after it, saving a round trip. Only how the list is
   * read depends on it, not what is read; a wrong guess costs an empty page or a round trip.
   */
  readonly expectedGuides?: number;
}
