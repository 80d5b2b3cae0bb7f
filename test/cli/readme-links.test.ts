import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The README and docs/ are the user's reference, and a clone holds only the repository: no link
// may leave it, and every relative link (and every #anchor) must resolve.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(text: string): Set<string> {
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1] ?? '')));
}

function linksOf(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '');
}

function markdownUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** The README, the changelog, every page of docs/, and every markdown file they link. */
function documents(): string[] {
  const seen = new Set<string>([
    join(ROOT, 'README.md'),
    join(ROOT, 'CHANGELOG.md'),
    ...markdownUnder(join(ROOT, 'docs')),
  ]);
  for (const file of seen) {
    for (const link of linksOf(readFileSync(file, 'utf8'))) {
      const path = link.split('#')[0] ?? '';
      if (path === '' || /^[a-z]+:/.test(path)) continue;
      const target = join(dirname(file), path);
      if (target.endsWith('.md') && existsSync(target)) seen.add(target);
    }
  }
  return [...seen];
}

describe('the README, docs/ and the documents they link', () => {
  it('never link outside the repository (../shared is not in a clone)', () => {
    for (const file of documents()) {
      const text = readFileSync(file, 'utf8');
      expect(text, relative(ROOT, file)).not.toMatch(/\.\.\/shared/);
      for (const link of linksOf(text)) {
        if (/^[a-z]+:/.test(link) || link.startsWith('#')) continue;
        const target = join(dirname(file), link.split('#')[0] ?? '');
        expect(relative(ROOT, target).startsWith('..'), `${relative(ROOT, file)} → ${link}`).toBe(false);
      }
    }
  });

  it('every relative link resolves, anchors included', () => {
    let checked = 0;
    for (const file of documents()) {
      const text = readFileSync(file, 'utf8');
      for (const link of linksOf(text)) {
        if (/^[a-z]+:/.test(link)) continue;
        const [path = '', anchor] = link.split('#');
        const target = path === '' ? file : join(dirname(file), path);
        expect(existsSync(target), `${relative(ROOT, file)} → ${link}`).toBe(true);
        if (anchor !== undefined && target.endsWith('.md'))
          expect(
            anchorsOf(readFileSync(target, 'utf8')).has(anchor),
            `${relative(ROOT, file)} → ${link}`,
          ).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('every page of docs/ is reached from the README', () => {
    const reached = new Set<string>([join(ROOT, 'README.md')]);
    for (const file of reached) {
      for (const link of linksOf(readFileSync(file, 'utf8'))) {
        const target = join(dirname(file), link.split('#')[0] ?? '');
        if (!/^[a-z]+:/.test(link) && target.endsWith('.md') && existsSync(target)) reached.add(target);
      }
    }
    const unreached = markdownUnder(join(ROOT, 'docs')).filter((page) => !reached.has(page));
    expect(unreached.map((page) => relative(ROOT, page))).toEqual([]);
  });

  it('every test file docs/guarantees.md names exists', () => {
    const text = readFileSync(join(ROOT, 'docs', 'guarantees.md'), 'utf8');
    const named = [...text.matchAll(/`([\w/-]+\.test\.ts)`/g)].map((m) => m[1] ?? '');
    expect(named.length).toBeGreaterThan(10);
    for (const file of named) expect(existsSync(join(ROOT, 'test', file)), file).toBe(true);
  });

  it('documents the JSON outputs, the exit codes, the file format and show', () => {
    const readme = readFileSync(join(ROOT, 'docs', 'machine-output.md'), 'utf8');
    for (const needle of [
      'validate --json',
      'plan --json',
      'apply --json',
      '"kind": "guidectl-plan"',
      'Exit codes',
      'guidectl show',
    ]) {
      expect(readme).toContain(needle);
    }
    const format = readFileSync(join(ROOT, 'docs', 'file-format.md'), 'utf8');
    for (const key of [
      'offline_auto_reply',
      'sensitive_words',
      'default_welcome',
      'quick_replies',
      'head_image_url',
      'protect',
      'prune',
      'max_delete_share',
    ]) {
      expect(format).toContain(key);
    }
  });
});
