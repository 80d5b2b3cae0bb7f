import type { TaskSummary } from '../core/account-records.js';
import { compareText } from '../core/compare-text.js';
import { countOf, formatCount } from '../core/count.js';
import { describeGuideId } from '../core/desired.js';
import { isoLocalTime, shortLocalTime } from '../core/wall-time.js';
import { escapeControls } from './escape.js';
import { alignColumns } from './table.js';

/** The version of `guidectl tasks --json`; raised only when a key is renamed or removed. */
export const TASKS_FORMAT_VERSION = 1;

/** Tasks in the order both outputs show them: push time, then guide, name and id. */
export function sortTasks(tasks: readonly TaskSummary[]): TaskSummary[] {
  const key = (t: TaskSummary): string => describeGuideId(t.guide);
  return [...tasks].sort(
    (a, b) =>
      a.pushAt - b.pushAt ||
      compareText(key(a), key(b)) ||
      compareText(a.name, b.name) ||
      compareText(a.id.padStart(20, '0'), b.id.padStart(20, '0')),
  );
}

/**
 * The tasks as a table for people: name, guide, push time in the local zone, recipients, state
 * and id (for `guidectl api … '{"task_id": ID}'`), columns aligned by display width (a Chinese
 * name takes two columns a character), every string from the account with its controls escaped.
 */
export function renderTaskTable(tasks: readonly TaskSummary[], timeZone: string | undefined): string {
  if (tasks.length === 0) return 'No tasks.\n';
  const rows = sortTasks(tasks).map((t) => [
    escapeControls(t.name),
    escapeControls(describeGuideId(t.guide)),
    shortLocalTime(t.pushAt, timeZone),
    formatCount(t.recipients),
    t.state,
    t.id,
  ]);
  const header = ['NAME', 'GUIDE', 'PUSH TIME', 'RECIPIENTS', 'STATUS', 'TASK ID'];
  // Counts line up on the right, as numbers do.
  return `${alignColumns(header, rows, new Set([3]))}${countOf(tasks.length, 'task')}\n`;
}

/**
 * `guidectl tasks --json`: `{"format_version": 1, "tasks": [...]}` in the table's order; `task_id`
 * a `bigint` so that the caller's lossless JSON writes it as a bare number with every digit.
 */
export function tasksToJson(tasks: readonly TaskSummary[], timeZone: string | undefined): object {
  return {
    format_version: TASKS_FORMAT_VERSION,
    tasks: sortTasks(tasks).map((t) => ({
      task_id: BigInt(t.id),
      ...(t.guide.kind === 'account' ? { guide_account: t.guide.account } : { guide_openid: t.guide.openid }),
      name: t.name,
      remark: t.remark,
      push_time: t.pushAt,
      push_at: isoLocalTime(t.pushAt, timeZone),
      status: t.state,
      recipients: t.recipients,
      materials: t.materials,
    })),
  };
}
