import {
  type ConfirmRead,
  guideOf,
  idOf,
  type LostAnswerPolicy,
  OK,
  RESEND,
  sameList,
  sameSet,
  stringsOf,
  text,
  type WireBody,
} from '../kinds/kind.js';
import { ERRCODE } from '../wire/errcodes.js';
import { type Id64, id64ToJson } from '../wire/ids.js';
import { decodeAnswer } from '../wire/messages.js';
import type { OPERATIONS, OperationName } from '../wire/operations.js';

/**
 * What the client does with a write whose answer did not come back — the connection broke, or
 * the attempt timed out — so that the write may or may not have taken effect. A write must never
 * be applied twice, never land after a call that depends on it, and never be reported wrongly.
 *
 * **Ordering barrier (every write).** An attempt that times out is not abandoned: the server may
 * still be working on it, and a RESEND, or the next call of the plan, could then race the late
 * original (a retried "delete all quick replies" landing after the append that followed it, and
 * wiping it). The client keeps the request open for up to `settleMs` more (120 s) and waits for
 * its late answer, holding the call — and so everything that depends on it — until it comes:
 * - a late answer settles the attempt as any answer does (0: done; -1, 45011: no effect, retry);
 * - a connection that breaks meanwhile means the server is done with it: the rules below apply;
 * - nothing even then: the exchange is given up, the call fails with `CallOutcomeUnknownError`
 *   (no RESEND, no read: neither can tell what a request still in flight will do) and is counted
 *   in `GuideClient.abandonedWrites`, so that no caller declares the account converged while it
 *   could still land.
 * A write call therefore ends only when none of its attempts can land any more.
 *
 * **After a lost answer that is settled**, each write operation has one rule:
 *
 * | operation | idempotent? | after a lost answer |
 * |---|---|---|
 * | addguideacct | no: a repeat is refused with 9300803 | resend; 9300803 on the resend → read `getguideacct`: same nickname and image → done |
 * | updateguideacct | yes (sets fields) | resend |
 * | delguideacct | yes | resend; 9300804 on the resend → read `getguideacct`: 9300804 → done |
 * | guidecreateqrcode | no, but harmless: each call makes one more working code | resend |
 * | pushshowwxapathmenu | yes (renews the 60 days) | resend |
 * | setguideconfig, welcome set / delete, quick-reply delete | yes (replaces / removes all) | resend (the barrier above keeps a late delete from following the append after it) |
 * | setguideconfig, quick-reply append | **no** (appends) | read-before-resend: the guide's quick replies before the call (read first, or given by the caller, as apply does from its plan); after the loss, read them again: list = before + the new entries → done; list = before → not applied, send again; anything else → outcome unknown |
 * | setguideacctconfig | yes (word set union / delete / replace; offline reply set / delete) | resend |
 * | newguidegroup | **no** (names are not unique) | read-before-resend: the ids of the groups of that name before the call (read first, or given by the caller: apply plans a group only when none has its name); after the loss, list the groups: exactly one new group of that name (not claimed by another call of this client) → done, with its id; none → not applied, send again; several → outcome unknown |
 * | addguide2guidegroup | no: a repeat is refused with 40097 | resend; 40097 on the resend → read `getgroupbyguide`: member → done |
 * | delguide2guidegroup | no: a repeat is refused with 40097 | resend; 40097 on the resend → read `getgroupbyguide`: not a member → done |
 * | delguidegroup | no: a repeat is refused with 40097 | resend; 40097 on the resend → read `getguidegrouplist`: gone → done |
 * | addguidemassendjob | **no** (each call makes a task) | read-before-resend: the guide's tasks of status 1–2 before the call (read first, or given by the caller, as apply does from the tasks its plan read); after the loss, read again: exactly one new task with the same name, push time and recipients → done, with its task_id; none → not applied, send again; several → outcome unknown |
 * | updateguidemassendjob | yes while the task is pending | resend; 40097 on the resend → read `getguidemassendjob`: fields as requested → done |
 * | cancelguidemassendjob | no: a repeat is refused with 40097 | resend; 40097 on the resend → read `getguidemassendjob`: status 4 → done |
 *
 * **Watching for a lost create or append.** A connection that breaks after the request was sent,
 * or a gateway that answers 502, 503 or 504, says nothing of the request itself: behind a gateway
 * that gave up (nginx after its timeout) the service may still be working on it, and apply it a
 * moment later. So a "not applied" read is not believed at once: the read is repeated (every
 * 0.25 s, doubling to 2 s) until it shows the write, or until the settle window
 * (`settleWindowMs`, 15 s) has passed; only then is the write sent again. The time watched does
 * not count towards the write's retry budget.
 *
 * An append whose state before was neither read nor given cannot be settled: a lost answer is
 * then an unknown outcome. The call also fails with `CallOutcomeUnknownError` when the retries
 * run out after a lost answer, or a confirming read fails. A -1 or 45011 answer means the call
 * had no effect (as the API documents), so it is simply retried, within the time budget.
 *
 * Limits, stated plainly: another client writing the same objects at the same moment can make a
 * confirmation see its write as ours (a group of the same name, a task with the same name, time
 * and recipients); the rules above then report the call done rather than apply it twice. A
 * connection that breaks is taken to mean that the server is done with the request, as the
 * guide service is, for the writes that may be resent; a proxy that drops the connection while
 * the server still works may then let a late original land after the resend (harmless for these:
 * each sets a whole value, or is refused on a repeat), or after the call that follows it. A
 * create or an append whose original lands only after the settle window is made twice: the next
 * plan reconciles the copies (groups and tasks of one name; a quick-reply list is set again).
 */
