import { compareText } from '../core/compare-text.js';
import {
  DELETE_KINDS,
  type DeleteKind,
  type DesiredAccount,
  type DesiredGroup,
  type DesiredGuide,
  type DesiredState,
  type DesiredTask,
  type GuideId,
  guideIdFrom,
  guideKey,
  type ProtectedGroup,
  type ProtectedGuide,
  type ProtectedTask,
  type ProtectPolicy,
  type SafetyPolicy,
  type SourceRef,
  taskKey,
} from '../core/desired.js';
import type { ValuePath } from '../core/positions.js';
import { ifDefined } from '../core/records.js';
import type { WrittenFile, WrittenSafety, WrittenTask } from '../core/written.js';
import { normaliseAccount } from '../kinds/account/normalise.js';
import { normaliseGroup } from '../kinds/group/normalise.js';
import { normaliseGuide } from '../kinds/guide/normalise.js';
import { TASK_KIND } from '../kinds/task/index.js';
import { existsIn } from './environment-file.js';
import type { ParsedYaml } from './parse-yaml.js';
import { recipientsKey } from './recipients-file.js';

/** A file that passed the schema as a whole. */
export interface ValidFile {
  readonly parsed: ParsedYaml;
  readonly written: WrittenFile;
}

/**
 * Merges checked files into one desired state: lists concatenated in file order, `account`,
 * `prune` and `safety` taken from the one file that has them, protection merged from every
 * `protected: true` and `protect` list. With an `environment`, the guides, groups and tasks whose
 * `only_in` leaves it out are left out (the files are then those of that environment, with each
 * `${name}` replaced by its value there). Call it only when the checks found no error; it relies
 * on what they guarantee (one definition per guide and group, and so on).
 */
export function normalise(
  files: readonly ValidFile[],
  recipients: ReadonlyMap<string, readonly string[]> = new Map(),
  environment?: string,
): DesiredState {
  let account: DesiredAccount | undefined;
  let prune: DesiredState['prune'] = { guides: false, groups: false };
  let tasks: DesiredTask[] | undefined;
  const protectedTasks = new Map<string, ProtectedTask>();
  let safety: SafetyPolicy | undefined;
  const groups: DesiredGroup[] = [];
  const guides: DesiredGuide[] = [];
  const protectedGuides = new Map<string, ProtectedGuide>();
  const protectedGroups = new Map<string, ProtectedGroup>();
  // Each protection keeps the first place that states it: files in load order, then document order.
  const earlier = (a: SourceRef, b: SourceRef | undefined): boolean =>
    b === undefined || (a.file === b.file && (a.line < b.line || (a.line === b.line && a.column < b.column)));
  const protectGuide = (id: GuideId, source: SourceRef): void => {
    const key = guideKey(id);
    if (earlier(source, protectedGuides.get(key)?.source)) protectedGuides.set(key, { id, source });
  };
  const protectGroup = (name: string, source: SourceRef): void => {
    if (earlier(source, protectedGroups.get(name)?.source)) protectedGroups.set(name, { name, source });
  };
  const protectTask = (guide: GuideId, name: string, source: SourceRef): void => {
    const key = taskKey(guide, name);
    if (earlier(source, protectedTasks.get(key)?.source)) protectedTasks.set(key, { guide, name, source });
  };

  for (const { parsed, written } of files) {
    if (written.account !== undefined)
      account = normaliseAccount(written.account, sourceOf(parsed, ['account'], 'key'));
    if (written.prune !== undefined) {
      prune = {
        guides: written.prune.guides ?? false,
        groups: written.prune.groups ?? false,
        ...ifDefined('tasks', written.prune.tasks),
      };
    }
    if (written.safety !== undefined) safety = normaliseSafety(written.safety, parsed);
    (written.groups ?? []).forEach((group, index) => {
      if (!existsIn(group, environment)) return;
      groups.push(normaliseGroup(group, sourceOf(parsed, ['groups', index])));
      if (group.protected === true)
        protectGroup(group.name, entrySourceOf(parsed, ['groups', index, 'protected'], 'key'));
    });
    (written.guides ?? []).forEach((guide, index) => {
      if (!existsIn(guide, environment)) return;
      const desired = normaliseGuide(guide, sourceOf(parsed, ['guides', index]));
      guides.push(desired);
      if (guide.protected === true)
        protectGuide(desired.id, entrySourceOf(parsed, ['guides', index, 'protected'], 'key'));
    });
    if (written.tasks !== undefined) {
      tasks ??= [];
      normaliseTasks(written.tasks, parsed, recipients, tasks, protectTask, environment);
    }
    const protect = written.protect;
    (protect?.guides ?? []).forEach((account, index) => {
      protectGuide({ kind: 'account', account }, entrySourceOf(parsed, ['protect', 'guides', index]));
    });
    (protect?.guide_openids ?? []).forEach((openid, index) => {
      protectGuide({ kind: 'openid', openid }, entrySourceOf(parsed, ['protect', 'guide_openids', index]));
    });
    (protect?.groups ?? []).forEach((name, index) => {
      protectGroup(name, entrySourceOf(parsed, ['protect', 'groups', index]));
    });
    (protect?.tasks ?? []).forEach((entry, index) => {
      const guide = guideIdFrom(entry.guide, entry.guide_openid);
      if (guide !== undefined)
        protectTask(guide, entry.name, entrySourceOf(parsed, ['protect', 'tasks', index]));
    });
  }

  const protect: ProtectPolicy | undefined =
    protectedGuides.size === 0 && protectedGroups.size === 0 && protectedTasks.size === 0
      ? undefined
      : {
          guides: [...protectedGuides.entries()]
            .sort(([a], [b]) => compareText(a, b))
            .map(([, guide]) => guide),
          groups: [...protectedGroups.values()].sort((a, b) => compareText(a.name, b.name)),
          ...(protectedTasks.size === 0
            ? {}
            : {
                tasks: [...protectedTasks.entries()]
                  .sort(([a], [b]) => compareText(a, b))
                  .map(([, task]) => task),
              }),
        };
  return {
    ...ifDefined('account', account),
    groups,
    guides,
    ...ifDefined('tasks', tasks),
    prune,
    ...ifDefined('protect', protect),
    ...ifDefined('safety', safety),
  };
}

