import { guideIdFrom, guideKey } from '../core/desired.js';
import type { LiveWelcome } from '../core/live.js';
import {
  type CallBody,
  type CallSubject,
  isGroupRef,
  type PlannedCall,
  type PlannedOperation,
} from '../core/plan-data.js';
import { type Id64, toId64 } from '../wire/ids.js';
import type { AutoReplyRead } from '../wire/messages.js';
import type { OperationName } from '../wire/operations.js';
import type { AccountModel } from './account-model.js';

/**
 * What the kinds of resource share: the effect of a write ({@link WriteEffect}), the lost-answer
 * rules' types, and the small helpers that read wire bodies.
 */

/** A wire body as sent (64-bit ids as `bigint`). */
export type WireBody = Readonly<Record<string, unknown>>;

/** Calls a read operation for a confirmation; an answer whose errcode is in `accept` is returned. */
export type ConfirmRead = (
  operation: OperationName,
  body: WireBody,
  accept?: readonly number[],
) => Promise<Readonly<Record<string, unknown>>>;

/** The result of settling a lost answer by reading. */
export type Confirmation =
  | {
      readonly outcome: 'applied';
      readonly answer: Readonly<Record<string, unknown>>;
      readonly detail: string;
    }
  | { readonly outcome: 'not-applied'; readonly detail: string }
  | { readonly outcome: 'unknown'; readonly detail: string };

/** Ids (groups, tasks) this client has already attributed to one of its calls. */
export type Claims = Set<string>;

/** A resend is refused with one of `errcodes`: check whether the lost attempt had done the work. */
export interface RefusalCheck {
  readonly errcodes: readonly number[];
  /** The answer to report when the work is done, undefined when the refusal stands. */
  confirm(read: ConfirmRead, body: WireBody): Promise<Readonly<Record<string, unknown>> | undefined>;
}

export type LostAnswerPolicy =
  | { readonly kind: 'resend'; readonly afterRefusal?: RefusalCheck }
  | {
      readonly kind: 'confirm';
      /** Read before the first attempt; what `confirm` compares against. */
      snapshot(read: ConfirmRead, body: WireBody): Promise<unknown>;
      confirm(read: ConfirmRead, body: WireBody, snapshot: unknown, claims: Claims): Promise<Confirmation>;
    };

/** The lost-answer rule of a write: one policy, or one chosen by the body. */
export type LostAnswerRule = LostAnswerPolicy | ((body: WireBody) => LostAnswerPolicy);

/** The policy of a write that may simply be sent again. */
export const RESEND: LostAnswerPolicy = { kind: 'resend' };

/** The kinds of resource a call creates or deletes whole (the deletion guards count these). */
export type DeletedKind = 'guides' | 'groups' | 'memberships' | 'tasks';

/** Names of live things a body names by id: what a call's subject shows instead of the id. */
export interface SubjectNames {
  groupName(id: string): string | undefined;
  taskName(id: string): string | undefined;
}

/** What {@link WriteEffect.apply} reads of a call: its body, and the group name it creates. */
export type EffectCall = Pick<PlannedCall, 'body' | 'createsGroup'>;

/**
 * The effect of one write operation on the account, written once. The planner names its calls'
 * subjects with it, the deletion guards count with it, the check after apply and the tests' model
 * of the account run it, and the client settles a lost answer with it. The guide service never
 * uses it: it is the independent implementation these are checked against.
 */
export interface WriteEffect<O extends PlannedOperation> {
  readonly operation: O;
  /** Whom a call is about; undefined when the body lacks what the operation needs. */
  subject(body: CallBody, names: SubjectNames): CallSubject | undefined;
  /**
   * The one resource a call acts on, as a key: the planner runs the calls of one key in plan order,
   * and a call that {@link creates} makes the resource of its key.
   */
  touches(body: CallBody, names: SubjectNames): string;
  /** Keys of resources that must exist first: the call waits for their creation in the same plan. */
  needs?(body: CallBody, names: SubjectNames): readonly string[];
  /** What a call deletes whole, if anything (content lists are counted from {@link apply}). */
  readonly deletes?: DeletedKind;
  /** What a call creates whole, if anything. */
  readonly creates?: DeletedKind;
  /** The account after the call, as the API documents it (see {@link AccountModel}). */
  apply(model: AccountModel, call: EffectCall): void;
  /** What the client does when the call's answer is lost. */
  readonly lostAnswer: LostAnswerRule;
  /**
   * For a write whose lost answer is settled against the state before it (a `confirm` rule): that
   * state as the model knows it before the call, in place of a read; undefined when not known.
   */
  knownBefore?(model: AccountModel, call: EffectCall): readonly string[] | undefined;
}

/** The effects of some operations (a kind's writes), by operation. */
export type WriteEffects<O extends PlannedOperation> = { readonly [P in O]: WriteEffect<P> };

/** The success answer of a write with nothing more to say. */
export const OK = { errcode: 0, errmsg: 'ok' } as const;

/** A non-empty string value of a body, or undefined. */
export function text(body: WireBody, key: string): string | undefined {
  const v = body[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The guide named by a body, as a body for a read. */
export function guideOf(body: WireBody): WireBody {
  const account = text(body, 'guide_account');
  if (account !== undefined) return { guide_account: account };
  const openid = text(body, 'guide_openid');
  return openid === undefined ? {} : { guide_openid: openid };
}

/** A 64-bit id a body holds under `key`. */
export function idOf(body: WireBody, key: string): Id64 | undefined {
  return toId64(body[key]);
}

export function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((x) => right.has(x));
}

export function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The strings of a list value; other values count as none. */
export function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * A read-back auto reply as a welcome message; a card is parsed from its JSON string. The check
 * after apply also makes one of what it sent: the same normalisation as a read.
 */
export function toWelcome(reply: Pick<AutoReplyRead, 'content'> & { readonly msgtype: number }): LiveWelcome {
  switch (reply.msgtype) {
    case 1:
      return { type: 'text', text: reply.content };
    case 2:
      return { type: 'image', mediaId: reply.content };
    case 3: {
      const card = parseCard(reply.content);
      return card ?? { type: 'unknown', msgtype: 3, content: reply.content };
    }
    default:
      return { type: 'unknown', msgtype: reply.msgtype, content: reply.content };
  }
}

function parseCard(content: string): LiveWelcome | undefined {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const appid = Reflect.get(value, 'appid');
  const title = Reflect.get(value, 'title');
  const path = Reflect.get(value, 'path');
  if (typeof appid !== 'string' || typeof title !== 'string' || typeof path !== 'string') return undefined;
  return { type: 'miniprogram', appid, title, path };
}

/** A string value of a body, empty or not, or undefined. */
export function stringAt(body: WireBody, key: string): string | undefined {
  const v = body[key];
  return typeof v === 'string' ? v : undefined;
}

/** The resource key of the guide a body names; the account's when it names none. */
export function guideResource(body: CallBody): string {
  const id = guideIdFrom(body['guide_account'], body['guide_openid']);
  return id === undefined ? ACCOUNT_RESOURCE : `guide:${guideKey(id)}`;
}

/** The resource key of the account's own settings. */
export const ACCOUNT_RESOURCE = 'account';

/** The resource key of a group by name: what creating it makes. */
export function groupResource(name: string): string {
  return `group:${name}`;
}

/** The name of the group a body names, by a reference to its creation or by a live id. */
export function groupNameOf(body: CallBody, names: SubjectNames): string | undefined {
  const value = body['group_id'];
  return isGroupRef(value) ? value.$group : typeof value === 'string' ? names.groupName(value) : undefined;
}