/** The operations that write. */
export type WriteOperation = {
  [Op in OperationName]: (typeof OPERATIONS)[Op]['writes'] extends true ? Op : never;
}[OperationName];

const addGuide: LostAnswerPolicy = {
  kind: 'resend',
  afterRefusal: {
    errcodes: [ERRCODE.alreadyGuide],
    async confirm(read, body) {
      const guide = decodeAnswer('getguideacct', await read('getguideacct', guideOf(body)));
      const same =
        guide.guide_nickname === body['guide_nickname'] &&
        guide.guide_headimgurl === body['guide_headimgurl'];
      return same ? OK : undefined;
    },
  },
};

const delGuide: LostAnswerPolicy = {
  kind: 'resend',
  afterRefusal: {
    errcodes: [ERRCODE.guideNotFound],
    async confirm(read, body) {
      const answer = await read('getguideacct', guideOf(body), [ERRCODE.guideNotFound]);
      return answer['errcode'] === ERRCODE.guideNotFound ? OK : undefined;
    },
  },
};

async function quickReplies(read: ConfirmRead, body: WireBody): Promise<string[]> {
  const config = decodeAnswer('getguideconfig', await read('getguideconfig', guideOf(body)));
  return config.guide_fast_reply_list.map((r) => r.content);
}

/** The contents of the quick replies a `setguideconfig` body appends; undefined if it appends none. */
export function appendedReplies(body: WireBody): string[] | undefined {
  const list = body['guide_fast_reply_list'];
  if (body['is_delete'] !== false || !Array.isArray(list) || list.length === 0) return undefined;
  const contents: string[] = [];
  for (const item of list) {
    const content: unknown =
      typeof item === 'object' && item !== null ? Reflect.get(item, 'content') : undefined;
    if (typeof content !== 'string') return undefined;
    contents.push(content);
  }
  return contents;
}

const appendQuickReplies: LostAnswerPolicy = {
  kind: 'confirm',
  snapshot: quickReplies,
  async confirm(read, body, snapshot) {
    const before = Array.isArray(snapshot) ? snapshot.filter((s): s is string => typeof s === 'string') : [];
    const added = appendedReplies(body) ?? [];
    const now = await quickReplies(read, body);
    if (sameList(now, [...before, ...added]))
      return { outcome: 'applied', answer: OK, detail: `the ${added.length} quick replies are there` };
    if (sameList(now, before)) return { outcome: 'not-applied', detail: 'the quick replies are unchanged' };
    return { outcome: 'unknown', detail: 'the quick replies changed in another way meanwhile' };
  },
};

async function groupIdsNamed(read: ConfirmRead, name: unknown): Promise<Id64[]> {
  const list = decodeAnswer('getguidegrouplist', await read('getguidegrouplist', {}));
  return list.group_list.filter((g) => g.name === name).map((g) => g.id);
}

const newGroup: LostAnswerPolicy = {
  kind: 'confirm',
  snapshot: (read, body) => groupIdsNamed(read, body['group_name']),
  async confirm(read, body, snapshot, claims) {
    const before = new Set(Array.isArray(snapshot) ? snapshot : []);
    const fresh = (await groupIdsNamed(read, body['group_name'])).filter(
      (id) => !before.has(id) && !claims.has(id),
    );
    const [only] = fresh;
    if (fresh.length === 1 && only !== undefined) {
      claims.add(only);
      return {
        outcome: 'applied',
        answer: { ...OK, group_id: id64ToJson(only) },
        detail: `group ${only} exists`,
      };
    }
    if (fresh.length === 0) return { outcome: 'not-applied', detail: 'no new group of that name' };
    return { outcome: 'unknown', detail: `${fresh.length} new groups of that name appeared meanwhile` };
  },
};

async function memberOf(read: ConfirmRead, body: WireBody): Promise<boolean | undefined> {
  const group = idOf(body, 'group_id');
  const account = text(body, 'guide_account');
  if (group === undefined || account === undefined) return undefined;
  const groups = decodeAnswer('getgroupbyguide', await read('getgroupbyguide', { guide_account: account }));
  return groups.group_id_list.includes(group);
}

const addMember: LostAnswerPolicy = {
  kind: 'resend',
  afterRefusal: {
    errcodes: [ERRCODE.invalidArgs],
    confirm: async (read, body) => ((await memberOf(read, body)) === true ? OK : undefined),
  },
};

const delMember: LostAnswerPolicy = {
  kind: 'resend',
  afterRefusal: {
    errcodes: [ERRCODE.invalidArgs],
    confirm: async (read, body) => ((await memberOf(read, body)) === false ? OK : undefined),
  },
};

