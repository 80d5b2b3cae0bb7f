import { ifDefined } from '../core/records.js';
import { AnswerReader } from './decode.js';
import { type Id64, id64ToJson, toId64 } from './ids.js';
import type { OperationName } from './operations.js';
import { InvalidRequestError } from './shape-errors.js';

/**
 * The request and answer of every guide operation, with the wire names of `wechat-guide-api.md`,
 * and the code that puts a request on the wire (`encodeRequest`) and checks an answer
 * (`decodeAnswer`).
 *
 * Invariants:
 * - Field names are the wire names, byte for byte; nothing is renamed.
 * - 64-bit ids (`group_id`, `task_id`, a group's `id`) are `Id64` decimal strings in answers and
 *   never pass through a double; requests take them as `Id64Input` and send them as bare JSON
 *   numbers, every digit kept.
 * - A decoded answer holds only the fields of its type, each checked; `errcode`/`errmsg` are
 *   handled by the caller before decoding (only success answers are decoded).
 */

// ---------------------------------------------------------------------------------------------
// Shared shapes

/**
 * A guide named in a request: exactly one of `guide_account` (WeChat ID) and `guide_openid`
 * (openid or unionid). Never both, never empty.
 */
export type GuideIdentity =
  | { readonly guide_account: string; readonly guide_openid?: never }
  | { readonly guide_openid: string; readonly guide_account?: never };

/** No guide named: for setguideconfig/getguideconfig this addresses the account-wide default. */
export interface NoGuide {
  readonly guide_account?: never;
  readonly guide_openid?: never;
}

/** A guide named in an answer: the key it was added with, and only that one. */
export interface GuideIdentityRead {
  readonly guide_account?: string;
  readonly guide_openid?: string;
}

/**
 * A 64-bit id as a request accepts it: an `Id64` from an answer, a decimal string, or a `bigint`.
 * Checked before the call (`InvalidRequestError` if it is not an unsigned 64-bit integer). A JS
 * `number` is deliberately not accepted: it cannot hold these ids exactly.
 */
export type Id64Input = Id64 | string | bigint;

/** Guide status: 1 invitation pending, 2 confirmed, 3 rejected, 4 expired. */
export type GuideStatus = 1 | 2 | 3 | 4;
export const GUIDE_STATUSES: readonly GuideStatus[] = [1, 2, 3, 4];

/** Chat message content type: 1 text, 3 image, 49 mini-program card. */
export type ContentType = 1 | 3 | 49;
export const CONTENT_TYPES: readonly ContentType[] = [1, 3, 49];

/** Chat message direction: 1 guide to customer, 2 customer to guide. */
export type Direction = 1 | 2;
export const DIRECTIONS: readonly Direction[] = [1, 2];

/** How far back the API keeps chat records: older ones cannot be queried. */
export const CHAT_WINDOW_SECONDS = 30 * 86_400;

/** Auto reply message type: 1 text, 2 image (content = media id), 3 mini-program card. */
export type Msgtype = 1 | 2 | 3;
export const MSGTYPES: readonly Msgtype[] = [1, 2, 3];

/** Mass-send task status: 1 not yet executed, 2 executed, 3 completed, 4 cancelled. */
export type TaskStatus = 1 | 2 | 3 | 4;
export const TASK_STATUSES: readonly TaskStatus[] = [1, 2, 3, 4];

/** Send status of one recipient: 1 not sent, 2 sent, 3 not following, 4 no quota, 5 system error. */
export type SendStatus = 1 | 2 | 3 | 4 | 5;
export const SEND_STATUSES: readonly SendStatus[] = [1, 2, 3, 4, 5];

/** Material type of a mass-send task: 1 text, 3 image, 49 mini-program card. */
export type MaterialType = 1 | 3 | 49;
export const MATERIAL_TYPES: readonly MaterialType[] = [1, 3, 49];

// ---------------------------------------------------------------------------------------------
// Guide accounts

export type AddGuideAcctRequest = GuideIdentity & {
  readonly guide_headimgurl: string;
  /** At most 16 characters (9300810 past it). */
  readonly guide_nickname: string;
};

