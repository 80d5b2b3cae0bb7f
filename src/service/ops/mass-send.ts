import {
  CARD_TITLE_MAX_CHARS,
  MATERIAL_WORD_MAX_BYTES,
  MAX_TASK_MATERIALS,
  PUSH_WINDOW_SECONDS,
  TASK_NAME_MAX_CHARS,
  TASK_REMARK_MAX_CHARS,
} from '../../core/guide-rules.js';
import { isRecord } from '../../core/records.js';
import { ERRCODE } from '../../wire/errcodes.js';
import { ApiError, invalidArgs } from '../api-error.js';
import { MAX_PAGE_SIZE, nextId64, type OpContext } from '../context.js';
import {
  type Body,
  checkStringArray,
  field,
  isAbsent,
  optionalInt,
  optionalString,
  requireArray,
  requireGuideKey,
  requireId64,
  requireInt,
  requireString,
  utf8Length,
} from '../fields.js';
import { checkMediaId, checkMiniProgram, pictureUrl } from './auto-replies.js';
import { type GuideRow, guideIdentity, requireGuide } from './guide-rows.js';

/** How long after its push time an executed task is delivered and completed. */
export const DELIVERY_SECONDS = 60;

interface TaskRow {
  seq: number;
  id: string;
  guide_id: number;
  task_name: string;
  task_remark: string;
  push_time: number;
  create_time: number;
  update_time: number;
  finish_time: number;
  task_status: number;
  material: string;
}

/**
 * Moves tasks along with the clock: not executed (1) → executed (2) once the push time passes,
 * executed → completed (3) once delivered, each recipient then sent (2) or, if it no longer
 * follows the account, not following (3).
 */
export function settleTasks(ctx: OpContext): void {
  ctx.store.run('UPDATE tasks SET task_status = 2 WHERE task_status = 1 AND push_time <= ?', ctx.now);
  const delivered = ctx.store.all<{ seq: number; push_time: number }>(
    'SELECT seq, push_time FROM tasks WHERE task_status = 2 AND push_time + ? <= ?',
    DELIVERY_SECONDS,
    ctx.now,
  );
  for (const task of delivered) {
    ctx.store.run(
      `UPDATE task_buyers SET send_status = CASE WHEN EXISTS (SELECT 1 FROM followers f WHERE f.openid = task_buyers.openid)
       THEN 2 ELSE 3 END WHERE task_seq = ?`,
      task.seq,
    );
    ctx.store.run(
      'UPDATE tasks SET task_status = 3, finish_time = ? WHERE seq = ?',
      task.push_time + DELIVERY_SECONDS,
      task.seq,
    );
  }
}

function readPushTime(ctx: OpContext, value: number): number {
  if (value < ctx.now) throw invalidArgs('push_time is in the past');
  if (value > ctx.now + PUSH_WINDOW_SECONDS) {
    throw invalidArgs('push_time is more than one month ahead');
  }
  return value;
}

/** Materials as sent, checked, and returned in their read-back form (pic_url, no media_id). */
function readMaterials(ctx: OpContext, values: readonly unknown[]): object[] {
  if (values.length === 0) throw invalidArgs('material must hold at least one item');
  if (values.length > MAX_TASK_MATERIALS)
    throw invalidArgs(`material holds ${values.length} items; the limit is ${MAX_TASK_MATERIALS}`);
  return values.map((value, i) => {
    const name = `material[${i}]`;
    if (!isRecord(value)) throw invalidArgs(`${name} must be an object`);
    const type = requireInt(value, 'type');
    switch (type) {
      case 1: {
        const word = requireString(value, 'word');
        if (utf8Length(word) > MATERIAL_WORD_MAX_BYTES) {
          throw invalidArgs(
            `${name}.word is ${utf8Length(word)} bytes; the limit is ${MATERIAL_WORD_MAX_BYTES}`,
          );
        }
        return { type, word };
      }
      case 3:
        return { type, pic_url: pictureUrl(checkMediaId(`${name}.media_id`, field(value, 'media_id'))) };
      case 49: {
        const title = requireString(value, 'title', { maxChars: CARD_TITLE_MAX_CHARS });
        const path = requireString(value, 'path');
        const appid = checkMiniProgram(ctx, `${name}.appid`, field(value, 'appid'), 'card');
        const picUrl = pictureUrl(checkMediaId(`${name}.media_id`, field(value, 'media_id')));
        return { type, title, path, appid, pic_url: picUrl };
      }
      default:
        throw invalidArgs(`${name}.type must be 1 (text), 3 (image) or 49 (mini-program card)`);
    }
  });
}

