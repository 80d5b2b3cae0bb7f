import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layering of STYLE.md, held by reading every import of src/**: each room may import only
 * the rooms to its right, so that plan code cannot reach the network, config cannot print, and
 * nothing but cli touches the process.
 */
const EVERY_ROOM = [
  'reconcile',
  'inspect',
  'target',
  'config',
  'live',
  'plan',
  'apply',
  'report',
  'service',
  'client',
  'kinds',
  'wire',
  'core',
] as const;

const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  wire: ['core'],
  // What each kind of resource is and does to the account: pure, so every room above may use it.
  kinds: ['wire', 'core'],
  client: ['kinds', 'wire', 'core'],
  // The service is the independent model the tests check the kinds against: it never imports them.
  service: ['wire', 'core'],
  config: ['kinds', 'core'],
  live: ['client', 'kinds', 'wire', 'core'],
  plan: ['kinds', 'core', 'wire'],
  apply: ['client', 'kinds', 'core'],
  report: ['kinds', 'wire', 'core'],
  reconcile: ['config', 'live', 'plan', 'apply', 'kinds', 'wire', 'core'],
  inspect: ['client', 'kinds', 'wire', 'core'],
  target: ['client', 'service', 'wire', 'core'],
  cli: EVERY_ROOM,
  'index.ts': EVERY_ROOM,
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

/**
 * Every function, method, accessor and arrow function of a file longer than `limit` lines, from its
 * signature to its closing brace (a doc comment above it does not count), as `file:line name (n
 * lines)`. A nested function counts inside its parent too: the parent is what a reader must hold.
 */
function longFunctions(file: string, limit: number): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const lineOf = (position: number): number => source.getLineAndCharacterOfPosition(position).line + 1;
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = lineOf(node.getStart(source));
      const lines = lineOf(node.end) - first + 1;
      if (lines > limit)
        found.push(`${relative(SRC, file)}:${first} ${nameOf(node, source)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
  const named = ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) ? node.name : undefined;
  if (named !== undefined) return named.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  return ts.isConstructorDeclaration(node) ? 'constructor' : '(anonymous function)';
}

/** Functions longer than this are split: past a screen and a half, a reader loses the thread. */
const MOST_LINES = 100;

/**
 * Helpers with one home (STYLE.md: a helper lives in the room that owns it, no grab-bag utils/),
 * each with the shape a copy of it takes. A copy elsewhere drifts: four display paths once had
 * three rules for what `..` means.
 */
const ONE_HOME: readonly { helper: string; homes: readonly string[]; copy: RegExp }[] = [
  {
    helper: 'compareText',
    homes: ['core/compare-text.ts'],
    copy: /\b(\w+) < (\w+) \? -1 : \1 > \2 \? 1 : 0/,
  },
  {
    helper: 'isRecord',
    homes: ['core/records.ts'],
    copy: /typeof (\w+) === 'object' && \1 !== null && !Array\.isArray\(\1\)/,
  },
  {
    helper: 'errorMessage',
    homes: ['core/errors.ts'],
    copy: /instanceof Error\s*\?\s*(\w+)\.message\s*:\s*String\(\1\)/,
  },
  { helper: 'pathInside', homes: ['core/paths.ts'], copy: /startsWith\(\s*['"`]\.\./ },
  {
    helper: 'parseBaseUrl, isHttpUrl',
    homes: ['client/base-url.ts', 'core/guide-rules.ts'],
    copy: /\.protocol [!=]== 'http:'/,
  },
];

/** Copies with a reason to stay, by file and helper. */
const NOT_COPIES: Readonly<Record<string, string>> = {
  // keepFirst orders 64-bit group ids as bigints, not text.
  'kinds/group/plan.ts compareText': 'bigint order',
};

const IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm;

/**
 * Files of the layers that reach the kinds only through the registry and the shared files of
 * kinds/, never a kind's own folder: a new kind is then its module and its registry line.
 */
const THROUGH_THE_REGISTRY = [
  'config/check-rules.ts',
  'config/check-environment.ts',
  'config/merge-files.ts',
  'plan/plan-changes.ts',
  'report/markdown.ts',
  'live/read-live-state.ts',
  'plan/digest.ts',
  'report/export.ts',
  'plan/saved-plan.ts',
  'reconcile/verify.ts',
  'plan/guards.ts',
  'plan/list-removals.ts',
];

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

  it('reaches the kinds through the registry where the layers iterate it', () => {
    const kinds = join(SRC, 'kinds');
    const reached: string[] = [];
    for (const name of THROUGH_THE_REGISTRY) {
      const file = join(SRC, name);
      for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const spec = match[1] ?? '';
        if (!spec.startsWith('.')) continue;
        const inKinds = relative(kinds, resolve(dirname(file), spec)).split(/[\\/]/);
        if (inKinds[0] !== '..' && inKinds.length > 1) reached.push(`${name} imports ${spec}`);
      }
    }
    expect(reached).toEqual([]);
  });

  it('is the table the code map of docs/development.md shows', () => {
    const map = readFileSync(fileURLToPath(new URL('../docs/development.md', import.meta.url)), 'utf8');
    const rows = new Map(
      [...map.matchAll(/^\| `(\w+)\/` \| [^\n]*\| ([\w, ]+) \|$/gm)].map((m) => [m[1], m[2] ?? '']),
    );
    const listed = (room: string): string[] => {
      const text = rows.get(room) ?? '';
      return text === 'all' ? [...EVERY_ROOM].sort() : text === 'nothing' ? [] : text.split(', ').sort();
    };
    for (const room of EVERY_ROOM) expect(listed(room), room).toEqual([...(ALLOWED[room] ?? [])].sort());
    expect(listed('cli')).toEqual([...EVERY_ROOM].sort());
  });

  it('defines each exported name once in src/', () => {
    const where = new Map<string, string[]>();
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(
        /^export (?:async )?(?:function|const|let|class|interface|type|enum) (\w+)/gm,
      ))
        where.set(m[1] ?? '', [...(where.get(m[1] ?? '') ?? []), relative(SRC, file)]);
    }
    expect([...where].filter(([, places]) => places.length > 1)).toEqual([]);
  });

  it('touches process and prints only in cli (and bench-free src)', () => {
    const offenders = files.filter((file) => {
      if (roomOf(file) === 'cli') return false;
      const text = readFileSync(file, 'utf8');
      return /\bprocess\.[a-zA-Z]|console\.(log|error|warn)/.test(text);
    });
    expect(offenders.map((f) => relative(SRC, f))).toEqual([]);
  });

  // It parses every file of src/ with the compiler: seconds on a loaded machine.
  it(`keeps every function of src/ to ${MOST_LINES} lines`, { timeout: 60_000 }, () => {
    expect(files.flatMap((file) => longFunctions(file, MOST_LINES))).toEqual([]);
  });

  it('keeps each shared helper in one home, not copied', () => {
    const copies: string[] = [];
    for (const file of files) {
      const name = relative(SRC, file).split(/[\\/]/).join('/');
      const text = readFileSync(file, 'utf8');
      for (const { helper, homes, copy } of ONE_HOME) {
        const key = `${name} ${helper}`;
        if (homes.includes(name) || NOT_COPIES[key] !== undefined) continue;
        if (copy.test(text)) copies.push(key);
      }
    }
    expect(copies).toEqual([]);
  });
});
