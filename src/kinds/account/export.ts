import { compareText } from '../../core/compare-text.js';
import type { LiveAccount } from '../../core/live.js';
import { ifDefined } from '../../core/records.js';
import { exportWelcome } from '../guide-config/export.js';
import type { CardMediaId, KindDigest, KindExport } from '../live-part.js';

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

/** The account settings read, as the files' `account` section writes them; undefined when none was read. */
export function exportAccount(
  account: LiveAccount,
  warnings: string[],
  cardMediaId: CardMediaId,
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  if (account.offlineAutoReply !== undefined) out['offline_auto_reply'] = account.offlineAutoReply;
  if (account.sensitiveWords !== undefined) {
    out['sensitive_words'] = { semantics: 'append', words: [...account.sensitiveWords].sort() };
  }
  if (account.defaultWelcome !== undefined) {
    out['default_welcome'] = exportWelcome(
      account.defaultWelcome,
      'account default_welcome',
      warnings,
      cardMediaId,
    );
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** The account settings' part of the live digest and fingerprints: each setting read, by its name in the files. */
export const ACCOUNT_DIGEST: KindDigest = {
  resource: 'account',
  canonical: (live) => ({ account: canonicalAccount(live.account) }),
  fingerprints: (live, hash) => ({ account: accountFingerprints(live.account, hash) }),
  compared: (fingerprints) =>
    new Map(Object.entries(fingerprints.account).map(([key, hash]) => [key, { hash, address: key }])),
  decode: (saved, read) => ({ account: read.strings(saved['account'], 'live_fingerprints.account') }),
};

/** The file's `account` section, when a setting was read. */
export const ACCOUNT_EXPORT: KindExport = {
  write: (live, { warnings, cardMediaId }) =>
    ifDefined('account', exportAccount(live.account, warnings, cardMediaId)),
};
