import { quote, type RuleProblem } from '../../core/diagnostics.js';
import { isHttpUrl, NICKNAME_MAX_CHARS } from '../../core/guide-rules.js';
import type { Indexed, LocatedFile } from '../../core/positions.js';
import type { Ref, Reporter } from '../../core/reporter.js';
import type { RuleGuide } from '../../core/written.js';

/**
 * A guide's value rules, in words: the schema's messages (`config/check-schema.ts`) and the rules
 * after it say the same text, whichever of them finds the problem.
 */

/** A nickname's length, as messages and the schema's description state it. */
export const NICKNAME_LENGTH = `1 to ${NICKNAME_MAX_CHARS} characters`;

/**
 * A profile picture's address that is not an http(s) URL: the schema refuses the shape, the rules
 * an address of that shape that does not parse.
 */
export function headImageUrlInvalid(url: unknown): RuleProblem {
  return {
    code: 'head-image-url-invalid',
    message: `head_image_url ${quote(url)} must be an http(s) URL`,
    hint: 'write the full address of the picture, such as https://mmbiz.qpic.cn/…',
  };
}

/** The guides of one file that passed the schema, with the means to point into the file. */
export interface GuideRuleFile {
  readonly parsed: LocatedFile;
  readonly parts: { readonly guides: readonly Indexed<RuleGuide>[] };
}

/** Who the files name as guides: by account, and by openid (where each is first defined). */
export interface KnownGuides {
  readonly byAccount: ReadonlySet<string>;
  readonly byOpenid: ReadonlyMap<string, Ref>;
}

/** Guides: one definition per identity, with a head image URL that parses. */
export function checkGuides(files: readonly GuideRuleFile[], out: Reporter): KnownGuides {
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
