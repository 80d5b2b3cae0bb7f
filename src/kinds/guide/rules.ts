import { quote, type RuleProblem } from '../../core/diagnostics.js';
import {
  isHttpUrl,
  NICKNAME_MAX_CHARS,
  OPENID_MAX_CHARS,
  OPENID_RULE,
  wechatIdMessage,
} from '../../core/guide-rules.js';
import type { Indexed, LocatedFile } from '../../core/positions.js';
import { isRecord } from '../../core/records.js';
import type { Ref, Reporter } from '../../core/reporter.js';
import { countChars, emptyText, type SchemaMessages, textTooLong } from '../../core/schema-messages.js';
import type { RuleGuide } from '../../core/written.js';
import type { RuleContext, RuleFile } from '../config-port.js';

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

/** The guide kind's rules, as the registry runs them: first, since the other kinds read who the guides are. */
export function checkGuideRules(files: readonly RuleFile[], context: RuleContext, out: Reporter): void {
  context.guides = checkGuides(files, out);
}

/** For a value that is not an identifier (an openid, a recipient). */
export const IDENTIFIER_HINT = 'use only letters, digits, "_" and "-", with no spaces';
const WECHAT_ID_HINT =
  'write the WeChat ID as WeChat shows it (Me, then WeChat ID); a guide without one is named by "openid" instead';

/** The words for a guide's values that break the schema fragment (`schema.ts`), by `$defs name/keyword`. */
export const GUIDE_MESSAGES: SchemaMessages = {
  'nickname/minLength': emptyText('nickname-empty', 'the nickname', `write ${NICKNAME_LENGTH}`),
  'nickname/maxLength': textTooLong('nickname-too-long', 'nickname'),
  'headImageUrl/pattern': ({ data }) => headImageUrlInvalid(data),
  'headImageUrl/maxLength': ({ data, limit }) => ({
    code: 'head-image-url-too-long',
    message: `head_image_url is ${countChars(data)} characters, longer than ${limit} characters`,
    hint: 'use a shorter address for the picture, such as the one WeChat gives when it is uploaded',
  }),
  'guideAccount/pattern': ({ data }) => ({
    code: 'guide-account-invalid',
    message: data === '' ? 'the account is empty' : wechatIdMessage('account', data),
    hint: WECHAT_ID_HINT,
  }),
  'openid/pattern': ({ data }) => ({
    code: 'openid-invalid',
    message:
      data === ''
        ? 'the openid is empty'
        : `invalid openid: ${quote(data)}${countChars(data) > OPENID_MAX_CHARS ? ` has ${countChars(data)} characters` : ''}; ${OPENID_RULE}`,
    hint: IDENTIFIER_HINT,
  }),
  'guide/oneOf': ({ data }) =>
    isRecord(data) && 'account' in data && 'openid' in data
      ? {
          code: 'guide-identity-both',
          message: 'this guide has both "account" and "openid"; a guide is named by exactly one of them',
          hint: 'keep "account" if the guide must be in a group (membership works by account only)',
        }
      : {
          code: 'guide-identity-missing',
          message: 'this guide has neither "account" nor "openid"; a guide is named by exactly one of them',
          hint: 'add "account: <WeChat ID>" (or "openid: …" for a guide without a WeChat ID)',
        },
};
