import { isRecord } from './records.js';
/**
 * The plan: plain data computed by pure code (`plan/`), interpreted by `apply/` and rendered by
 * `report/`. It can be serialised, saved, hashed and printed; it holds no function and no secret.
 *
 * Invariants:
 * - `calls` is in execution order: group creations, guide creations and updates, configuration,
 *   memberships, then deletions. Every call's `dependsOn` names only earlier calls.
 * - A call's `body` is the exact wire body, except that a group created by this plan is named by a
 *   {@link GroupRef} where its id will go; apply fills it from that `newguidegroup`'s answer.
 * - 64-bit ids in bodies are decimal strings (see {@link PlannedCall.body}).
 * - The same desired and live state always give the same plan, byte for byte.
 */

export const PLAN_FORMAT_VERSION = 1;

export type ResourceKind = 'guide' | 'group' | 'account' | 'task';
export type ChangeAction = 'create' | 'update' | 'delete';

/** One field of a resource that changes; `before`/`after` are JSON values, absent for none. */
export interface FieldChange {
  readonly field: string;
  readonly before?: JsonValue;
  readonly after?: JsonValue;
}

/** A change of one resource, addressed as the user would name it (a guide account, a group name). */
export interface Change {
  readonly resource: ResourceKind;
  readonly action: ChangeAction;
  /** `alice_wx`, `openid oXYZ`, a group's name, or `account`. */
  readonly address: string;
  readonly fields: readonly FieldChange[];
}

/** Placeholder for the id of a group this plan creates. */
export interface GroupRef {
  readonly $group: string;
}

export type JsonValue =
  | string
  | number
  | boolean
  | null
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/** A wire body whose values may include group placeholders. */
export type CallBody = { readonly [key: string]: JsonValue | GroupRef };

/**
 * The operations a plan makes, by wire name: a closed set, so that code switching on a call's
 * operation is checked to handle each (`const unreachable: never`). Each is an operation of the
 * guide API (`apply/` passes it to the client, whose type says so).
 */
export type PlannedOperation =
  | 'newguidegroup'
  | 'addguideacct'
  | 'updateguideacct'
  | 'setguideconfig'
  | 'setguideacctconfig'
  | 'addguide2guidegroup'
  | 'delguide2guidegroup'
  | 'delguideacct'
  | 'delguidegroup'
  | 'addguidemassendjob'
  | 'updateguidemassendjob'
  | 'cancelguidemassendjob';

/** What a call is about: a guide, a group, one guide's membership of a group, or the account. */
export type SubjectKind = 'guide' | 'group' | 'membership' | 'account' | 'task';

/**
 * The kinds of subject each planned operation has (`setguideconfig` configures a guide, or the
 * account when it names none). Keyed by every {@link PlannedOperation} and nothing else: the one
 * list of planned operations, which a saved plan's calls are checked against.
 */
export const SUBJECT_KINDS: { readonly [O in PlannedOperation]: readonly SubjectKind[] } = {
  newguidegroup: ['group'],
  addguideacct: ['guide'],
  updateguideacct: ['guide'],
  setguideconfig: ['guide', 'account'],
  setguideacctconfig: ['account'],
  addguide2guidegroup: ['membership'],
  delguide2guidegroup: ['membership'],
  delguideacct: ['guide'],
  delguidegroup: ['group'],
  addguidemassendjob: ['task'],
  updateguidemassendjob: ['task'],
  cancelguidemassendjob: ['task'],
};

/**
 * The operation that deletes one resource of each kind the deletion guards count by call, so that
 * the schema's words for `safety.max_deletes` name it without writing it again.
 */
export const DELETING_OPERATIONS: {
  readonly [K in 'guides' | 'groups' | 'memberships' | 'tasks']: PlannedOperation;
} = {
  guides: 'delguideacct',
  groups: 'delguidegroup',
  memberships: 'delguide2guidegroup',
  tasks: 'cancelguidemassendjob',
};

/** Whether `name` is an operation a plan makes (one of {@link SUBJECT_KINDS}'s keys). */
export function isPlannedOperation(name: string): name is PlannedOperation {
  return Object.hasOwn(SUBJECT_KINDS, name);
}