/** Recipients: distinct openids, each a customer bound to the guide (else 9300806). */
function readRecipients(ctx: OpContext, guide: GuideRow, values: readonly unknown[]): string[] {
  const openids = [...new Set(checkStringArray('openid', values))];
  if (openids.length === 0) throw invalidArgs('openid must hold at least one customer');
  for (const openid of openids) {
    const bound = ctx.store.get<{ guide_id: number }>(
      'SELECT guide_id FROM bindings WHERE openid = ?',
      openid,
    );
    if (bound?.guide_id !== guide.id) {
      throw new ApiError(ERRCODE.customerNotBound, `customer ${openid} is not bound to this guide`);
    }
  }
  return openids;
}

function setRecipients(ctx: OpContext, taskSeq: number, openids: readonly string[]): void {
  ctx.store.run('DELETE FROM task_buyers WHERE task_seq = ?', taskSeq);
  for (const openid of openids) {
    ctx.store.run(
      'INSERT INTO task_buyers (task_seq, openid, send_status) VALUES (?, ?, 1)',
      taskSeq,
      openid,
    );
  }
}

export function addguidemassendjob(ctx: OpContext, body: Body): object {
  const guide = requireGuide(ctx, requireGuideKey(body));
  const name = requireString(body, 'task_name', { maxChars: TASK_NAME_MAX_CHARS });
  const remark =
    optionalString(body, 'task_remark', { maxChars: TASK_REMARK_MAX_CHARS, allowEmpty: true }) ?? '';
  const pushTime = readPushTime(ctx, requireInt(body, 'push_time'));
  const openids = readRecipients(ctx, guide, requireArray(body, 'openid'));
  const material = readMaterials(ctx, requireArray(body, 'material'));
  const id = nextId64(ctx);
  const inserted = ctx.store.run(
    `INSERT INTO tasks (id, guide_id, task_name, task_remark, push_time, create_time, update_time, finish_time,
     task_status, material) VALUES (?, ?, ?, ?, ?, ?, ?, 0, 1, ?)`,
    id,
    guide.id,
    name,
    remark,
    pushTime,
    ctx.now,
    ctx.now,
    JSON.stringify(material),
  );
  setRecipients(ctx, Number(inserted.lastInsertRowid), openids);
  return { task_result: [{ task_id: BigInt(id), openid: openids }] };
}

/** A task as read back; `buyers` in openid order (the list reads a page's buyers in one query). */
function taskAnswer(
  task: TaskRow,
  guide: GuideRow | undefined,
  buyers: readonly { openid: string; send_status: number }[],
): object {
  return {
    task_id: BigInt(task.id),
    ...(guide === undefined ? {} : guideIdentity(guide)),
    create_time: task.create_time,
    update_time: task.update_time,
    push_time: task.push_time,
    finish_time: task.finish_time,
    task_name: task.task_name,
    task_remark: task.task_remark,
    task_status: task.task_status,
    material: JSON.parse(task.material) as unknown,
    buyer_info: buyers,
  };
}

/** The recipients of each task of `tasks`, by task seq, each list in openid order. */
function buyersOf(
  ctx: OpContext,
  tasks: readonly TaskRow[],
): Map<number, { openid: string; send_status: number }[]> {
  const bySeq = new Map<number, { openid: string; send_status: number }[]>();
  for (const task of tasks) bySeq.set(task.seq, []);
  if (tasks.length === 0) return bySeq;
  const rows = ctx.store.rawRows<[number, string, number]>(
    `SELECT task_seq, openid, send_status FROM task_buyers WHERE task_seq IN (${tasks.map(() => '?').join(', ')})
     ORDER BY task_seq, openid`,
    ...tasks.map((t) => t.seq),
  );
  for (const [seq, openid, sendStatus] of rows) bySeq.get(seq)?.push({ openid, send_status: sendStatus });
  return bySeq;
}

