import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A page of the user documentation: its path from the root and its text. */
export interface Page {
  readonly path: string;
  readonly text: string;
}

function markdownUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** The README and every page of docs/, in a fixed order. */
export function userPages(): Page[] {
  const files = [join(ROOT, 'README.md'), ...markdownUnder(join(ROOT, 'docs')).sort()];
  return files.map((file) => ({ path: relative(ROOT, file), text: readFileSync(file, 'utf8') }));
}

/**
 * A fenced code block: its language, its text, whether a `<!-- fragment -->` comment marks it (a
 * YAML block that is only part of a file), and whether `<!-- runs -->` does (a shell block that names
 * only local resources, which test/docs/examples.test.ts runs).
 */
export interface CodeBlock {
  readonly page: string;
  readonly line: number;
  readonly lang: string;
  readonly code: string;
  readonly fragment: boolean;
  readonly runs: boolean;
}

/** Every fenced code block of a page. */
export function codeBlocks(page: Page): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = page.text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\w*)\s*$/.exec(lines[i] ?? '');
    if (open === null) continue;
    const indent = open[1] ?? '';
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i] ?? ''); i++)
      body.push((lines[i] ?? '').slice(indent.length));
    let previous = start - 1;
    while (previous >= 0 && (lines[previous] ?? '').trim() === '') previous--;
    blocks.push({
      page: page.path,
      line: start + 1,
      lang: open[2] ?? '',
      code: `${body.join('\n')}\n`,
      fragment: (lines[previous] ?? '').trim() === '<!-- fragment -->',
      runs: (lines[previous] ?? '').trim() === '<!-- runs -->',
    });
  }
  return blocks;
}