/**
 * Whom a call is about, named as the user names it, so that renderers never read bodies:
 * - `guide`: `alice_wx`, or `openid oXYZ` for a guide known by openid (as {@link Change.address});
 * - `group`: the group's name, `North`; for a live group the call names by id (a deletion), the
 *   name and the id, `North (id 1860131524965138433)`, since copies share a name;
 * - `membership`: the guide's account and the group's name as JSON, `alice_wx in "North"`;
 * - `task`: the task's name as JSON and its guide, `"Spring sale" of alice_wx`; for a call that
 *   names a live task by id (an update, a cancellation), with the id: `"Spring sale" of alice_wx (id 1860…)`;
 * - `account`: `account`.
 *
 * Invariant: a function of the call's operation and body, and of the names of the live groups
 * its body names by id (`plan/call-subject.ts` computes it, for the planner and for saved plans).
 */
export interface CallSubject {
  readonly kind: SubjectKind;
  readonly address: string;
}

export interface PlannedCall {
  /** The operation's wire name, e.g. `addguideacct`. */
  readonly operation: PlannedOperation;
  readonly body: CallBody;
  /** Whom the call is about; `"target"` in the plan's JSON. */
  readonly subject: CallSubject;
  /** Indices of earlier calls that must succeed before this one may run. */
  readonly dependsOn: readonly number[];
  /** For `newguidegroup`: the group name whose id later calls take from its answer. */
  readonly createsGroup?: string;
}

/** A live resource the file does not mention, left alone unless `prune` says otherwise (a task: a pending one). */
export interface Unmanaged {
  readonly resource: 'guide' | 'group' | 'task';
  readonly address: string;
}

export interface PlanSummary {
  readonly add: number;
  readonly change: number;
  readonly delete: number;
  readonly calls: number;
}

export interface Plan {
  readonly formatVersion: typeof PLAN_FORMAT_VERSION;
  readonly summary: PlanSummary;
  /** Sorted by section (account, group, guide, task: each kind's `changeSection`), then address. */
  readonly changes: readonly Change[];
  readonly calls: readonly PlannedCall[];
  readonly unmanaged: readonly Unmanaged[];
  /** How sensitive words are written, as the file says the target behaves. */
  readonly sensitiveWordSemantics?: 'append' | 'replace';
}

export function isGroupRef(value: unknown): value is GroupRef {
  return isRecord(value) && '$group' in value;
}

/**
 * A call's body as sent on the wire (and shown to machines): 64-bit ids, held in the plan as
 * decimal strings, become `bigint`s so that they are written as bare JSON numbers; each group
 * placeholder becomes what `groupRef` makes of it (the created id, or the placeholder itself).
 */
export function wireBody(body: CallBody, groupRef: (ref: GroupRef) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (isGroupRef(value)) out[key] = groupRef(value);
    else if ((key === 'group_id' || key === 'task_id') && typeof value === 'string') out[key] = BigInt(value);
    else out[key] = value;
  }
  return out;
}

/** What happened to a call of a plan during apply. */
export type CallStatus = 'done' | 'failed' | 'not-started';

export interface CallOutcome {
  /** The call's index in `Plan.calls`. */
  readonly index: number;
  readonly operation: PlannedOperation;
  readonly status: CallStatus;
  /** Why it failed, or why it was not started. */
  readonly reason?: string;
  /**
   * True for a failed call whose request was on the wire when the user abandoned the run (a second
   * Ctrl-C): its outcome is unknown, and it may have taken effect.
   */
  readonly abandoned?: true;
}

/** The outcome of running a plan: one entry per call, in plan order. */
export interface ApplyResult {
  readonly outcomes: readonly CallOutcome[];
  /** Ids of the groups the plan created, by name. */
  readonly createdGroups: ReadonlyMap<string, string>;
  /**
   * Indices of the calls done whose answer vouches on its own for what they did: the answer of
   * their first attempt, not a retry, not a lost answer settled by a read, not a write held past
   * its timeout. Absent: none is known to (the check after the calls then reads everything).
   */
  readonly vouched?: ReadonlySet<number>;
  /**
   * The operations whose daily quota ran out: a call found it used up (45009), or calls past what
   * remained of it were not started. Absent when none.
   */
  readonly quotaExhausted?: ReadonlySet<PlannedOperation>;
}
