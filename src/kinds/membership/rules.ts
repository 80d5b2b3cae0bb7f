import type { RuleProblem } from '../../core/diagnostics.js';
import { quote } from '../../core/diagnostics.js';
import { WECHAT_ID, wechatIdMessage } from '../../core/guide-rules.js';
import type { LocatedFile } from '../../core/positions.js';
import { describeEarlier, type Reporter } from '../../core/reporter.js';
import type { SchemaMessages } from '../../core/schema-messages.js';
import type { KnownGuides } from '../guide/rules.js';

/**
 * A member that is not a WeChat ID. The schema lets an openid's shape through (so that an openid
 * listed as a member is named as such), and the rules hold the rest to the WeChat ID rule.
 */
export function memberInvalid(member: unknown): RuleProblem {
  return {
    code: 'member-invalid',
    message: member === '' ? 'a member is empty' : wechatIdMessage('member', member),
    hint: 'a member is the account (WeChat ID) of a guide, as written after "account:"',
  };
}

/** One group's members, in order: the first problem of each member is its one diagnostic. */
export function checkMembers(
  parsed: LocatedFile,
  index: number,
  group: { readonly name: string; readonly members?: readonly string[] },
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

/** The words for a member's values that break the schema fragment (`schema.ts`), by `$defs name/keyword`. */
export const MEMBERSHIP_MESSAGES: SchemaMessages = {
  'member/pattern': ({ data }) => memberInvalid(data),
};
