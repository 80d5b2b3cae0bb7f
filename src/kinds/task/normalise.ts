import { compareText } from '../../core/compare-text.js';
import { type DesiredTask, guideIdFrom, type SourceRef } from '../../core/desired.js';
import { parseWrittenTime } from '../../core/task-time.js';
import type { WrittenTask } from '../../core/written.js';
import { normaliseWelcome } from '../welcome.js';

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
