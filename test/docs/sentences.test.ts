import { describe, expect, it } from 'vitest';
import { userPages } from './pages.js';

/**
 * Sentences a reader can hold (issue 24): across the README and docs/, the 95th percentile sentence
 * is at most 30 words and none is over 45. The measure:
 * - fenced code blocks and HTML comments are left out; an inline code span counts as one word;
 * - a link counts as its text;
 * - each table cell is a phrase of its own, and each heading and list item starts a sentence;
 * - a sentence ends at `.`, `?` or `!` followed by a space or the end of a line;
 * - a word is a run of non-space characters holding a letter or a digit.
 */

const P95 = 30;
const MAX = 45;

function prose(text: string): string[] {
  const withoutCode = text
    .replace(/^\s*```[\s\S]*?^\s*```\s*$/gm, '\n')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/`[^`\n]+`/g, 'CODE')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
  const phrases: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) phrases.push(paragraph.join(' '));
    paragraph = [];
  };
  for (const line of withoutCode.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '') flush();
    else if (trimmed.startsWith('|')) {
      flush();
      if (!/^\|[\s:|-]+\|$/.test(trimmed)) phrases.push(...trimmed.split('|'));
    } else if (/^(#{1,6} |[-*] |\d+\. )/.test(trimmed)) {
      flush();
      paragraph.push(trimmed.replace(/^(#{1,6} |[-*] |\d+\. )/, ''));
    } else paragraph.push(trimmed);
  }
  flush();
  return phrases.flatMap((p) => p.split(/(?<=[.?!])\s+/));
}

function words(sentence: string): number {
  return sentence.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
}

describe('sentences of the README and docs/', () => {
  const sentences = userPages().flatMap((page) =>
    prose(page.text)
      .map((s) => ({ page: page.path, text: s.trim(), words: words(s) }))
      .filter((s) => s.words > 0),
  );

  it(`none is over ${MAX} words`, () => {
    const long = sentences.filter((s) => s.words > MAX).map((s) => `${s.page}: ${s.words} words: ${s.text}`);
    expect(long).toEqual([]);
  });

  it(`the 95th percentile is at most ${P95} words`, () => {
    const counts = sentences.map((s) => s.words).sort((a, b) => a - b);
    const p95 = counts[Math.ceil(counts.length * 0.95) - 1] ?? 0;
    expect(counts.length).toBeGreaterThan(500);
    expect(p95).toBeLessThanOrEqual(P95);
  });
});