export type UpdateGuideAcctRequest = GuideIdentity & {
  readonly guide_headimgurl?: string;
  readonly guide_nickname?: string;
};

export type GetGuideAcctRequest = GuideIdentity;

export interface GetGuideAcctAnswer extends GuideIdentityRead {
  readonly guide_nickname: string;
  readonly guide_headimgurl: string;
  readonly status: GuideStatus;
}

export type DelGuideAcctRequest = GuideIdentity;

/** `page` starts at 0; `num` is the page size (a server may return fewer). */
export interface PageRequest {
  readonly page: number;
  readonly num: number;
}

export type GetGuideAcctListRequest = PageRequest;

export interface GuideAcctListItem extends GuideIdentityRead {
  readonly guide_headimgurl: string;
  readonly guide_nickname: string;
}

export interface GetGuideAcctListAnswer {
  readonly total_num: number;
  readonly list: readonly GuideAcctListItem[];
}

export type GuideCreateQrcodeRequest = GuideIdentity & {
  /** Echoed in the scan event. */
  readonly qrcode_info?: string;
};

export interface GuideCreateQrcodeAnswer {
  readonly qrcode_url: string;
}

export type GetGuideBuyerChatRecordRequest = GuideIdentity &
  PageRequest & {
    /** The customer; all customers of the guide when absent. */
    readonly openid?: string;
    /** Unix seconds; the window applies only when both ends are non-zero. */
    readonly begin_time?: number;
    readonly end_time?: number;
  };

export interface ChatMessage extends GuideIdentityRead {
  readonly openid: string;
  readonly create_time: number;
  readonly content: string;
  readonly content_type: ContentType;
  readonly direction: Direction;
}

export interface GetGuideBuyerChatRecordAnswer {
  readonly total_num: number;
  readonly msg_list: readonly ChatMessage[];
}

export interface PushShowWxaPathMenuRequest {
  /** The mini program's appid (mini games are refused with 40166). */
  readonly wxa_appid: string;
  /** WeChat ID of a follower (the doc's own example misspells it `wxa_username`). */
  readonly wx_username: string;
}

// ---------------------------------------------------------------------------------------------
// Quick replies, welcome messages, sensitive words

/** A welcome message as set: for msgtype 3, `content` is the JSON string of the card. */
export interface AutoReplySet {
  readonly msgtype: Msgtype;
  /** Absent only to delete (`is_delete: true`). */
  readonly content?: string;
}

export interface AutoReplyRead {
  readonly msgtype: Msgtype;
  readonly content: string;
  readonly updatetime: number;
}

export interface FastReplyRead {
  readonly content: string;
  readonly updatetime: number;
}

/**
 * Quick replies need a guide; `is_delete: false` with `guide_fast_reply_list` appends, `is_delete:
 * true` with it removes every quick reply. Welcome messages: a set replaces both; a delete
 * (`guide_auto_reply: {msgtype: 1}`) removes both.
 */
export type SetGuideConfigRequest = (GuideIdentity | NoGuide) & {
  readonly is_delete: boolean;
  readonly guide_fast_reply_list?: readonly { readonly content: string }[];
  readonly guide_auto_reply?: AutoReplySet;
  readonly guide_auto_reply_plus?: AutoReplySet;
};

export type GetGuideConfigRequest = GuideIdentity | NoGuide;

export interface GetGuideConfigAnswer {
  readonly guide_fast_reply_list: readonly FastReplyRead[];
  readonly guide_auto_reply?: AutoReplyRead;
  readonly guide_auto_reply_plus?: AutoReplyRead;
}

/**
 * Account settings. `black_keyword`: left out leaves the words alone; `null` with `is_delete:
 * false` deletes all (append semantics); `is_delete: true` with values deletes those words.
 * `guide_auto_reply` (offline auto reply, at most 300 characters): `is_delete: true` with it, or
 * `null` (whatever `is_delete`), deletes it; left out, it is left alone.
 */
