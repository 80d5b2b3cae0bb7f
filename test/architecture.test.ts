import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layering of STYLE.md, held by reading every import of src/**: each room may import only
 * the rooms to its right, so that plan code cannot reach the network, config cannot print, and
 * nothing but cli touches the process.
 */
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  wire: ['core'],
  client: ['wire', 'core'],
  service: ['wire', 'core'],
  config: ['core'],
  live: ['client', 'wire', 'core'],
  plan: ['core', 'wire'],
  apply: ['client', 'core'],
  report: ['core'],
  cli: ['config', 'live', 'plan', 'apply', 'report', 'service', 'client', 'wire', 'core'],
  'index.ts': ['config', 'live', 'plan', 'apply', 'report', 'service', 'client', 'wire', 'core'],
};

const SRC = fileURLToPath(new URL('../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

function roomOf(file: string): string {
  const rel = relative(SRC, file).split(/[\\/]/);
  return rel.length === 1 ? (rel[0] ?? '') : (rel[0] ?? '');
}

const IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm;

describe('architecture', () => {
  const files = sourceFiles(SRC);

  it('knows every room of src/', () => {
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) expect(Object.keys(ALLOWED), relative(SRC, file)).toContain(roomOf(file));
  });

  it('keeps imports flowing one way, as STYLE.md lays out', () => {
    const violations: string[] = [];
    for (const file of files) {
      const room = roomOf(file);
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(IMPORT)) {
        const spec = match[1] ?? '';
        if (!spec.startsWith('.')) continue;
        const target = roomOf(resolve(dirname(file), spec));
        if (target === room) continue;
        if (!(ALLOWED[room] ?? []).includes(target))
          violations.push(`${relative(SRC, file)} imports ${spec} (${room} → ${target})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('touches process and prints only in cli (and bench-free src)', () => {
    const offenders = files.filter((file) => {
      if (roomOf(file) === 'cli') return false;
      const text = readFileSync(file, 'utf8');
      return /\bprocess\.(stdout|stderr|exit|env|argv|on)\b|console\.(log|error|warn)/.test(text);
    });
    expect(offenders.map((f) => relative(SRC, f))).toEqual([]);
  });
});
