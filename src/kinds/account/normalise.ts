import { compareText } from '../../core/compare-text.js';
import type { DesiredAccount, SourceRef } from '../../core/desired.js';
import { ifDefined } from '../../core/records.js';
import type { WrittenAccount } from '../../core/written.js';
import { type DesiredParts, type NormaliseFile, sourceOf } from '../config-port.js';
import { normaliseWelcome } from '../welcome.js';

/** The account kind's normalising of one file: the `account` section of the one file that has it. */
export function normaliseAccountSection({ parsed, written }: NormaliseFile, into: DesiredParts): void {
  if (written.account !== undefined)
    into.account = normaliseAccount(written.account, sourceOf(parsed, ['account'], 'key'));
}

/** The account settings as written, once checked, as the planner reads them. */
export function normaliseAccount(written: WrittenAccount, source: SourceRef): DesiredAccount {
  const words = written.sensitive_words;
  return {
    ...ifDefined('offlineAutoReply', written.offline_auto_reply),
    ...(words === undefined
      ? {}
      : {
          sensitiveWords: {
            semantics: words.semantics,
            words: [...new Set(words.words)].sort(compareText),
          },
        }),
    ...(written.default_welcome === undefined
      ? {}
      : { defaultWelcome: written.default_welcome.map(normaliseWelcome) }),
    source,
  };
}
