import { compareText } from '../core/compare-text.js';
import {
  DELETE_KINDS,
  type DeleteKind,
  type DesiredState,
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
import { ifDefined } from '../core/records.js';
import type { WrittenFile, WrittenProtect, WrittenSafety } from '../core/written.js';
import { type DesiredParts, entrySourceOf, type NormaliseFile, sourceOf } from '../kinds/config-port.js';
import { KINDS } from '../kinds/registry.js';
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
 * `${name}` replaced by its value there). Each kind normalises its own section of each file
 * (`kinds/<kind>/normalise.ts`). Call it only when the checks found no error; it relies on what
 * they guarantee (one definition per guide and group, and so on).
 */
export function mergeFiles(
  files: readonly ValidFile[],
  recipients: ReadonlyMap<string, readonly string[]> = new Map(),
  environment?: string,
): DesiredState {
  let prune: DesiredState['prune'] = { guides: false, groups: false };
  let safety: SafetyPolicy | undefined;
  const protections = new Protections();
  const parts: DesiredParts = {
    groups: [],
    guides: [],
    protectGuide: (id, source) => protections.guide(id, source),
    protectGroup: (name, source) => protections.group(name, source),
    protectTask: (guide, name, source) => protections.task(guide, name, source),
  };
  for (const { parsed, written } of files) {
    const file: NormaliseFile = {
      parsed,
      written,
      exists: (entry) => existsIn(entry, environment),
      recipientsFile: (index) => recipients.get(recipientsKey(parsed.file, index)),
    };
    for (const kind of Object.values(KINDS)) {
      if (typeof kind.normalise === 'function') kind.normalise(file, parts);
    }
    if (written.prune !== undefined) {
      prune = {
        guides: written.prune.guides ?? false,
        groups: written.prune.groups ?? false,
        ...ifDefined('tasks', written.prune.tasks),
      };
    }
    if (written.safety !== undefined) safety = normaliseSafety(written.safety, parsed);
    protections.list(parsed, written.protect);
  }
  return {
    ...ifDefined('account', parts.account),
    groups: parts.groups,
    guides: parts.guides,
    ...ifDefined('tasks', parts.tasks),
    prune,
    ...ifDefined('protect', protections.policy()),
    ...ifDefined('safety', safety),
  };
}

/**
 * What the files protect, merged from every `protected: true` and `protect` list. Each protection
 * keeps the first place that states it: files in load order, then document order.
 */
class Protections {
  private readonly guides = new Map<string, ProtectedGuide>();
  private readonly groups = new Map<string, ProtectedGroup>();
  private readonly tasks = new Map<string, ProtectedTask>();

  guide(id: GuideId, source: SourceRef): void {
    const key = guideKey(id);
    if (earlier(source, this.guides.get(key)?.source)) this.guides.set(key, { id, source });
  }

  group(name: string, source: SourceRef): void {
    if (earlier(source, this.groups.get(name)?.source)) this.groups.set(name, { name, source });
  }

  task(guide: GuideId, name: string, source: SourceRef): void {
    const key = taskKey(guide, name);
    if (earlier(source, this.tasks.get(key)?.source)) this.tasks.set(key, { guide, name, source });
  }

  /** A file's top-level `protect` lists. */
  list(parsed: ParsedYaml, protect: WrittenProtect | undefined): void {
    (protect?.guides ?? []).forEach((account, index) => {
      this.guide({ kind: 'account', account }, entrySourceOf(parsed, ['protect', 'guides', index]));
    });
    (protect?.guide_openids ?? []).forEach((openid, index) => {
      this.guide({ kind: 'openid', openid }, entrySourceOf(parsed, ['protect', 'guide_openids', index]));
    });
    (protect?.groups ?? []).forEach((name, index) => {
      this.group(name, entrySourceOf(parsed, ['protect', 'groups', index]));
    });
    (protect?.tasks ?? []).forEach((entry, index) => {
      const guide = guideIdFrom(entry.guide, entry.guide_openid);
      if (guide !== undefined)
        this.task(guide, entry.name, entrySourceOf(parsed, ['protect', 'tasks', index]));
    });
  }

  /** Undefined when the files protect nothing. */
  policy(): ProtectPolicy | undefined {
    if (this.guides.size === 0 && this.groups.size === 0 && this.tasks.size === 0) return undefined;
    return {
      guides: [...this.guides.entries()].sort(([a], [b]) => compareText(a, b)).map(([, guide]) => guide),
      groups: [...this.groups.values()].sort((a, b) => compareText(a.name, b.name)),
      ...(this.tasks.size === 0
        ? {}
        : { tasks: [...this.tasks.entries()].sort(([a], [b]) => compareText(a, b)).map(([, task]) => task) }),
    };
  }
}

function earlier(a: SourceRef, b: SourceRef | undefined): boolean {
  return (
    b === undefined || (a.file === b.file && (a.line < b.line || (a.line === b.line && a.column < b.column)))
  );
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
