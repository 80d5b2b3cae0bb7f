import type { RuleProblem } from '../../core/diagnostics.js';
import { wechatIdMessage } from '../../core/guide-rules.js';

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
