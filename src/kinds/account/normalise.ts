import { compareText } from '../../core/compare-text.js';
import type { DesiredAccount, SourceRef } from '../../core/desired.js';
import { ifDefined } from '../../core/records.js';
import type { WrittenAccount } from '../../core/written.js';
import { normaliseWelcome } from '../welcome.js';

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