export interface SetGuideAcctConfigRequest {
  readonly is_delete: boolean;
  readonly black_keyword?: { readonly values: readonly string[] } | null;
  readonly guide_auto_reply?: { readonly content: string } | null;
}

export type GetGuideAcctConfigRequest = Readonly<Record<string, never>>;

export interface GetGuideAcctConfigAnswer {
  readonly black_keyword: { readonly values: readonly string[]; readonly updatetime: number };
  readonly guide_auto_reply?: { readonly content: string };
}

// ---------------------------------------------------------------------------------------------
// Guide groups

export interface NewGuideGroupRequest {
  readonly group_name: string;
}

export interface NewGuideGroupAnswer {
  readonly group_id: Id64;
}

export type GetGuideGroupListRequest = Readonly<Record<string, never>>;

export interface GuideGroup {
  readonly id: Id64;
  readonly name: string;
  readonly create_time: number;
  readonly update_time: number;
}

export interface GetGuideGroupListAnswer {
  readonly group_list: readonly GuideGroup[];
}

export interface GetGroupInfoRequest extends PageRequest {
  readonly group_id: Id64Input;
}

export interface GroupMember extends GuideIdentityRead {
  readonly guide_headimgurl: string;
  readonly guide_nickname: string;
  /** When the guide joined the group. */
  readonly create_time: number;
}

export interface GetGroupInfoAnswer {
  readonly total_num: number;
  readonly guide_list: readonly GroupMember[];
}

/** Membership names the guide by `guide_account` only. */
export interface GroupMembershipRequest {
  readonly group_id: Id64Input;
  readonly guide_account: string;
}

export interface GetGroupByGuideRequest {
  readonly guide_account: string;
}

export interface GetGroupByGuideAnswer {
  readonly group_id_list: readonly Id64[];
}

export interface DelGuideGroupRequest {
  readonly group_id: Id64Input;
}

// ---------------------------------------------------------------------------------------------
// Mass-send tasks

/** Material as sent: text (`word`, at most 300 bytes), image, or mini-program card. */
export type MaterialSend =
  | { readonly type: 1; readonly word: string }
  | { readonly type: 3; readonly media_id: string }
  | {
      readonly type: 49;
      readonly title: string;
      readonly path: string;
      readonly appid: string;
      readonly media_id: string;
    };

/** Material as read back: `pic_url` instead of `media_id`. */
export interface MaterialRead {
  readonly type: MaterialType;
  readonly word?: string;
  readonly pic_url?: string;
  readonly title?: string;
  readonly path?: string;
  readonly appid?: string;
}

export type AddGuideMassendJobRequest = GuideIdentity & {
  /** At most 16 characters. */
  readonly task_name: string;
  /** At most 100 characters. */
  readonly task_remark?: string;
  /** Unix seconds, from now to one month ahead. */
  readonly push_time: number;
  /** Customers bound to the guide (else 9300806). */
  readonly openid: readonly string[];
  /** At most 3. */
  readonly material: readonly MaterialSend[];
};

export interface TaskResult {
  readonly task_id: Id64;
  readonly openid: readonly string[];
}

export interface AddGuideMassendJobAnswer {
  readonly task_result: readonly TaskResult[];
}

export interface TaskIdRequest {
  readonly task_id: Id64Input;
}

export interface BuyerInfo {
  readonly openid: string;
  readonly send_status: SendStatus;
}

export interface MassendTask extends GuideIdentityRead {
  readonly task_id: Id64;
  readonly create_time: number;
  readonly update_time: number;
  readonly push_time: number;
  /** 0 until finished. */
  readonly finish_time: number;
  readonly task_name: string;
  readonly task_remark: string;
  readonly task_status: TaskStatus;
  readonly material: readonly MaterialRead[];
  readonly buyer_info: readonly BuyerInfo[];
}

export interface GetGuideMassendJobAnswer {
  readonly job: MassendTask;
}

export type GetGuideMassendJobListRequest = GuideIdentity & {
  /** Empty or absent: every status. */
  readonly task_status?: readonly TaskStatus[];
  readonly offset?: number;
  /** Default 50. */
  readonly limit?: number;
};