const delGroup: LostAnswerPolicy = {
  kind: 'resend',
  afterRefusal: {
    errcodes: [ERRCODE.invalidArgs],
    async confirm(read, body) {
      const id = idOf(body, 'group_id');
      if (id === undefined) return undefined;
      const list = decodeAnswer('getguidegrouplist', await read('getguidegrouplist', {}));
      return list.group_list.some((g) => g.id === id) ? undefined : OK;
    },
  },
};

interface TaskSummary {
  readonly id: Id64;
  readonly name: string;
  readonly pushTime: number;
  readonly openids: readonly string[];
}

/** Every task of the guide of `body` whose status is pending or executed, all pages. */
async function openTasks(read: ConfirmRead, body: WireBody): Promise<TaskSummary[]> {
  const tasks: TaskSummary[] = [];
  for (let offset = 0; ; ) {
    const page = decodeAnswer(
      'getguidemassendjoblist',
      await read('getguidemassendjoblist', { ...guideOf(body), task_status: [1, 2], offset, limit: 100 }),
    );
    for (const t of page.list) {
      tasks.push({
        id: t.task_id,
        name: t.task_name,
        pushTime: t.push_time,
        openids: t.buyer_info.map((b) => b.openid),
      });
    }
    offset += page.list.length;
    if (page.list.length === 0 || offset >= page.total_count) return tasks;
  }
}

const addTask: LostAnswerPolicy = {
  kind: 'confirm',
  snapshot: async (read, body) => (await openTasks(read, body)).map((t) => t.id),
  async confirm(read, body, snapshot, claims) {
    const before = new Set(Array.isArray(snapshot) ? snapshot : []);
    const openids = stringsOf(body['openid']);
    const fresh = (await openTasks(read, body)).filter(
      (t) =>
        !before.has(t.id) &&
        !claims.has(t.id) &&
        t.name === body['task_name'] &&
        t.pushTime === Number(body['push_time']) &&
        sameSet(t.openids, openids),
    );
    const [only] = fresh;
    if (fresh.length === 1 && only !== undefined) {
      claims.add(only.id);
      return {
        outcome: 'applied',
        answer: { ...OK, task_result: [{ task_id: id64ToJson(only.id), openid: [...only.openids] }] },
        detail: `task ${only.id} exists`,
      };
    }
    if (fresh.length === 0) return { outcome: 'not-applied', detail: 'no new task of that name' };
    return { outcome: 'unknown', detail: `${fresh.length} matching new tasks appeared meanwhile` };
  },
};

async function readTask(read: ConfirmRead, body: WireBody) {
  const id = idOf(body, 'task_id');
  if (id === undefined) return undefined;
  return decodeAnswer('getguidemassendjob', await read('getguidemassendjob', { task_id: id64ToJson(id) }))
    .job;
}

const updateTask: LostAnswerPolicy = {
  kind: 'resend',
  afterRefusal: {
    errcodes: [ERRCODE.invalidArgs],
    async confirm(read, body) {
      const task = await readTask(read, body);
      if (task === undefined) return undefined;
      const matches =
        (body['task_name'] === undefined || task.task_name === body['task_name']) &&
        (body['task_remark'] === undefined || task.task_remark === body['task_remark']) &&
        (body['push_time'] === undefined || task.push_time === Number(body['push_time'])) &&
        (body['openid'] === undefined ||
          sameSet(
            task.buyer_info.map((b) => b.openid),
            stringsOf(body['openid']),
          )) &&
        (body['material'] === undefined ||
          (Array.isArray(body['material']) && task.material.length === body['material'].length));
      return matches ? OK : undefined;
    },
  },
};

const cancelTask: LostAnswerPolicy = {
  kind: 'resend',
  afterRefusal: {
    errcodes: [ERRCODE.invalidArgs],
    confirm: async (read, body) => ((await readTask(read, body))?.task_status === 4 ? OK : undefined),
  },
};

const POLICIES: {
  readonly [Op in WriteOperation]: LostAnswerPolicy | ((body: WireBody) => LostAnswerPolicy);
} = {
  addguideacct: addGuide,
  updateguideacct: RESEND,
  delguideacct: delGuide,
  guidecreateqrcode: RESEND,
  pushshowwxapathmenu: RESEND,
  setguideconfig: (body) => (appendedReplies(body) === undefined ? RESEND : appendQuickReplies),
  setguideacctconfig: RESEND,
  newguidegroup: newGroup,
  addguide2guidegroup: addMember,
  delguide2guidegroup: delMember,
  delguidegroup: delGroup,
  addguidemassendjob: addTask,
  updateguidemassendjob: updateTask,
  cancelguidemassendjob: cancelTask,
};

export function isWriteOperation(operation: OperationName): operation is WriteOperation {
  return Object.hasOwn(POLICIES, operation);
}

/** The rule for a write whose answer was lost (see the table above). */
export function lostAnswerPolicy(operation: WriteOperation, body: WireBody): LostAnswerPolicy {
  const policy = POLICIES[operation];
  return typeof policy === 'function' ? policy(body) : policy;
}
