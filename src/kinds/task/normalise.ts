import { compareText } from '../../core/compare-text.js';
import { type DesiredTask, guideIdFrom, type SourceRef } from '../../core/desired.js';
import { parseWrittenTime } from '../../core/task-time.js';
import type { WrittenTask } from '../../core/written.js';
import { type DesiredParts, entrySourceOf, type NormaliseFile, sourceOf } from '../config-port.js';
import { normaliseWelcome } from '../welcome.js';

/**
 * The task kind's normalising of one file: its tasks in the environment, and those it protects. A
 * list none of whose tasks is in the environment still manages the tasks there.
 */
export function normaliseTaskSection(file: NormaliseFile, into: DesiredParts): void {
  const { parsed, written } = file;
  if (written.tasks === undefined) return;
  into.tasks ??= [];
  const tasks = into.tasks;
  written.tasks.forEach((task, index) => {
    if (!file.exists(task)) return;
    const listed = file.recipientsFile(index) ?? task.recipients ?? [];
    const desired = {
      ...normaliseTask(task, listed, sourceOf(parsed, ['tasks', index])),
      sources: {
        pushAt: entrySourceOf(parsed, ['tasks', index, 'push_at']),
        guide: entrySourceOf(parsed, ['tasks', index, task.guide === undefined ? 'guide_openid' : 'guide']),
      },
    };
    tasks.push(desired);
    if (task.protected === true)
      into.protectTask(
        desired.guide,
        desired.name,
        entrySourceOf(parsed, ['tasks', index, 'protected'], 'key'),
      );
  });
}

/**
 * A task as written, once it passed the schema and the rules, as the planner reads it: `recipients`
 * are its inline list or its recipients file, read by config; they become a sorted set.
 */
export function normaliseTask(
  written: WrittenTask,
  recipients: readonly string[],
  source: SourceRef,
): DesiredTask {
  const guide = guideIdFrom(written.guide, written.guide_openid);
  const time = parseWrittenTime(written.push_at);
  // The schema's oneOf and the rules' check of push_at make these unreachable.
  if (guide === undefined || time === undefined)
    throw new Error('normalise: a task without a guide or a push time passed the checks');
  return {
    name: written.name,
    guide,
    remark: written.remark ?? '',
    pushAt: time.unix,
    offsetMinutes: time.offsetMinutes,
    recipients: [...new Set(recipients)].sort(compareText),
    materials: written.materials.map(normaliseWelcome),
    source,
  };
}
