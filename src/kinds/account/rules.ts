import { quote } from '../../core/diagnostics.js';
import type { LocatedFile } from '../../core/positions.js';
import { describeEarlier, type Reporter } from '../../core/reporter.js';
import { countChars, emptyText, itemCount, type SchemaMessages } from '../../core/schema-messages.js';
import type { RuleContext } from '../config-port.js';
import { WELCOME_TOO_MANY_HINT } from '../guide-config/rules.js';

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

/** The account kind's rules, as the registry runs them: they learn nothing for the other kinds. */
export function checkAccountRules(
  files: readonly AccountRuleFile[],
  _context: RuleContext,
  out: Reporter,
): void {
  checkSensitiveWords(files, out);
}

/** The words for the account's values that break the schema fragment (`schema.ts`), by `$defs name/keyword`. */
export const ACCOUNT_MESSAGES: SchemaMessages = {
  'sensitiveWordList/maxItems': ({ data, limit }) => ({
    code: 'sensitive-words-too-many',
    message: `sensitive word count limit reached (${limit}): this list has ${itemCount(data)} words`,
    hint: `an account holds at most ${limit} sensitive words; remove the others`,
  }),
  'offlineAutoReply/minLength': emptyText(
    'offline-reply-empty',
    'offline_auto_reply',
    'write null to delete the offline reply, or remove the key to leave it alone',
  ),
  'offlineAutoReply/maxLength': ({ data, limit }) => ({
    code: 'offline-reply-too-long',
    message: `offline_auto_reply is ${countChars(data)} characters; the limit is ${limit}`,
  }),
  'sensitiveWord/minLength': emptyText('sensitive-word-empty', 'a sensitive word', 'remove it from the list'),
  'defaultWelcome/maxItems': ({ data, limit }) => ({
    code: 'default-welcome-too-many',
    message: `the account has at most ${limit} default welcome messages; this list has ${itemCount(data)}`,
    hint: WELCOME_TOO_MANY_HINT,
  }),
};
