import { compareText } from '../../core/compare-text.js';
import type { LiveAccount } from '../../core/live.js';

/** The account settings as the plan's live digest covers them: the sensitive words sorted. */
export function canonicalAccount(account: LiveAccount): LiveAccount {
  return {
    ...account,
    ...(account.sensitiveWords === undefined
      ? {}
      : { sensitiveWords: [...account.sensitiveWords].sort(compareText) }),
  };
}

/** Each account setting read, fingerprinted (`hash` of its canonical form) by its name in the files. */
export function accountFingerprints(
  account: LiveAccount,
  hash: (value: unknown) => string,
): Record<string, string> {
  const out: Record<string, string> = {};
  const { offlineAutoReply, sensitiveWords, defaultWelcome } = account;
  if (offlineAutoReply !== undefined) out['offline_auto_reply'] = hash(offlineAutoReply);
  if (sensitiveWords !== undefined) out['sensitive_words'] = hash([...sensitiveWords].sort(compareText));
  if (defaultWelcome !== undefined) out['default_welcome'] = hash(defaultWelcome);
  return out;
}
