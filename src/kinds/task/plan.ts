import { compareText } from '../../core/compare-text.js';
import { formatCount } from '../../core/count.js';
import {
  type DesiredState,
  type DesiredTask,
  describeGuideId,
  describeTask,
  guideKey,
  type TaskMaterial,
  taskKey,
} from '../../core/desired.js';
import type { Diagnostic } from '../../core/diagnostics.js';
import { PUSH_WINDOW_SECONDS } from '../../core/guide-rules.js';
import type { LiveMaterial, LiveState, LiveTask } from '../../core/live.js';
import type { CallBody, FieldChange, JsonValue, Unmanaged } from '../../core/plan-data.js';
import { formatWrittenTime } from '../../core/task-time.js';
import { wireGuideIdentity } from '../../wire/guide-identity.js';
import { checkBodySize } from '../call-size.js';
import type { PlanBuilder } from '../plan-builder.js';
import type { KindPlan } from '../plan-context.js';
import { messageToJson, sameWelcome } from '../welcome.js';
import { ADD_TASK, CANCEL_TASK, UPDATE_TASK } from './writes.js';

/**
 * Mass-send tasks, with their lifecycle: a task missing live is added; a pending one that differs
 * is updated whole; an executed (or completed) one is history — a difference is a warning, never
 * a call nor a change; a live pending task the files do not list is cancelled under `prune.tasks`,
 * else listed as left alone. Cancelled live tasks are never read, so never matched. A task created
 * or updated must be pushed from `now` to one month ahead. Pure: `now` is passed in.
 */

/**
 * The task kind's steps: added, updated and cancelled once the guides they need are created;
 * the live tasks it leaves alone listed after the other kinds' deletions.
 */
export const TASK_PLAN: KindPlan = {
  schedule: (ctx) => {
    const now = taskClock(ctx.desired, ctx.live);
    const tasks = planTasks(ctx.builder, ctx.desired, ctx.live, {
      now,
      guidesAfter: ctx.facts.get('guidesAfter'),
    });
    for (const d of tasks.diagnostics) ctx.diagnostics.push(d);
    ctx.facts.set('tasksLeftAlone', tasks.unmanaged);
  },
  delete: (ctx) => {
    for (const u of ctx.facts.get('tasksLeftAlone')) ctx.unmanaged.push(u);
  },
};

/** The "now" of the task rules: when the live state was read. Tasks need it; a read without a clock is a bug. */
function taskClock(desired: DesiredState, live: LiveState): number {
  if (desired.tasks !== undefined && live.readAt === undefined)
    throw new Error('planChanges: tasks are managed but the live state has no readAt (the time of the read)');
  return live.readAt ?? 0;
}

/** What the task rules need besides the states: the time, and the guides the plan creates or deletes. */
export interface TaskContext {
  /** Unix seconds: the time the live state was read. */
  readonly now: number;
  /** Keys of the guides that exist after the plan: declared ones, and live ones not pruned. */
  readonly guidesAfter: ReadonlySet<string>;
}

export interface TaskPlan {
  readonly diagnostics: Diagnostic[];
  readonly unmanaged: Unmanaged[];
}

/** Plans the desired tasks (by guide and name) and the cancellations; calls go to `b`. */
function planTasks(b: PlanBuilder, desired: DesiredState, live: LiveState, ctx: TaskContext): TaskPlan {
  const out: TaskPlan = { diagnostics: [], unmanaged: [] };
  const tasks = desired.tasks;
  if (tasks === undefined) return out;
  const byKey = liveTasksByKey(live.tasks ?? []);
  const matched = new Set<string>();
  const sorted = [...tasks].sort((x, y) => compareText(taskKey(x.guide, x.name), taskKey(y.guide, y.name)));
  for (const task of sorted) {
    if (!ctx.guidesAfter.has(guideKey(task.guide))) {
      out.diagnostics.push({
        ...(task.sources?.guide ?? task.source),
        severity: 'error',
        code: 'task-guide-not-found',
        message: `the guide ${describeGuideId(task.guide)} of task ${JSON.stringify(task.name)} is neither declared under guides: nor a live guide the plan keeps`,
        hint: 'declare the guide under guides:, or correct the guide of the task',
      });
      continue;
    }
    const current = pickMatch(task, byKey.get(taskKey(task.guide, task.name)) ?? []);
    if (current !== undefined) matched.add(current.id);
    planTask(b, task, current, ctx, out.diagnostics);
  }
  planCancels(b, desired, live.tasks ?? [], matched, out);
  return out;
}

/** Live tasks by guide and name, each list by id (the oldest first). */
function liveTasksByKey(tasks: readonly LiveTask[]): Map<string, LiveTask[]> {
  const byKey = new Map<string, LiveTask[]>();
  for (const t of tasks) {
    const key = taskKey(t.guide, t.name);
    const list = byKey.get(key);
    if (list === undefined) byKey.set(key, [t]);
    else list.push(t);
  }
  for (const list of byKey.values()) list.sort(byId);
  return byKey;
}

