import type { Diagnostic, DiagnosticCode, RelatedLocation, Severity } from '../core/diagnostics.js';
import { WECHAT_ID } from '../core/guide-rules.js';
import { MEMBER_HINT, quote, wechatIdMessage } from './check-schema.js';
import type { ParsedYaml, SpanPart, ValuePath } from './parse-yaml.js';
import type { WrittenParts } from './written.js';

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
interface Ref {
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
  const diagnostics: Diagnostic[] = [];
  const report = (
    severity: Severity,
    code: DiagnosticCode,
    parsed: ParsedYaml,
    path: ValuePath,
    part: SpanPart,
    message: string,
    extra: { hint?: string; related?: readonly RelatedLocation[] } = {},
  ): void => {
    diagnostics.push({ severity, code, message, file: parsed.file, ...parsed.locate(path, part), ...extra });
  };
  // Places are worked out only when a problem is reported: most guides have none.
  const placeOf = ({ parsed, path, part = 'value' }: Ref): Place => {
    const { line, column } = parsed.locate(path, part);
    return { file: parsed.file, line, column };
  };
  const describePlace = (place: Place, from: string): string =>
    place.file === from
      ? `line ${place.line}`
      : `${options.displayPath(place.file)}:${place.line}:${place.column}`;

  // account, prune and safety: at most once across the files of a folder.
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
      const first = placeOf(firstRef);
      report(
        'error',
        code,
        parsed,
        [section],
        'key',
        `"${section}" is also set at ${describePlace(first, parsed.file)}`,
        {
          hint: `only one file may have "${section}"; move its settings into one place`,
          related: [{ ...first, message: `"${section}" first set here` }],
        },
      );
    }
  }

  // Guides: one definition per identity. Remember who is named by account and by openid.
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
        const first = placeOf(firstRef);
        const label = idKey === 'account' ? id : `openid ${id}`;
        report(
          'error',
          'guide-duplicate',
          parsed,
          ['guides', index, idKey],
          'value',
          `guide ${label} is also defined at ${describePlace(first, parsed.file)}`,
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

      if (!isHttpUrl(guide.head_image_url)) {
        report(
          'error',
          'head-image-url-invalid',
          parsed,
          ['guides', index, 'head_image_url'],
          'value',
          `head_image_url ${quote(guide.head_image_url)} must be an http(s) URL`,
          {
            hint: 'write the full address of the picture, such as https://mmbiz.qpic.cn/…',
          },
        );
      }
    }
  }

  // Groups: one definition per name; members are guides named by account.
  const groups = new Map<string, Ref>();
  for (const { parsed, parts } of files) {
    for (const { index, value: group } of parts.groups) {
      const here: Ref = { parsed, path: ['groups', index] };
      const firstRef = groups.get(group.name);
      if (firstRef !== undefined) {
        const first = placeOf(firstRef);
        report(
          'error',
          'group-duplicate',
          parsed,
          ['groups', index, 'name'],
          'value',
          `group ${quote(group.name)} is also defined at ${describePlace(first, parsed.file)}`,
          {
            hint: 'group names are unique; merge the two groups or rename one',
            related: [{ ...first, message: `group ${quote(group.name)} first defined here` }],
          },
        );
      } else {
        groups.set(group.name, here);
      }

      const listed = new Map<string, number>();
      (group.members ?? []).forEach((member, m) => {
        const path = ['groups', index, 'members', m];
        const earlier = listed.get(member);
        if (earlier !== undefined) {
          const firstAt = describeEarlier(parsed, ['groups', index, 'members', earlier], path);
          report(
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
        if (byAccount.has(member)) return;
        const openidRef = byOpenid.get(member);
        if (openidRef !== undefined) {
          const openidGuide = placeOf(openidRef);
          report(
            'error',
            'member-openid-only',
            parsed,
            path,
            'value',
            `member ${member} is a guide named by openid (at ${describePlace(openidGuide, parsed.file)}); group membership works by account only`,
            {
              hint: 'name that guide by "account: <WeChat ID>" instead of "openid", and list that account here',
              related: [{ ...openidGuide, message: 'the guide named by openid' }],
            },
          );
          return;
        }
        if (!WECHAT_ID.test(member)) {
          report('error', 'member-invalid', parsed, path, 'value', wechatIdMessage('member', member), {
            hint: MEMBER_HINT,
          });
          return;
        }
        if (options.complete) {
          report(
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
  }

  // Sensitive words: a set, so each word once.
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
      report(
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

  return diagnostics;
}

/** "at line 12", or "at column 20" when both are on the same line (a [flow, list]). */
function describeEarlier(parsed: ParsedYaml, earlier: ValuePath, here: ValuePath): string {
  const a = parsed.locate(earlier);
  const b = parsed.locate(here);
  return a.line === b.line ? `at column ${a.column}` : `at line ${a.line}`;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}