function requireTask(ctx: OpContext, body: Body): TaskRow {
  const id = requireId64(body, 'task_id');
  settleTasks(ctx);
  const task = ctx.store.get<TaskRow>('SELECT * FROM tasks WHERE id = ?', id);
  if (task === undefined) throw invalidArgs(`task_id ${id} does not exist`);
  return task;
}

/** Only a task not yet executed can change; otherwise 40097 and nothing changes. */
function requirePendingTask(ctx: OpContext, body: Body): TaskRow {
  const task = requireTask(ctx, body);
  if (task.task_status !== 1) {
    throw invalidArgs(
      `task ${task.id} is in status ${task.task_status}; only a task not yet executed (1) can change`,
    );
  }
  return task;
}

export function getguidemassendjob(ctx: OpContext, body: Body): object {
  const task = requireTask(ctx, body);
  const guide = ctx.store.get<GuideRow>('SELECT * FROM guides WHERE id = ?', task.guide_id);
  return { job: taskAnswer(task, guide, buyersOf(ctx, [task]).get(task.seq) ?? []) };
}

export function getguidemassendjoblist(ctx: OpContext, body: Body): object {
  const guide = requireGuide(ctx, requireGuideKey(body));
  settleTasks(ctx);
  const statusValue = field(body, 'task_status');
  const statuses = isAbsent(statusValue)
    ? []
    : requireArray(body, 'task_status').map((s, i) => {
        if (typeof s !== 'number' || ![1, 2, 3, 4].includes(s))
          throw invalidArgs(`task_status[${i}] must be 1, 2, 3 or 4`);
        return s;
      });
  const offset = optionalInt(body, 'offset', { min: 0 }) ?? 0;
  const limit = Math.min(optionalInt(body, 'limit', { min: 1 }) ?? 50, MAX_PAGE_SIZE);
  const filter = statuses.length === 0 ? '' : ` AND task_status IN (${statuses.join(', ')})`;
  const total = ctx.store.get<{ n: number }>(
    `SELECT COUNT(*) AS n FROM tasks WHERE guide_id = ?${filter}`,
    guide.id,
  );
  const rows = ctx.store.all<TaskRow>(
    `SELECT * FROM tasks WHERE guide_id = ?${filter} ORDER BY seq LIMIT ? OFFSET ?`,
    guide.id,
    limit,
    offset,
  );
  const buyers = buyersOf(ctx, rows);
  return {
    total_count: total?.n ?? 0,
    list: rows.map((t) => taskAnswer(t, guide, buyers.get(t.seq) ?? [])),
  };
}

export function updateguidemassendjob(ctx: OpContext, body: Body): object {
  const task = requirePendingTask(ctx, body);
  const name = optionalString(body, 'task_name', { maxChars: TASK_NAME_MAX_CHARS });
  const remark = optionalString(body, 'task_remark', { maxChars: TASK_REMARK_MAX_CHARS, allowEmpty: true });
  const pushTime = optionalInt(body, 'push_time');
  const material = isAbsent(field(body, 'material'))
    ? undefined
    : readMaterials(ctx, requireArray(body, 'material'));
  const guide = ctx.store.get<GuideRow>('SELECT * FROM guides WHERE id = ?', task.guide_id);
  if (guide === undefined) throw invalidArgs(`task ${task.id} has no guide`);
  const openids = isAbsent(field(body, 'openid'))
    ? undefined
    : readRecipients(ctx, guide, requireArray(body, 'openid'));
  ctx.store.run(
    'UPDATE tasks SET task_name = ?, task_remark = ?, push_time = ?, material = ?, update_time = ? WHERE seq = ?',
    name ?? task.task_name,
    remark ?? task.task_remark,
    pushTime === undefined ? task.push_time : readPushTime(ctx, pushTime),
    material === undefined ? task.material : JSON.stringify(material),
    ctx.now,
    task.seq,
  );
  if (openids !== undefined) setRecipients(ctx, task.seq, openids);
  return {};
}

export function cancelguidemassendjob(ctx: OpContext, body: Body): object {
  const task = requirePendingTask(ctx, body);
  ctx.store.run('UPDATE tasks SET task_status = 4, update_time = ? WHERE seq = ?', ctx.now, task.seq);
  return {};
}