/**
 * The live task a desired task manages: of its pending copies, the first (by id) that already
 * matches the files, else the oldest (the lowest id), so that every plan keeps the same one;
 * with none pending, the last one executed.
 */
function pickMatch(task: DesiredTask, candidates: readonly LiveTask[]): LiveTask | undefined {
  const pending = candidates.filter((t) => t.status === 'pending');
  const kept = pending.find((t) => taskDifferences(task, t).length === 0) ?? pending[0];
  if (kept !== undefined) return kept;
  return [...candidates].sort((x, y) => y.pushAt - x.pushAt || byId(y, x))[0];
}

function byId(x: LiveTask, y: LiveTask): number {
  const a = BigInt(x.id);
  const c = BigInt(y.id);
  return a === c ? 0 : a < c ? -1 : 1;
}

function planTask(
  b: PlanBuilder,
  task: DesiredTask,
  current: LiveTask | undefined,
  ctx: TaskContext,
  diagnostics: Diagnostic[],
): void {
  const address = describeTask(task.guide, task.name);
  if (current === undefined) {
    if (!inWindow(task, ctx.now, diagnostics)) return;
    const body = { ...wireGuideIdentity(task.guide), ...taskBody(task) };
    if (!fitsOneRequest(task, ADD_TASK.operation, body, diagnostics)) return;
    b.call(ADD_TASK, body);
    b.change({ resource: 'task', action: 'create', address, fields: createdFields(task) });
    return;
  }
  const fields = taskDifferences(task, current);
  if (fields.length === 0) return;
  if (current.status !== 'pending') {
    diagnostics.push({
      ...task.source,
      severity: 'warning',
      code: 'task-executed',
      message: `task ${address} was already executed at ${formatWrittenTime(current.pushAt, task.offsetMinutes)}; it cannot change (${[...new Set(fields.map((f) => f.field.replace(/_(added|removed)$/, '')))].join(', ')} differ)`,
      hint: 'an executed task is history: to send again, add a task with another name',
    });
    return;
  }
  if (!inWindow(task, ctx.now, diagnostics)) return;
  const body = { task_id: current.id, ...taskBody(task) };
  if (!fitsOneRequest(task, UPDATE_TASK.operation, body, diagnostics)) return;
  b.call(UPDATE_TASK, body);
  b.change({ resource: 'task', action: 'update', address, fields });
}

/**
 * A task goes in one request, recipients and all (a task cannot be split between calls): one the
 * service would refuse for its size is an error that says how many recipients it has.
 */
function fitsOneRequest(
  task: DesiredTask,
  operation: typeof ADD_TASK.operation | typeof UPDATE_TASK.operation,
  body: CallBody,
  diagnostics: Diagnostic[],
): boolean {
  const tooLarge = checkBodySize(
    body,
    task.source,
    `task ${JSON.stringify(task.name)} goes in one ${operation} request with its ${formatCount(task.recipients.length)} recipients, which`,
    'a task is sent whole: split its recipients between several tasks (each with a name of its own)',
  );
  if (tooLarge !== undefined) diagnostics.push(tooLarge);
  return tooLarge === undefined;
}

/** A task to create or update must be pushed from now to one month ahead; else an error that says when. */
function inWindow(task: DesiredTask, now: number, diagnostics: Diagnostic[]): boolean {
  const latest = now + PUSH_WINDOW_SECONDS;
  if (task.pushAt >= now && task.pushAt <= latest) return true;
  const at = (unix: number): string => formatWrittenTime(unix, task.offsetMinutes);
  const past = task.pushAt < now;
  diagnostics.push({
    ...(task.sources?.pushAt ?? task.source),
    severity: 'error',
    code: past ? 'task-push-time-past' : 'task-push-time-too-far',
    message: `push_at ${at(task.pushAt)} of task ${JSON.stringify(task.name)} is ${past ? 'in the past' : 'more than one month ahead'}; a task to create or change must be pushed from ${at(now)} to ${at(latest)}`,
    hint: past
      ? 'move push_at into that range, or remove the task if it is no longer wanted'
      : 'the API takes tasks at most one month ahead: add this task later',
  });
  return false;
}

/** The wire fields of a whole task, as its creation and its update take them. */
function taskBody(task: DesiredTask): Record<string, JsonValue> {
  return {
    task_name: task.name,
    task_remark: task.remark,
    push_time: task.pushAt,
    openid: [...task.recipients],
    material: task.materials.map(materialToWire),
  };
}

function materialToWire(material: TaskMaterial): JsonValue {
  switch (material.type) {
    case 'text':
      return { type: 1, word: material.text };
    case 'image':
      return { type: 3, media_id: material.mediaId };
    case 'miniprogram':
      return {
        type: 49,
        title: material.title,
        path: material.path,
        appid: material.appid,
        media_id: material.mediaId,
      };
    default: {
      const unreachable: never = material;
      return unreachable;
    }
  }
}

