import type { Indexed } from './positions.js';

/**
 * One desired-state file exactly as written, once it has passed `schema/guidectl.schema.json`.
 * These types mirror the schema; `config/merge-files.ts` and the kinds' normalising turn them into
 * the `DesiredState` of `core/`. Only `config/` and `kinds/` see them.
 */
export interface WrittenFile {
  readonly version: 1;
  readonly environments?: Readonly<Record<string, WrittenEnvironment>>;
  readonly account?: WrittenAccount;
  readonly groups?: readonly WrittenGroup[];
  readonly guides?: readonly WrittenGuide[];
  readonly tasks?: readonly WrittenTask[];
  readonly prune?: WrittenPrune;
  readonly protect?: WrittenProtect;
  readonly safety?: WrittenSafety;
}

/** One entry of `environments:`; its name is the key. */
export interface WrittenEnvironment {
  readonly base_url?: string;
  /** A prefix of variable names, never a secret (the schema's pattern). */
  readonly credentials?: string;
  readonly values?: Readonly<Record<string, string>>;
}

export interface WrittenAccount {
  readonly offline_auto_reply?: string | null;
  readonly sensitive_words?: {
    readonly semantics: 'append' | 'replace';
    readonly words: readonly string[];
  };
  readonly default_welcome?: readonly WrittenWelcome[];
}

/** Exactly one of the three keys (the schema's minProperties/maxProperties). */
export type WrittenWelcome =
  | { readonly text: string }
  | { readonly image: string }
  | { readonly miniprogram: WrittenMiniprogram };

export interface WrittenMiniprogram {
  readonly appid: string;
  readonly title: string;
  readonly path: string;
  readonly media_id: string;
}

export interface WrittenGroup {
  readonly name: string;
  readonly members?: readonly string[];
  readonly protected?: boolean;
  readonly only_in?: readonly string[];
}

/** Exactly one of `account` and `openid` (the schema's oneOf). */
export interface WrittenGuide {
  readonly account?: string;
  readonly openid?: string;
  readonly nickname: string;
  readonly head_image_url: string;
  readonly quick_replies?: readonly string[];
  readonly welcome?: readonly WrittenWelcome[];
  readonly protected?: boolean;
  readonly only_in?: readonly string[];
}

/** Exactly one of `guide` and `guide_openid`, and one of `recipients` and `recipients_file`. */
export interface WrittenTask {
  readonly name: string;
  readonly guide?: string;
  readonly guide_openid?: string;
  readonly remark?: string;
  readonly push_at: string;
  readonly recipients?: readonly string[];
  readonly recipients_file?: string;
  readonly materials: readonly WrittenWelcome[];
  readonly protected?: boolean;
  readonly only_in?: readonly string[];
}

export interface WrittenPrune {
  readonly guides?: boolean;
  readonly groups?: boolean;
  readonly tasks?: boolean;
}

export interface WrittenProtect {
  readonly guides?: readonly string[];
  readonly guide_openids?: readonly string[];
  readonly groups?: readonly string[];
  readonly tasks?: readonly WrittenProtectedTask[];
}

/** A `protect.tasks` entry: a task by its guide (exactly one of the two keys) and name. */
export interface WrittenProtectedTask {
  readonly guide?: string;
  readonly guide_openid?: string;
  readonly name: string;
}

export interface WrittenSafety {
  readonly max_deletes?: {
    readonly guides?: number;
    readonly groups?: number;
    readonly memberships?: number;
    readonly tasks?: number;
    readonly words?: number;
    readonly quick_replies?: number;
    readonly welcome_messages?: number;
    readonly offline_replies?: number;
  };
  /** A share from 0 to 1, or a percentage such as `25%` (the schema's pattern: 0% to 100%). */
  readonly max_delete_share?: number | string;
}

/**
 * The parts of a file for the rules across entries and files. For a file that passed the schema
 * these are all of it; for a file that did not, the sections that passed on their own, and each
 * guide, group and task whose key fields passed, with its other fields that passed
 * (`salvageParts`), so that its other mistakes are still reported in the same run.
 */
export interface WrittenParts {
  readonly account?: WrittenAccount;
  readonly prune?: WrittenPrune;
  readonly safety?: WrittenSafety;
  readonly guides: readonly Indexed<RuleGuide>[];
  readonly groups: readonly Indexed<RuleGroup>[];
  readonly tasks: readonly Indexed<RuleTask>[];
  /**
   * Set when a guide (or the list of guides) is left out because its account or openid did not
   * pass: a member or task that names no guide of the files may name that one.
   */
  readonly incomplete?: true;
}

/** What the rules read of a guide: exactly one of `account` and `openid`; the rest when it passed. */
export interface RuleGuide {
  readonly account?: string;
  readonly openid?: string;
  readonly head_image_url?: string;
  readonly only_in?: readonly string[];
}

/** What the rules read of a group: its name; its members when they passed. */
export interface RuleGroup {
  readonly name: string;
  readonly members?: readonly string[];
  readonly only_in?: readonly string[];
}

/**
 * What the rules read of a task: its name and exactly one of `guide` and `guide_openid`, or none
 * of the three when they did not all pass (a task that broke the schema there: it takes part only
 * in the checks of its own values); the rest when it passed. `recipients` and `recipients_file`
 * are there when written, even if wrong (then empty), and a material is undefined when it did not
 * pass.
 */
export interface RuleTask {
  readonly name?: string;
  readonly guide?: string;
  readonly guide_openid?: string;
  readonly push_at?: string;
  readonly recipients?: readonly string[];
  readonly recipients_file?: string;
  readonly materials?: readonly (WrittenWelcome | undefined)[];
  readonly only_in?: readonly string[];
}