export interface GetGuideMassendJobListAnswer {
  readonly total_count: number;
  readonly list: readonly MassendTask[];
}

export interface UpdateGuideMassendJobRequest {
  readonly task_id: Id64Input;
  readonly task_name?: string;
  readonly task_remark?: string;
  readonly push_time?: number;
  readonly openid?: readonly string[];
  readonly material?: readonly MaterialSend[];
}

// ---------------------------------------------------------------------------------------------
// The map of every operation

/**
 * Request and answer type of each operation. `undefined` answers carry nothing besides
 * errcode/errmsg. The `satisfies` below makes a missing operation a compile error.
 */
export interface OperationTypes {
  addguideacct: { request: AddGuideAcctRequest; answer: undefined };
  updateguideacct: { request: UpdateGuideAcctRequest; answer: undefined };
  getguideacct: { request: GetGuideAcctRequest; answer: GetGuideAcctAnswer };
  delguideacct: { request: DelGuideAcctRequest; answer: undefined };
  getguideacctlist: { request: GetGuideAcctListRequest; answer: GetGuideAcctListAnswer };
  guidecreateqrcode: { request: GuideCreateQrcodeRequest; answer: GuideCreateQrcodeAnswer };
  getguidebuyerchatrecord: { request: GetGuideBuyerChatRecordRequest; answer: GetGuideBuyerChatRecordAnswer };
  pushshowwxapathmenu: { request: PushShowWxaPathMenuRequest; answer: undefined };
  setguideconfig: { request: SetGuideConfigRequest; answer: undefined };
  getguideconfig: { request: GetGuideConfigRequest; answer: GetGuideConfigAnswer };
  setguideacctconfig: { request: SetGuideAcctConfigRequest; answer: undefined };
  getguideacctconfig: { request: GetGuideAcctConfigRequest; answer: GetGuideAcctConfigAnswer };
  newguidegroup: { request: NewGuideGroupRequest; answer: NewGuideGroupAnswer };
  getguidegrouplist: { request: GetGuideGroupListRequest; answer: GetGuideGroupListAnswer };
  getgroupinfo: { request: GetGroupInfoRequest; answer: GetGroupInfoAnswer };
  addguide2guidegroup: { request: GroupMembershipRequest; answer: undefined };
  delguide2guidegroup: { request: GroupMembershipRequest; answer: undefined };
  getgroupbyguide: { request: GetGroupByGuideRequest; answer: GetGroupByGuideAnswer };
  delguidegroup: { request: DelGuideGroupRequest; answer: undefined };
  addguidemassendjob: { request: AddGuideMassendJobRequest; answer: AddGuideMassendJobAnswer };
  getguidemassendjob: { request: TaskIdRequest; answer: GetGuideMassendJobAnswer };
  getguidemassendjoblist: { request: GetGuideMassendJobListRequest; answer: GetGuideMassendJobListAnswer };
  updateguidemassendjob: { request: UpdateGuideMassendJobRequest; answer: undefined };
  cancelguidemassendjob: { request: TaskIdRequest; answer: undefined };
}

export type RequestOf<Op extends OperationName> = OperationTypes[Op]['request'];
export type AnswerOf<Op extends OperationName> = OperationTypes[Op]['answer'];

// ---------------------------------------------------------------------------------------------
// Encoding requests

/** Request fields that hold 64-bit ids (all at the top level of a body). */
const ID_FIELDS: ReadonlySet<string> = new Set(['group_id', 'task_id']);
const GUIDE_KEYS: ReadonlySet<string> = new Set(['guide_account', 'guide_openid']);

/**
 * The JSON body of a request: `undefined` fields left out, an empty or `null` guide key left out
 * (the wire page: never send one), and 64-bit ids turned into `bigint` so that `stringifyJson`
 * writes them as bare numbers. Throws `InvalidRequestError` for an id that is not an unsigned
 * 64-bit integer or a request naming a guide by both keys.
 */
