import { quote } from '../../core/diagnostics.js';
import type { LocatedFile } from '../../core/positions.js';
import { describeEarlier, type Reporter } from '../../core/reporter.js';

/** The account's sensitive words in one file that passed the schema, with the means to point into it. */
export interface AccountRuleFile {
  readonly parsed: LocatedFile;
  readonly parts: {
    readonly account?: { readonly sensitive_words?: { readonly words: readonly string[] } };
  };
}

/** Sensitive words: a set, so each word once. */
export function checkSensitiveWords(files: readonly AccountRuleFile[], out: Reporter): void {
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
      out.report(
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
}
