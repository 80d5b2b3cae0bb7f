/**
 * The desired state: what the user's YAML says the account should look like, normalised once by
 * `config/` and never re-checked downstream. It is the only input the planner sees from the
 * user's files.
 *
 * Ownership, one rule for every part: a property that is absent (`undefined`) is **not managed**
 * and the plan leaves it as it is; a property that is present states the **exact** value, where
 * an empty list or `null` means "none".
 */

import type { SourceLocation } from './diagnostics.js';

/**
 * Where an object was written, so that later steps (plan, apply) can point at the file; with the
 * end of what was written (exclusive) when known, so that a diagnostic underlines only that.
 */
export interface SourceRef extends SourceLocation {
  readonly endLine?: number;
  readonly endColumn?: number;
}

/**
 * The whole desired state.
 *
 * Invariants (guaranteed by `config/`):
 * - `guides` holds no two guides with the same identity ({@link guideKey}).
 * - `groups` holds no two groups with the same `name`.
 * - Both lists are in the order written: files in the order they were loaded (a folder's files by
 *   name), then document order. Consumers that need another order sort for themselves.
 */
export interface DesiredState {
  /** Account-wide settings; absent when the file has no `account` key (left alone). */
  readonly account?: DesiredAccount;
  readonly groups: readonly DesiredGroup[];
  readonly guides: readonly DesiredGuide[];
  /**
   * Mass-send tasks; absent when no file has `tasks` (tasks are not managed, and not read).
   * Invariants: no two tasks share a guide and a name ({@link taskKey}); each names a guide.
   */
  readonly tasks?: readonly DesiredTask[];
  /** Whether live objects missing from the file are deleted (tasks: cancelled); all default to false. */
  readonly prune: PrunePolicy;
  /**
   * Guides and groups that must never be deleted, nor (guides) removed from a group; absent when
   * the files protect nothing. See {@link ProtectPolicy}.
   */
  readonly protect?: ProtectPolicy;
  /** The limits of the deletion guards that the files set; absent when no file has `safety`. */
  readonly safety?: SafetyPolicy;
}

export interface PrunePolicy {
  readonly guides: boolean;
  readonly groups: boolean;
  /** Cancel the live pending tasks of the managed guides that the files do not list. */
  readonly tasks?: boolean;
}

/**
 * What the files protect: the union of every `protected: true` on a guide or group and every entry
 * of the top-level `protect` lists of all files. A `protect` entry need not be defined anywhere
 * else, so that a protected guide stays protected when its definition is dropped from `guides`.
 *
 * Invariants: `guides` holds each identity ({@link guideKey}) once and `groups` each name once,
 * each with the first place (in load order) that protects it; both are sorted (guides by key,
 * groups by name by UTF-16 code units).
 */
export interface ProtectPolicy {
  readonly guides: readonly ProtectedGuide[];
  readonly groups: readonly ProtectedGroup[];
  /** Tasks (by {@link taskKey}, sorted) that no plan may cancel; absent when none. */
  readonly tasks?: readonly ProtectedTask[];
}

/** A task that a plan may never cancel: `protected: true` on its entry. */
export interface ProtectedTask {
  readonly guide: GuideId;
  readonly name: string;
  readonly source: SourceRef;
}

/** A guide that a plan may never delete nor remove from a group. */
export interface ProtectedGuide {
  readonly id: GuideId;
  /** The `protected: true` key or the `protect` list entry that protects it. */
  readonly source: SourceRef;
}

/** A group that a plan may never delete. */
export interface ProtectedGroup {
  readonly name: string;
  readonly source: SourceRef;
}

/**
 * What a deletion guard counts: guides deleted, groups deleted, memberships removed, tasks
 * cancelled, and entries removed from the content lists: sensitive words (`words`), quick replies,
 * welcome messages (of guides and the account's default) and the offline reply. The names are the
 * user's (`--allow-delete quick_replies=N`, `safety.max_deletes.words`).
 */
export type DeleteKind =
  | 'guides'
  | 'groups'
  | 'memberships'
  | 'tasks'
  | 'words'
  | 'quick_replies'
  | 'welcome_messages'
  | 'offline_replies';

export const DELETE_KINDS: readonly DeleteKind[] = [
  'guides',
  'groups',
  'memberships',
  'tasks',
  'words',
  'quick_replies',
  'welcome_messages',
  'offline_replies',
];

/**
 * The `safety` section: limits of the deletion guards that replace the defaults. Each property is
 * absent when the file does not set it (the default then applies).
 *
 * Invariants: each of `maxDeletes` is a whole number ≥ 0; `maxDeleteShare` is in [0, 1].
 */
export interface SafetyPolicy {
  readonly maxDeletes: { readonly [K in DeleteKind]?: number };
  readonly maxDeleteShare?: number;
  /** Where the `safety` key was written. */
  readonly source: SourceRef;
}

