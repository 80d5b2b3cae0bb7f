import {
  type Diagnostic,
  type DiagnosticCode,
  quote,
  type RelatedLocation,
  type RuleProblem,
  type Severity,
} from '../core/diagnostics.js';
import { isHttpUrl, WECHAT_ID } from '../core/guide-rules.js';
import type { SpanPart, ValuePath } from '../core/positions.js';
import type { RuleGroup, WrittenParts } from '../core/written.js';
import { headImageUrlInvalid } from '../kinds/guide/rules.js';
import { memberInvalid } from '../kinds/membership/rules.js';
import { checkTasks } from './check-task-rules.js';
import type { ParsedYaml } from './parse-yaml.js';

/** The parts of a file that passed the schema, with the means to point into the file. */
export interface RuleFile {
  readonly parsed: ParsedYaml;
  readonly parts: WrittenParts;
}

export interface RuleOptions {
  /**
   * False when some files given could not be read or broke the schema: a member missing from the
   * files that were checked may be declared in one of those, so it is not reported.
   */
  readonly complete: boolean;
  /** How a file is named inside a message ("also defined at north.yaml:12:5"). */
  readonly displayPath: (file: string) => string;
}

/** Where something is in a file, to be worked out when needed. */
export interface Ref {
  readonly parsed: ParsedYaml;
  readonly path: ValuePath;
  readonly part?: SpanPart;
}

interface Place {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/**
 * The rules the schema cannot express, over all files at once: each guide, group, `account`,
 * `prune` and `safety` defined once; group members that are guides named by account; sensitive
 * words listed once; head image URLs that parse. Limits of single values are in the schema, so
 * that they are reported in the same run as unknown keys.
 */
export function checkRules(files: readonly RuleFile[], options: RuleOptions): Diagnostic[] {
  const out = new Reporter(options.displayPath);
  checkSections(files, out);
  const guides = checkGuides(files, out);
  checkGroups(files, guides, options.complete, out);
  checkTasks(files, guides, options.complete, out);
  checkSensitiveWords(files, out);
  return out.diagnostics;
}

/** Collects the diagnostics of one run, and names places in the files for their messages. */
export class Reporter {
  readonly diagnostics: Diagnostic[] = [];

  constructor(private readonly displayPath: (file: string) => string) {}

  report(
    severity: Severity,
    code: DiagnosticCode,
    parsed: ParsedYaml,
    path: ValuePath,
    part: SpanPart,
    message: string,
    extra: { hint?: string; related?: readonly RelatedLocation[] } = {},
  ): void {
    this.diagnostics.push({
      severity,
      code,
      message,
      file: parsed.file,
      ...parsed.locate(path, part),
      ...extra,
    });
  }

  /** A value rule's problem, at the value. */
  problem(
    severity: Severity,
    parsed: ParsedYaml,
    path: ValuePath,
    { code, message, hint }: RuleProblem,
  ): void {
    this.report(severity, code, parsed, path, 'value', message, hint === undefined ? {} : { hint });
  }

  /** Places are worked out only when a problem is reported: most guides have none. */
  placeOf({ parsed, path, part = 'value' }: Ref): Place {
    const { line, column } = parsed.locate(path, part);
    return { file: parsed.file, line, column };
  }