function normaliseSafety(written: WrittenSafety, parsed: ParsedYaml): SafetyPolicy {
  const max = written.max_deletes ?? {};
  const maxDeletes: { [K in DeleteKind]?: number } = {};
  for (const kind of DELETE_KINDS) {
    const n = max[kind];
    if (n !== undefined) maxDeletes[kind] = n;
  }
  return {
    maxDeletes,
    ...(written.max_delete_share === undefined ? {} : { maxDeleteShare: shareOf(written.max_delete_share) }),
    source: sourceOf(parsed, ['safety'], 'key'),
  };
}

/** `0.25`, or `25%` as the schema's pattern allows it, as a share from 0 to 1. */
function shareOf(written: number | string): number {
  return typeof written === 'number' ? written : Number(written.slice(0, -1)) / 100;
}

function sourceOf(parsed: ParsedYaml, path: ValuePath, part: 'key' | 'value' = 'value'): SourceRef {
  const { line, column } = parsed.locate(path, part);
  return { file: parsed.file, line, column };
}

/** Where a one-line entry was written, with its end: a diagnostic there underlines it alone. */
function entrySourceOf(parsed: ParsedYaml, path: ValuePath, part: 'key' | 'value' = 'value'): SourceRef {
  const { line, column, endLine, endColumn } = parsed.locate(path, part);
  return { file: parsed.file, line, column, endLine, endColumn };
}

/**
 * A file's tasks that exist in `environment`, onto `tasks`; each `protected: true` given to
 * `protect`. A list none of whose tasks is in the environment still manages the tasks there.
 */
function normaliseTasks(
  written: readonly WrittenTask[],
  parsed: ParsedYaml,
  recipients: ReadonlyMap<string, readonly string[]>,
  tasks: DesiredTask[],
  protect: (guide: GuideId, name: string, source: SourceRef) => void,
  environment: string | undefined,
): void {
  written.forEach((task, index) => {
    if (!existsIn(task, environment)) return;
    const listed = recipients.get(recipientsKey(parsed.file, index)) ?? task.recipients ?? [];
    const desired = {
      ...TASK_KIND.normalise(task, listed, sourceOf(parsed, ['tasks', index])),
      sources: {
        pushAt: entrySourceOf(parsed, ['tasks', index, 'push_at']),
        guide: entrySourceOf(parsed, ['tasks', index, task.guide === undefined ? 'guide_openid' : 'guide']),
      },
    };
    tasks.push(desired);
    if (task.protected !== true) return;
    protect(desired.guide, desired.name, entrySourceOf(parsed, ['tasks', index, 'protected'], 'key'));
  });
}
