import { compareText } from '../../core/compare-text.js';
import { describeTask, guideKey } from '../../core/desired.js';
import { UNKNOWN_MEDIA_ID } from '../../core/guide-rules.js';
import type { LiveMaterial, LiveTask } from '../../core/live.js';
import { formatWrittenTime } from '../../core/task-time.js';
import { comparedByName, type KindDigest, type KindExport } from '../live-part.js';

/**
 * The pending tasks as the files write them, by guide and name (then id): each plans to no change.
 * Two pending tasks of one guide and name cannot both be written (names are unique per guide): the
 * oldest is, and a warning names the others, which a plan of the file cancels as copies.
 */
export function exportTasks(tasks: readonly LiveTask[], warnings: string[]): object[] {
  const out: object[] = [];
  for (const { task, guide, written } of pendingTasksToWrite(tasks)) {
    const where = `task ${JSON.stringify(task.name)} of ${guide}`;
    if (!written) {
      warnings.push(
        `${where} (id ${task.id}) has the name of another pending task of the guide and was left out: a plan of the file keeps the one written and cancels this copy`,
      );
      continue;
    }
    out.push({
      name: task.name,
      ...(task.guide.kind === 'account'
        ? { guide: task.guide.account }
        : { guide_openid: task.guide.openid }),
      ...(task.remark === '' ? {} : { remark: task.remark }),
      push_at: formatWrittenTime(task.pushAt, 0),
      recipients: [...task.recipients],
      materials: task.materials.map((m) => exportMaterial(m, where, warnings)),
    });
  }
  return out;
}

interface PendingTask {
  readonly task: LiveTask;
  /** The guide as messages name it: its account, or `openid o…`. */
  readonly guide: string;
  /** False for a later pending task of a guide and name already written: a file names a task once. */
  readonly written: boolean;
}

/** The pending tasks by guide and name (then id, so the oldest of a name is the one written). */
function pendingTasksToWrite(tasks: readonly LiveTask[]): PendingTask[] {
  const pending = tasks
    .filter((t) => t.status === 'pending')
    .map((t) => ({
      task: t,
      id: BigInt(t.id),
      guide: t.guide.kind === 'account' ? t.guide.account : `openid ${t.guide.openid}`,
    }))
    .sort(
      (a, b) =>
        compareText(a.guide, b.guide) ||
        compareText(a.task.name, b.task.name) ||
        (a.id === b.id ? 0 : a.id < b.id ? -1 : 1),
    );
  const names = new Set<string>();
  return pending.map(({ task, guide }) => {
    const key = `${guide}\u0000${task.name}`;
    const written = !names.has(key);
    names.add(key);
    return { task, guide, written };
  });
}

function exportMaterial(m: LiveMaterial, where: string, warnings: string[]): object {
  switch (m.type) {
    case 'text':
      return { text: m.text };
    case 'image':
      warnings.push(
        `${where}: an image's media_id cannot be read back (only its picture URL); ${UNKNOWN_MEDIA_ID} stands in its place; validate, plan and apply refuse the file until it is replaced`,
      );
      return { image: UNKNOWN_MEDIA_ID };
    case 'miniprogram':
      warnings.push(
        `${where}: a mini-program card's media_id cannot be read back; ${UNKNOWN_MEDIA_ID} stands in its place; validate, plan and apply refuse the file until it is replaced with the media id of the card's cover`,
      );
      return { miniprogram: { appid: m.appid, title: m.title, path: m.path, media_id: UNKNOWN_MEDIA_ID } };
    default: {
      const unreachable: never = m;
      return unreachable;
    }
  }
}

/**
 * A live task as the plan's live digest and fingerprints cover it: its guide as a key (a task's
 * recipients are sorted as read).
 */
export function canonicalTask(task: LiveTask): unknown {
  return { ...task, guide: guideKey(task.guide) };
}

/** The live tasks by id: how the live digest orders them, not as the guides' lists gave them. */
function tasksById(tasks: readonly LiveTask[]): LiveTask[] {
  return [...tasks].sort((a, b) => compareText(a.id, b.id));
}

/** Each task's fingerprint (`hash` of its canonical form) with its address, by id. */
function taskFingerprints(
  tasks: readonly LiveTask[],
  hash: (value: unknown) => string,
): Record<string, { name: string; hash: string }> {
  const out: Record<string, { name: string; hash: string }> = {};
  for (const task of tasksById(tasks)) {
    out[task.id] = { name: describeTask(task.guide, task.name), hash: hash(canonicalTask(task)) };
  }
  return out;
}

/** The tasks' part of the live digest and fingerprints: only when read, so that the digests of reads without tasks stay as they were. */
export const TASK_DIGEST: KindDigest = {
  resource: 'task',
  canonical: (live) => (live.tasks === undefined ? {} : { tasks: tasksById(live.tasks).map(canonicalTask) }),
  fingerprints: (live, hash) =>
    live.tasks === undefined ? {} : { tasks: taskFingerprints(live.tasks, hash) },
  compared: (fingerprints) => comparedByName(fingerprints.tasks ?? {}),
  // Absent from a plan that read no task.
  decode: (saved, read) =>
    saved['tasks'] === undefined ? {} : { tasks: read.named(saved['tasks'], 'live_fingerprints.tasks') },
};

/** The file's `tasks` section (the pending tasks), when tasks were read. */
export const TASK_EXPORT: KindExport = {
  write: (live, { warnings }) =>
    live.tasks === undefined ? {} : { tasks: exportTasks(live.tasks, warnings) },
};