  /** "line 12" in the same file, "north.yaml:12:5" in another. */
  describePlace(place: Place, from: string): string {
    return place.file === from
      ? `line ${place.line}`
      : `${this.displayPath(place.file)}:${place.line}:${place.column}`;
  }
}

/** account, prune and safety: at most once across the files of a folder. */
function checkSections(files: readonly RuleFile[], out: Reporter): void {
  const sections = [
    ['account', 'account-duplicate'],
    ['prune', 'prune-duplicate'],
    ['safety', 'safety-duplicate'],
  ] as const;
  for (const [section, code] of sections) {
    let firstRef: Ref | undefined;
    for (const { parsed, parts } of files) {
      if (parts[section] === undefined) continue;
      if (firstRef === undefined) {
        firstRef = { parsed, path: [section], part: 'key' };
        continue;
      }
      const first = out.placeOf(firstRef);
      out.report(
        'error',
        code,
        parsed,
        [section],
        'key',
        `"${section}" is also set at ${out.describePlace(first, parsed.file)}`,
        {
          hint: `only one file may have "${section}"; move its settings into one place`,
          related: [{ ...first, message: `"${section}" first set here` }],
        },
      );
    }
  }
}

/** Who the files name as guides: by account, and by openid (where each is first defined). */
export interface KnownGuides {
  readonly byAccount: ReadonlySet<string>;
  readonly byOpenid: ReadonlyMap<string, Ref>;
}

/** Guides: one definition per identity, with a head image URL that parses. */
function checkGuides(files: readonly RuleFile[], out: Reporter): KnownGuides {
  const guides = new Map<string, Ref>();
  const byAccount = new Set<string>();
  const byOpenid = new Map<string, Ref>();
  for (const { parsed, parts } of files) {
    for (const { index, value: guide } of parts.guides) {
      const idKey = guide.account !== undefined ? 'account' : 'openid';
      const id = guide.account ?? guide.openid ?? '';
      const key = `${idKey}:${id}`;
      const here: Ref = { parsed, path: ['guides', index] };
      const firstRef = guides.get(key);
      if (firstRef !== undefined) {
        const first = out.placeOf(firstRef);
        const label = idKey === 'account' ? id : `openid ${id}`;
        out.report(
          'error',
          'guide-duplicate',
          parsed,
          ['guides', index, idKey],
          'value',
          `guide ${label} is also defined at ${out.describePlace(first, parsed.file)}`,
          {
            hint: 'each guide is defined once; merge the two definitions',
            related: [{ ...first, message: `guide ${label} first defined here` }],
          },
        );
      } else {
        guides.set(key, here);
      }
      if (idKey === 'account') byAccount.add(id);
      else if (!byOpenid.has(id)) byOpenid.set(id, here);

      if (guide.head_image_url !== undefined && !isHttpUrl(guide.head_image_url)) {
        out.problem(
          'error',
          parsed,
          ['guides', index, 'head_image_url'],
          headImageUrlInvalid(guide.head_image_url),
        );
      }
    }
  }
  return { byAccount, byOpenid };
}

/** Groups: one definition per name; members are guides named by account, each listed once. */
function checkGroups(files: readonly RuleFile[], known: KnownGuides, complete: boolean, out: Reporter): void {
  const groups = new Map<string, Ref>();
  for (const { parsed, parts } of files) {
    for (const { index, value: group } of parts.groups) {
      const here: Ref = { parsed, path: ['groups', index] };
      const firstRef = groups.get(group.name);
      if (firstRef !== undefined) {
        const first = out.placeOf(firstRef);
        out.report(
          'error',
          'group-duplicate',
          parsed,
          ['groups', index, 'name'],
          'value',
          `group ${quote(group.name)} is also defined at ${out.describePlace(first, parsed.file)}`,
          {
            hint: 'group names are unique; merge the two groups or rename one',
            related: [{ ...first, message: `group ${quote(group.name)} first defined here` }],
          },
        );
      } else {
        groups.set(group.name, here);
      }
      checkMembers(parsed, index, group, known, complete, out);
    }
  }
}

/** One group's members, in order: the first problem of each member is its one diagnostic. */
function checkMembers(
  parsed: ParsedYaml,
  index: number,
  group: RuleGroup,
  known: KnownGuides,
  complete: boolean,
  out: Reporter,
): void {
  const listed = new Map<string, number>();
  (group.members ?? []).forEach((member, m) => {
    const path = ['groups', index, 'members', m];
    const earlier = listed.get(member);
    if (earlier !== undefined) {
      const firstAt = describeEarlier(parsed, ['groups', index, 'members', earlier], path);
      out.report(
        'warning',
        'member-duplicate',
        parsed,
        path,
        'value',
        `${member} is listed twice in group ${quote(group.name)} (first ${firstAt})`,
        {
          hint: 'remove one; membership is a set',
        },
      );
      return;
    }
    listed.set(member, m);
    if (known.byAccount.has(member)) return;
    const openidRef = known.byOpenid.get(member);
    if (openidRef !== undefined) {
      const openidGuide = out.placeOf(openidRef);
      out.report(
        'error',
        'member-openid-only',
        parsed,
        path,
        'value',
        `member ${member} is a guide named by openid (at ${out.describePlace(openidGuide, parsed.file)}); group membership works by account only`,
        {
          hint: 'name that guide by "account: <WeChat ID>" instead of "openid", and list that account here',
          related: [{ ...openidGuide, message: 'the guide named by openid' }],
        },
      );
      return;
    }
    if (!WECHAT_ID.test(member)) {
      out.problem('error', parsed, path, memberInvalid(member));
      return;
    }
    if (complete) {
      out.report(
        'warning',
        'member-unknown',
        parsed,
        path,
        'value',
        `member ${member} is not a guide in the files given; plan will require it to exist in the account`,
        {
          hint: 'add the guide under "guides", or check the spelling of the account',
        },
      );
    }
  });
}

/** Sensitive words: a set, so each word once. */
function checkSensitiveWords(files: readonly RuleFile[], out: Reporter): void {
  for (const { parsed, parts } of files) {
    const words = parts.account?.sensitive_words?.words ?? [];
    const seen = new Map<string, number>();
    words.forEach((word, index) => {
      const earlier = seen.get(word);
      if (earlier === undefined) {
        seen.set(word, index);
        return;
      }
      const path = ['account', 'sensitive_words', 'words'];
      const firstAt = describeEarlier(parsed, [...path, earlier], [...path, index]);
      out.report(
        'error',
        'sensitive-word-duplicate',
        parsed,
        [...path, index],
        'value',
        `sensitive word ${quote(word)} is listed twice (first ${firstAt})`,
        {
          hint: 'remove one; the words are a set',
        },
      );
    });
  }
}

/** "at line 12", or "at column 20" when both are on the same line (a [flow, list]). */
export function describeEarlier(parsed: ParsedYaml, earlier: ValuePath, here: ValuePath): string {
  const a = parsed.locate(earlier);
  const b = parsed.locate(here);
  return a.line === b.line ? `at column ${a.column}` : `at line ${a.line}`;
}