/** The account-wide settings, and the default welcome of a guide configuration call that names no guide. */
export interface DesiredAccount {
  /**
   * The offline auto reply: a string of 1–300 characters (code points), `null` to delete it, or
   * absent to leave it alone.
   */
  readonly offlineAutoReply?: string | null;
  /** The sensitive words (`black_keyword`); absent to leave them alone. */
  readonly sensitiveWords?: DesiredSensitiveWords;
  /** The account-wide welcome messages, at most 2, in sending order; `[]` deletes them. */
  readonly defaultWelcome?: readonly WelcomeMessage[];
  readonly source: SourceRef;
}

/** How the target applies `black_keyword` writes; see "black_keyword" in the wire page. */
export type SensitiveWordSemantics = 'append' | 'replace';

export interface DesiredSensitiveWords {
  /** What the user says the target does with `black_keyword`; the planner must honour it. */
  readonly semantics: SensitiveWordSemantics;
  /**
   * The exact set of words. Invariants: each word is non-empty, no word appears twice, and the
   * list is sorted by UTF-16 code units (order carries no meaning; sorting keeps plans stable).
   */
  readonly words: readonly string[];
}

/**
 * A guide group, addressed by name.
 *
 * Invariants: `name` is non-empty. `members`, when present, is the exact membership: guide
 * accounts (membership works by account only), each non-empty and listed once, in the order
 * written. Absent `members` leaves the live membership alone.
 */
export interface DesiredGroup {
  readonly name: string;
  readonly members?: readonly string[];
  readonly source: SourceRef;
}

/** How a guide is named on the wire: by WeChat ID (`guide_account`) or by `guide_openid`. */
export type GuideId =
  | { readonly kind: 'account'; readonly account: string }
  | { readonly kind: 'openid'; readonly openid: string };

/**
 * One guide.
 *
 * Invariants: `nickname` has 1–16 code points; `headImageUrl` is an absolute http(s) URL.
 * `quickReplies`, when present, is ordered and each entry is non-empty; absent leaves the live
 * quick replies alone, `[]` deletes them all. `welcome`, when present, has at most 2 messages in
 * sending order; absent leaves them alone, `[]` deletes them.
 */
export interface DesiredGuide {
  readonly id: GuideId;
  readonly nickname: string;
  readonly headImageUrl: string;
  readonly quickReplies?: readonly string[];
  readonly welcome?: readonly WelcomeMessage[];
  readonly source: SourceRef;
}

/**
 * A welcome message (an auto reply on the wire, `msgtype` 1, 2 or 3). A closed union: switch on
 * `type` exhaustively.
 *
 * Invariants: `text` and `title` are non-empty; `title` has at most 35 code points; `mediaId` is
 * non-empty and made of `A–Z a–z 0–9 _ -`; `appid` matches `^wx[0-9a-f]{16}$`; `path` is non-empty.
 */
export type WelcomeMessage =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly mediaId: string }
  | {
      readonly type: 'miniprogram';
      readonly appid: string;
      readonly title: string;
      readonly path: string;
      readonly mediaId: string;
    };

/**
 * One mass-send task: a guide sends up to 3 materials to a list of its customers at a push time.
 * Matched with a live task by guide and name ({@link taskKey}).
 *
 * Invariants: `name` has 1–16 code points; `remark` at most 100 (`''` for none); `pushAt` is in
 * Unix seconds and `offsetMinutes` is the UTC offset it was written with (for messages);
 * `recipients` are distinct openids, sorted by UTF-16 code units, at least one; `materials` has
 * 1–3 entries, a text at most 300 UTF-8 bytes.
 */
export interface DesiredTask {
  readonly name: string;
  readonly guide: GuideId;
  readonly remark: string;
  readonly pushAt: number;
  readonly offsetMinutes: number;
  readonly recipients: readonly string[];
  readonly materials: readonly TaskMaterial[];
  readonly source: SourceRef;
  /** Where its push_at and its guide (or guide_openid) are written, for the plan's errors about them. */
  readonly sources?: { readonly pushAt: SourceRef; readonly guide: SourceRef };
}

/** A material of a task: the same three forms as a welcome message. */
export type TaskMaterial = WelcomeMessage;

/** Equal for two tasks exactly when they are the same guide's task of the same name. */
export function taskKey(guide: GuideId, name: string): string {
  return `${guideKey(guide)}\u0000${name}`;
}

/** A task as a user names it: `"Spring sale" of alice_wx`. */
export function describeTask(guide: GuideId, name: string): string {
  return `${JSON.stringify(name)} of ${describeGuideId(guide)}`;
}

/** A string that is equal for two guides exactly when they are the same guide: `account:x` or `openid:x`. */
export function guideKey(id: GuideId): string {
  return id.kind === 'account' ? `account:${id.account}` : `openid:${id.openid}`;
}

/**
 * The guide named by an account or an openid, in a file or on the wire: by account when it has
 * one, else by openid; a name that is missing, empty or not text names no guide.
 */
export function guideIdFrom(account: unknown, openid: unknown): GuideId | undefined {
  if (typeof account === 'string' && account !== '') return { kind: 'account', account };
  if (typeof openid === 'string' && openid !== '') return { kind: 'openid', openid };
  return undefined;
}

/** The guide's identity as a user would write it: the account, or `openid <id>`. */
export function describeGuideId(id: GuideId): string {
  return id.kind === 'account' ? id.account : `openid ${id.openid}`;
}
