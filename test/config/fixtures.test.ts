import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/config/index.js';
import { CONFIG_DIAGNOSTIC_CODES, type DiagnosticCode } from '../../src/core/diagnostics.js';

/**
 * One fixture per failure case: `fixtures/<code>.yaml`, or `fixtures/<code>.<case>.yaml` when a code
 * has several cases, or a folder `fixtures/<code>/` (`<code>.<case>/`) for what needs several files. YAML so broken that biome (which formats and lints *.yaml) cannot parse it
 * is kept as `fixtures/<code>.txt`: guidectl reads any file it is given by name. Each fixture
 * states what it must produce, exactly, in lines of the form
 *
 *     # expect: error nickname-too-long 5:15            (in a .yaml fixture)
 *     expect: error guide-duplicate b.yaml:3:14         (in a folder's expect.txt)
 *
 * and the test checks that the diagnostics are exactly those: code, severity, file, line, column.
 */
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** Codes whose cases cannot be a checked-in file; `load-desired-state.test.ts` covers them. */
const CODES_TESTED_ELSEWHERE: readonly DiagnosticCode[] = [
  'path-not-found', // a path that does not exist
  'path-unreadable', // permissions and special files
  'file-too-large', // a 50 MB file, made sparse at test time
  'file-not-text', // binary bytes
  'schema-violation', // unreachable: every schema constraint has its own code (tested)
  'too-many-problems', // 5,000 keys
  'file-outside-folder', // a symbolic link, made at test time (validate-command.test.ts)
];

interface Fixture {
  /** The diagnostic code the fixture is about. */
  readonly name: string;
  readonly entry: string;
  readonly path: string;
  readonly base: string;
  readonly expected: readonly string[];
}

function readFixtures(): Fixture[] {
  const line = /^(?:# )?expect: (error|warning) ([a-z0-9-]+) (?:(\S+):)?(\d+):(\d+)\s*$/;
  const fixtures: Fixture[] = [];
  for (const entry of readdirSync(FIXTURES).sort()) {
    const path = nodePath.join(FIXTURES, entry);
    const isFolder = statSync(path).isDirectory();
    const text = readFileSync(isFolder ? nodePath.join(path, 'expect.txt') : path, 'utf8');
    const name = entry.replace(/\..*$/, '');
    const expected = text
      .split('\n')
      .map((l) => line.exec(l))
      .filter((m) => m !== null)
      .map(([, severity, code, file, l, c]) => `${severity} ${code} ${file ?? entry}:${l}:${c}`);
    fixtures.push({ name, entry, path, base: isFolder ? path : FIXTURES, expected });
  }
  return fixtures;
}

const fixtures = readFixtures();

describe('diagnostic fixtures', () => {
  it.each(fixtures.map((f) => [f.entry, f] as const))('%s', async (_entry, fixture) => {
    expect(fixture.expected.length, 'the fixture states what it expects').toBeGreaterThan(0);
    const result = await loadDesiredState([fixture.path]);
    const actual = result.diagnostics.map((d) => {
      const file = nodePath.relative(fixture.base, d.file) || '.';
      return `${d.severity} ${d.code} ${file}:${d.line}:${d.column}`;
    });
    expect(actual.sort()).toEqual([...fixture.expected].sort());
    // The fixture is about its own code.
    expect(result.diagnostics.map((d) => d.code)).toContain(fixture.name);
    // Every diagnostic says something and points inside the file.
    for (const d of result.diagnostics) {
      expect(d.message).not.toMatch(/must (NOT )?(have|match|be equal)|should /);
      expect(d.line).toBeGreaterThanOrEqual(1);
      expect(d.column).toBeGreaterThanOrEqual(1);
    }
    // A state is produced exactly when there is no error.
    expect(result.state === undefined).toBe(result.diagnostics.some((d) => d.severity === 'error'));
  });

  it('covers every diagnostic code, with a fixture or a test elsewhere', () => {
    const names = new Set(fixtures.map((f) => f.name));
    const missing = CONFIG_DIAGNOSTIC_CODES.filter(
      (code) => !names.has(code) && !CODES_TESTED_ELSEWHERE.includes(code),
    );
    expect(missing).toEqual([]);
    const unknown = fixtures
      .map((f) => f.name)
      .filter((name) => !(CONFIG_DIAGNOSTIC_CODES as readonly string[]).includes(name));
    expect(unknown).toEqual([]);
  });
});
