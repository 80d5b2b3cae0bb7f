import type {
  DesiredAccount,
  DesiredGroup,
  DesiredGuide,
  DesiredState,
  DesiredTask,
  GuideId,
  SourceRef,
} from '../core/desired.js';
import type { LocatedFile, SpanPart, ValuePath } from '../core/positions.js';
import type { Reporter } from '../core/reporter.js';
import type { WrittenFile, WrittenParts } from '../core/written.js';
import type { KnownGuides } from './guide/rules.js';
import type { Kind } from './kind-module.js';

/**
 * What `config/` gives the kinds to check and normalise their sections of the files, and what
 * each kind's part in that is: the same shape for every kind, so that config iterates the registry.
 */

/** A kind whose entries are written inside another kind's: that kind does this part for it. */
export interface PartOf {
  readonly partOf: Kind;
}

/** The parts of a file that passed the schema, with the means to point into the file. */
export interface RuleFile {
  readonly parsed: LocatedFile;
  readonly parts: WrittenParts;
}

/**
 * What the rules of one kind learn for the kinds checked after it. A kind that reads a part before
 * the kind that learns it ran is a mistake of the order (`RULE_ORDER`), so it throws.
 */
export class RuleContext {
  #guides: KnownGuides | undefined;

  /**
   * `complete` is false when some files given could not be read or broke the schema: a member
   * missing from the files that were checked may be declared in one of those, so it is not reported.
   */
  constructor(readonly complete: boolean) {}

  /** Who the files name as guides: the guide kind's rules learn it, groups and tasks read it. */
  get guides(): KnownGuides {
    if (this.#guides === undefined) throw new Error('rules: the guides were read before they were checked');
    return this.#guides;
  }

  set guides(known: KnownGuides) {
    this.#guides = known;
  }
}

/** A kind's rules across entries and files: what the schema cannot say. */
export type KindCheck = ((files: readonly RuleFile[], context: RuleContext, out: Reporter) => void) | PartOf;

/** One file that passed the schema, as a kind's normalising reads it. */
export interface NormaliseFile {
  readonly parsed: LocatedFile;
  readonly written: WrittenFile;
  /** Whether an entry of a list is in the environment normalised for (its `only_in`). */
  exists(entry: unknown): boolean;
  /** The recipients of the file's task at `index` read from its `recipients_file`, if it has one. */
  recipientsFile(index: number): readonly string[] | undefined;
}

/**
 * The desired state as the kinds build it, file after file in load order: each kind adds its
 * section and says what it protects. `config/` merges the protections.
 */
export interface DesiredParts {
  /** The `account` section of the one file that has it. */
  account?: DesiredAccount;
  readonly groups: DesiredGroup[];
  readonly guides: DesiredGuide[];
  /** Absent until a file has `tasks` (then tasks are managed, even when none is in the environment). */
  tasks?: DesiredTask[];
  protectGuide(id: GuideId, source: SourceRef): void;
  protectGroup(name: string, source: SourceRef): void;
  protectTask(guide: GuideId, name: string, source: SourceRef): void;
}

/** A kind's normalising of its section of one file into the desired state. */
export type KindNormalise = ((file: NormaliseFile, into: DesiredParts) => void) | PartOf;

/**
 * A kind's section of the desired state in the desired digest's order, where the order written
 * must not count (a guide moved to another file); {@link AS_NORMALISED} where it is covered as it is.
 */
export type KindDesiredDigest = ((desired: DesiredState) => Partial<DesiredState>) | PartOf;

/** The desired digest covers the kind's section as normalising made it. */
export const AS_NORMALISED: KindDesiredDigest = () => ({});

/** Where a value was written. */
export function sourceOf(parsed: LocatedFile, path: ValuePath, part: SpanPart = 'value'): SourceRef {
  const { line, column } = parsed.locate(path, part);
  return { file: parsed.file, line, column };
}

/** Where a one-line entry was written, with its end: a diagnostic there underlines it alone. */
export function entrySourceOf(parsed: LocatedFile, path: ValuePath, part: SpanPart = 'value'): SourceRef {
  const { line, column, endLine, endColumn } = parsed.locate(path, part);
  return { file: parsed.file, line, column, endLine, endColumn };
}