export function encodeRequest<Op extends OperationName>(
  operation: Op,
  request: RequestOf<Op>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(request)) {
    if (value === undefined) continue;
    if (GUIDE_KEYS.has(key) && (value === null || value === '')) continue;
    if (ID_FIELDS.has(key)) {
      const id = toId64(value);
      if (id === undefined) {
        throw new InvalidRequestError(
          operation,
          `${key} must be an unsigned 64-bit integer given as a decimal string or bigint`,
        );
      }
      body[key] = id64ToJson(id);
    } else {
      body[key] = value;
    }
  }
  if (body['guide_account'] !== undefined && body['guide_openid'] !== undefined) {
    throw new InvalidRequestError(operation, 'name the guide by guide_account or guide_openid, not both');
  }
  return body;
}

/** The JSON string a mini-program card welcome message (msgtype 3) carries as its `content`. */
export function miniProgramCardContent(card: {
  readonly media_id: string;
  readonly title: string;
  readonly path: string;
  readonly appid: string;
}): string {
  return JSON.stringify({ media_id: card.media_id, title: card.title, path: card.path, appid: card.appid });
}

// ---------------------------------------------------------------------------------------------
// Decoding answers

function identity(r: AnswerReader): GuideIdentityRead {
  const account = r.optionalString('guide_account');
  const openid = r.optionalString('guide_openid');
  if (openid === undefined) return account === undefined ? {} : { guide_account: account };
  return account === undefined ? { guide_openid: openid } : { guide_account: account, guide_openid: openid };
}

function autoReply(r: AnswerReader): AutoReplyRead {
  return {
    msgtype: r.oneOf('msgtype', MSGTYPES),
    content: r.string('content'),
    updatetime: r.has('updatetime') ? r.integer('updatetime') : 0,
  };
}

function material(r: AnswerReader): MaterialRead {
  const word = r.optionalString('word');
  const picUrl = r.optionalString('pic_url');
  const title = r.optionalString('title');
  const path = r.optionalString('path');
  const appid = r.optionalString('appid');
  return {
    type: r.oneOf('type', MATERIAL_TYPES),
    ...ifDefined('word', word),
    ...ifDefined('pic_url', picUrl),
    ...ifDefined('title', title),
    ...ifDefined('path', path),
    ...ifDefined('appid', appid),
  };
}

function task(r: AnswerReader): MassendTask {
  return {
    task_id: r.id64('task_id'),
    ...identity(r),
    create_time: r.integer('create_time'),
    update_time: r.integer('update_time'),
    push_time: r.integer('push_time'),
    finish_time: r.has('finish_time') ? r.integer('finish_time') : 0,
    task_name: r.string('task_name'),
    task_remark: r.optionalString('task_remark') ?? '',
    task_status: r.oneOf('task_status', TASK_STATUSES),
    material: r.objects('material', material),
    buyer_info: r.objects('buyer_info', (b) => ({
      openid: b.string('openid'),
      send_status: b.oneOf('send_status', SEND_STATUSES),
    })),
  };
}

function guideListItem(r: AnswerReader): GuideAcctListItem {
  const item: { -readonly [K in keyof GuideAcctListItem]: GuideAcctListItem[K] } = {
    guide_headimgurl: r.string('guide_headimgurl'),
    guide_nickname: r.string('guide_nickname'),
  };
  const account = r.optionalString('guide_account');
  const openid = r.optionalString('guide_openid');
  if (account !== undefined) item.guide_account = account;
  if (openid !== undefined) item.guide_openid = openid;
  return item;
}

const nothing = (): undefined => undefined;

type Decoders = { readonly [Op in OperationName]: (r: AnswerReader) => AnswerOf<Op> };