/**
 * A material compared by what reads back: as a welcome message is (a text by its text, a card by
 * appid, title and path), but an image by being one: its picture reads back as a URL, not its
 * media id.
 */
function sameMaterial(desired: TaskMaterial, live: LiveMaterial): boolean {
  if (desired.type === 'image') return live.type === 'image';
  return live.type !== 'image' && sameWelcome(desired, live);
}

/** What a new task sets: its push time, remark, recipient count and materials. */
function createdFields(task: DesiredTask): FieldChange[] {
  return [
    { field: 'push_at', after: formatWrittenTime(task.pushAt, task.offsetMinutes) },
    ...(task.remark === '' ? [] : [{ field: 'remark', after: task.remark }]),
    { field: 'recipients', after: task.recipients.length },
    { field: 'materials', after: task.materials.map(messageToJson) },
  ];
}

/**
 * The fields of a live task that differ from the desired one. Recipients are a set: their counts,
 * then the openids added and removed (sorted), rather than two lists of a thousand.
 */
function taskDifferences(task: DesiredTask, live: LiveTask): FieldChange[] {
  const fields: FieldChange[] = [];
  if (live.pushAt !== task.pushAt) {
    fields.push({
      field: 'push_at',
      before: formatWrittenTime(live.pushAt, task.offsetMinutes),
      after: formatWrittenTime(task.pushAt, task.offsetMinutes),
    });
  }
  if (live.remark !== task.remark) fields.push({ field: 'remark', before: live.remark, after: task.remark });
  const liveSet = new Set(live.recipients);
  const added = task.recipients.filter((r) => !liveSet.has(r));
  if (added.length > 0 || live.recipients.length !== task.recipients.length) {
    const wanted = new Set(task.recipients);
    const removed = live.recipients.filter((r) => !wanted.has(r));
    // The counts only when they differ: "2 → 2" says nothing the lists do not.
    if (live.recipients.length !== task.recipients.length)
      fields.push({ field: 'recipients', before: live.recipients.length, after: task.recipients.length });
    if (added.length > 0) fields.push({ field: 'recipients_added', after: added });
    if (removed.length > 0) fields.push({ field: 'recipients_removed', before: removed });
  }
  const sameMaterials =
    live.materials.length === task.materials.length &&
    task.materials.every((m, i) => {
      const l = live.materials[i];
      return l !== undefined && sameMaterial(m, l);
    });
  if (!sameMaterials) {
    fields.push({
      field: 'materials',
      before: live.materials.map(messageToJson),
      after: task.materials.map(messageToJson),
    });
  }
  return fields;
}

/**
 * The live pending tasks no desired task manages: a second pending copy of a listed one (left by
 * two applies at once, or a create whose late original landed after its resend) is cancelled
 * whatever `prune` says, with a warning, as copies of a declared group are deleted; an unlisted
 * one is cancelled under `prune.tasks`, else left alone and listed. Either way the cancel counts
 * under the tasks guard. Executed ones are history.
 */
function planCancels(
  b: PlanBuilder,
  desired: DesiredState,
  live: readonly LiveTask[],
  matched: ReadonlySet<string>,
  out: TaskPlan,
): void {
  const listed = new Map((desired.tasks ?? []).map((t) => [taskKey(t.guide, t.name), t]));
  // A live task has no offset of its own: its time is shown in the offset of the files' first task.
  const offset = desired.tasks?.[0]?.offsetMinutes ?? 0;
  const keptIds = new Map(
    live.filter((t) => matched.has(t.id)).map((t) => [taskKey(t.guide, t.name), t.id] as const),
  );
  const extra = live
    .filter((t) => t.status === 'pending' && !matched.has(t.id))
    .sort((x, y) => compareText(taskKey(x.guide, x.name), taskKey(y.guide, y.name)) || byId(x, y));
  for (const task of extra) {
    const address = describeTask(task.guide, task.name);
    const copyOf = listed.get(taskKey(task.guide, task.name));
    if (copyOf !== undefined) {
      const kept = keptIds.get(taskKey(task.guide, task.name));
      out.diagnostics.push({
        ...copyOf.source,
        severity: 'warning',
        code: 'task-live-duplicates',
        message: `task ${address} has another pending copy live (id ${task.id}); the plan keeps ${kept === undefined ? 'one' : `id ${kept}`} (the copy that matches the files, else the lowest id) and cancels this one`,
        hint: 'two applies at once, a task made by hand, or a create whose answer was lost and that landed late leave such copies; run one apply at a time',
      });
    }
    if (copyOf === undefined && desired.prune.tasks !== true) {
      out.unmanaged.push({ resource: 'task', address: `${address} (id ${task.id})` });
      continue;
    }
    b.call(CANCEL_TASK, { task_id: task.id });
    b.change({
      resource: 'task',
      action: 'delete',
      address: `${address} (id ${task.id}${copyOf === undefined ? '' : ', a copy'})`,
      fields: [
        { field: 'push_at', before: formatWrittenTime(task.pushAt, offset) },
        { field: 'recipients', before: task.recipients.length },
      ],
    });
  }
}
