import type { WordsReplaced } from '../../core/apply-run-data.js';
import { compareText } from '../../core/compare-text.js';
import type { LiveAccount } from '../../core/live.js';
import type { Plan } from '../../core/plan-data.js';

/**
 * Whether a target that was told `semantics: append` in fact replaces the sensitive-word list. Under
 * `append` the plan adds the missing words with `is_delete: false` calls (several for a long list),
 * trusting the target to keep the others; a target that replaces drops them instead, and every
 * apply then swaps the list for its missing half. The read after apply shows it: every word of the
 * last append is there (each append replaced the one before it), and words that were there and
 * were not to be deleted are gone. Pure.
 */
export function detectReplacedWords(
  plan: Pick<Plan, 'calls' | 'sensitiveWordSemantics'>,
  before: LiveAccount,
  after: LiveAccount,
): WordsReplaced | undefined {
  if (plan.sensitiveWordSemantics !== 'append') return undefined;
  if (before.sensitiveWords === undefined || after.sensitiveWords === undefined) return undefined;
  const of = (isDelete: boolean): string[][] =>
    plan.calls.flatMap((c) =>
      c.subject.kind === 'account' && c.body['is_delete'] === isDelete
        ? [valuesOf(c.body['black_keyword'])]
        : [],
    );
  const appended =
    of(false)
      .filter((values) => values.length > 0)
      .at(-1) ?? [];
  const deleted = new Set(of(true).flat());
  const now = new Set(after.sensitiveWords);
  // No append, or one that did not take effect (it failed): no evidence either way.
  if (appended.length === 0 || !appended.every((w) => now.has(w))) return undefined;
  const lost = before.sensitiveWords.filter((w) => !deleted.has(w) && !now.has(w));
  return lost.length === 0 ? undefined : { lost: [...lost].sort(compareText) };
}

function valuesOf(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || !('values' in value)) return [];
  const values: unknown = value.values;
  return Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string') : [];
}
