import type { GuideId } from '../core/desired.js';
import { UsageError } from '../core/errors.js';
import { explainWechatId, OPENID, OPENID_RULE } from '../core/guide-rules.js';

/**
 * A guide as a person names it on the command line, as the files do: its account (WeChat ID,
 * `alice_wx`) or `openid:` and its openid (`openid:oAbc…`), for a guide added without an account.
 * A usage error, naming `what` (`GUIDE`, `--guide`), when the text is neither.
 */
export function parseGuideName(text: string, what: string): GuideId {
  if (text.startsWith('openid:')) {
    const openid = text.slice('openid:'.length).trim();
    if (!OPENID.test(openid)) throw new UsageError(`${what} ${JSON.stringify(text)}: ${OPENID_RULE}`);
    return { kind: 'openid', openid };
  }
  const why = explainWechatId(text);
  if (why !== undefined) {
    throw new UsageError(
      `${what} ${JSON.stringify(text)} is not a guide's account: it ${why}; name a guide by its WeChat ID (alice_wx) or as openid:<openid>`,
    );
  }
  return { kind: 'account', account: text };
}

/** A customer's openid given on the command line (`--customer`), or a usage error naming the flag. */
export function parseCustomer(text: string, what: string): string {
  if (!OPENID.test(text))
    throw new UsageError(`${what} ${JSON.stringify(text)} is not an openid: ${OPENID_RULE}`);
  return text;
}