const DECODERS: Decoders = {
  addguideacct: nothing,
  updateguideacct: nothing,
  getguideacct: (r) => ({
    ...identity(r),
    guide_nickname: r.string('guide_nickname'),
    guide_headimgurl: r.string('guide_headimgurl'),
    status: r.oneOf('status', GUIDE_STATUSES),
  }),
  delguideacct: nothing,
  getguideacctlist: (r) => ({ total_num: r.integer('total_num'), list: r.objects('list', guideListItem) }),
  guidecreateqrcode: (r) => ({ qrcode_url: r.string('qrcode_url') }),
  getguidebuyerchatrecord: (r) => ({
    total_num: r.integer('total_num'),
    msg_list: r.objects('msg_list', (m) => ({
      ...identity(m),
      openid: m.string('openid'),
      create_time: m.integer('create_time'),
      content: m.string('content'),
      content_type: m.oneOf('content_type', CONTENT_TYPES),
      direction: m.oneOf('direction', DIRECTIONS),
    })),
  }),
  pushshowwxapathmenu: nothing,
  setguideconfig: nothing,
  getguideconfig: (r) => {
    const first = r.optionalObject('guide_auto_reply');
    const second = r.optionalObject('guide_auto_reply_plus');
    return {
      guide_fast_reply_list: r.objects('guide_fast_reply_list', (f) => ({
        content: f.string('content'),
        updatetime: f.has('updatetime') ? f.integer('updatetime') : 0,
      })),
      ...(first === undefined ? {} : { guide_auto_reply: autoReply(first) }),
      ...(second === undefined ? {} : { guide_auto_reply_plus: autoReply(second) }),
    };
  },
  setguideacctconfig: nothing,
  getguideacctconfig: (r) => {
    const words = r.optionalObject('black_keyword');
    const offline = r.optionalObject('guide_auto_reply');
    return {
      black_keyword: {
        values: words === undefined ? [] : words.strings('values'),
        updatetime: words?.has('updatetime') === true ? words.integer('updatetime') : 0,
      },
      ...(offline === undefined ? {} : { guide_auto_reply: { content: offline.string('content') } }),
    };
  },
  newguidegroup: (r) => ({ group_id: r.id64('group_id') }),
  getguidegrouplist: (r) => ({
    group_list: r.objects('group_list', (g) => ({
      id: g.id64('id'),
      name: g.string('name'),
      create_time: g.integer('create_time'),
      update_time: g.has('update_time') ? g.integer('update_time') : g.integer('create_time'),
    })),
  }),
  getgroupinfo: (r) => ({
    total_num: r.integer('total_num'),
    guide_list: r.objects('guide_list', (g) => ({
      ...guideListItem(g),
      create_time: g.integer('create_time'),
    })),
  }),
  addguide2guidegroup: nothing,
  delguide2guidegroup: nothing,
  getgroupbyguide: (r) => ({ group_id_list: r.id64s('group_id_list') }),
  delguidegroup: nothing,
  addguidemassendjob: (r) => ({
    task_result: r.objects('task_result', (t) => ({
      task_id: t.id64('task_id'),
      openid: t.strings('openid'),
    })),
  }),
  getguidemassendjob: (r) => ({ job: task(r.object('job')) }),
  getguidemassendjoblist: (r) => ({ total_count: r.integer('total_count'), list: r.objects('list', task) }),
  updateguidemassendjob: nothing,
  cancelguidemassendjob: nothing,
};

/** `quota/get`'s request: the path of the guide operation whose quota is read. */
export interface QuotaGetRequest {
  readonly cgi_path: string;
}

/** The daily quota of one operation: calls a day, made today, and left today. */
export interface OperationQuota {
  readonly daily_limit: number;
  readonly used: number;
  readonly remain: number;
}

/** Checks `quota/get`'s success answer and returns its `quota`. */
export function decodeQuotaAnswer(answer: unknown): OperationQuota {
  const quota = AnswerReader.of('quota/get', answer).object('quota');
  return {
    daily_limit: quota.integer('daily_limit'),
    used: quota.integer('used'),
    remain: quota.integer('remain'),
  };
}

/**
 * Checks a success answer (as parsed by `parseJson`) against the shape of its operation and
 * returns it typed, without `errcode`/`errmsg`. Throws `MalformedAnswerError` naming the field.
 */
export function decodeAnswer<Op extends OperationName>(operation: Op, answer: unknown): AnswerOf<Op> {
  const decode: (r: AnswerReader) => AnswerOf<Op> = DECODERS[operation];
  return decode(AnswerReader.of(operation, answer));
}
