import { describeTask, guideIdFrom, guideKey } from '../../core/desired.js';
import type { CallBody, CallSubject } from '../../core/plan-data.js';
import { ERRCODE } from '../../wire/errcodes.js';
import { type Id64, id64ToJson } from '../../wire/ids.js';
import { decodeAnswer } from '../../wire/messages.js';
import {
  type ConfirmRead,
  guideOf,
  guideResource,
  idOf,
  type LostAnswerPolicy,
  OK,
  type SubjectNames,
  sameSet,
  stringAt,
  stringsOf,
  type WireBody,
  type WriteEffects,
} from '../kind.js';

/** The effects of a task's writes: adding a task, updating one, cancelling one. */

/** A live task named by its id: its name (as {@link describeTask}) and the id. */
function taskByIdSubject(body: CallBody, names: SubjectNames): CallSubject | undefined {
  const id = body['task_id'];
  const name = typeof id === 'string' ? names.taskName(id) : undefined;
  return name === undefined ? undefined : { kind: 'task', address: `${name} (id ${String(id)})` };
}

/** A live task is its own resource, by id: an update and a cancel never name the same one. */
function taskByIdResource(body: CallBody): string {
  return `task-id:${String(body['task_id'])}`;
}

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

/** Each add makes a task: done when exactly one new task has the name, time and recipients sent. */
const addLost: LostAnswerPolicy = {
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

/** A repeat of a done update is refused (the task may have run): done when it has the fields sent. */
const updateLost: LostAnswerPolicy = {
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

/** A repeat is refused: done when the task is cancelled. */
const cancelLost: LostAnswerPolicy = {
  kind: 'resend',
  afterRefusal: {
    errcodes: [ERRCODE.invalidArgs],
    confirm: async (read, body) => ((await readTask(read, body))?.task_status === 4 ? OK : undefined),
  },
};

export const TASK_WRITES: WriteEffects<
  'addguidemassendjob' | 'updateguidemassendjob' | 'cancelguidemassendjob'
> = {
  addguidemassendjob: {
    operation: 'addguidemassendjob',
    subject(body) {
      const guide = guideIdFrom(body['guide_account'], body['guide_openid']);
      const name = body['task_name'];
      if (guide === undefined || typeof name !== 'string') return undefined;
      return { kind: 'task', address: describeTask(guide, name) };
    },
    touches: (body) => `task:${guideResource(body)}\u0000${stringAt(body, 'task_name') ?? ''}`,
    needs: (body) => [guideResource(body)],
    creates: 'tasks',
    apply(model, { body }) {
      const guide = model.guideNamed(body);
      if (guide === undefined) return;
      model.addTask({
        guide: guideKey(guide.id),
        name: stringAt(body, 'task_name') ?? '',
        remark: stringAt(body, 'task_remark') ?? '',
        pushAt: Number(body['push_time']),
        recipients: stringsOf(body['openid']),
      });
    },
    lostAnswer: addLost,
    knownBefore(model, { body }) {
      const guide = guideIdFrom(body['guide_account'], body['guide_openid']);
      return guide === undefined ? undefined : model.taskIdsOf(guide);
    },
  },
  updateguidemassendjob: {
    operation: 'updateguidemassendjob',
    subject: taskByIdSubject,
    touches: taskByIdResource,
    apply(model, { body }) {
      const task = model.taskNamed(body);
      if (task === undefined) return;
      model.editTask(task, (t) => {
        t.name = stringAt(body, 'task_name') ?? t.name;
        t.remark = stringAt(body, 'task_remark') ?? t.remark;
        if (body['push_time'] !== undefined) t.pushAt = Number(body['push_time']);
        if (body['openid'] !== undefined) t.recipients = stringsOf(body['openid']);
      });
    },
    lostAnswer: updateLost,
  },
  cancelguidemassendjob: {
    operation: 'cancelguidemassendjob',
    subject: taskByIdSubject,
    touches: taskByIdResource,
    deletes: 'tasks',
    apply(model, { body }) {
      const task = model.taskNamed(body);
      if (task === undefined) return;
      model.editTask(task, (t) => {
        t.status = 'cancelled';
      });
    },
    lostAnswer: cancelLost,
  },
};

/** The task writes by what they do: the planner makes its calls through these. */
export const {
  addguidemassendjob: ADD_TASK,
  updateguidemassendjob: UPDATE_TASK,
  cancelguidemassendjob: CANCEL_TASK,
} = TASK_WRITES;
