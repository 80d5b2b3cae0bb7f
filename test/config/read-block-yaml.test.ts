import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadDesiredState, MAX_DIAGNOSTICS } from '../../src/config/index.js';
import { type ParseYamlResult, parseYaml, parseYamlWithPackage } from '../../src/config/parse-yaml.js';
import { readBlockYaml } from '../../src/config/read-block-yaml.js';
import type { SpanPart, ValuePath } from '../../src/core/positions.js';
import { randomDocument, seededRandom } from '../helpers/random-yaml.js';

/**
 * The fast reader must give what the yaml package gives, for every file it does not decline: the
 * same value (with the same key order), the same diagnostics, and the same span from `locate` for
 * every path and both parts, paths that do not exist included.
 */
function differences(text: string): string[] {
  const reference = parseYamlWithPackage('f.yaml', text);
  const fast = parseYaml('f.yaml', text);
  const out: string[] = [];
  if (reference.parsed === undefined) return ['the yaml package did not parse it, the fast reader did'];
  if (reference.notMapping === true) out.push('notMapping differs');
  if (!isDeepStrictEqual(fast.diagnostics, reference.diagnostics)) {
    out.push(`diagnostics: ${JSON.stringify(fast.diagnostics)} vs ${JSON.stringify(reference.diagnostics)}`);
  }
  const a = fast.parsed?.value;
  const b = reference.parsed.value;
  if (!isDeepStrictEqual(a, b) || JSON.stringify(keyOrder(a)) !== JSON.stringify(keyOrder(b))) {
    out.push(`value: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  }
  for (const path of pathsOf(b)) {
    for (const part of ['key', 'value'] as const) {
      const x = JSON.stringify(locate(fast, path, part));
      const y = JSON.stringify(locate(reference, path, part));
      if (x !== y) out.push(`locate ${JSON.stringify(path)} ${part}: ${x} vs ${y}`);
    }
  }
  return out;
}

function locate(result: ParseYamlResult, path: ValuePath, part: SpanPart): unknown {
  return result.parsed?.locate(path, part);
}

/** Every key order in a value, to compare beside the values (deep equality ignores it). */
function keyOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(keyOrder);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).map(([k, v]) => [k, keyOrder(v)]);
  }
  return null;
}

/** Every path into a value, and paths just beside them that do not exist. */
function pathsOf(value: unknown, path: (string | number)[] = [], out: ValuePath[] = []): ValuePath[] {
  out.push(path, [...path, 'no_such_key'], [...path, 99], [...path, 'no', 'deeper']);
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      pathsOf(v, [...path, i], out);
    });
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...path, k], out);
  }
  return out;
}

describe('the fast block-YAML reader', () => {
  it('reads random documents exactly as the yaml package does, or declines them', () => {
    const random = seededRandom(20261123);
    let taken = 0;
    const failures: string[] = [];
    for (let i = 0; i < 6000; i++) {
      const text = randomDocument(random);
      if (readBlockYaml(text) === undefined) continue;
      taken++;
      const found = differences(text);
      if (found.length > 0 && failures.length < 5)
        failures.push(`${JSON.stringify(text)}\n  ${found.join('\n  ')}`);
    }
    expect(failures).toEqual([]);
    // The generator aims at the subset: most documents must be taken, or the test proves little.
    expect(taken).toBeGreaterThan(2500);
  }, 120_000);

  const root = fileURLToPath(new URL('../../', import.meta.url));
  const yamlFiles = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = nodePath.join(dir, name);
      if (statSync(path).isDirectory()) return yamlFiles(path);
      return /\.ya?ml$/.test(name) ? [nodePath.relative(root, path)] : [];
    });

  /** Files outside the subset, each for a reason; everything else must take the fast path. */
  const DECLINED: Readonly<Record<string, string>> = {
    'examples/ci/github-actions.yml': 'a CI workflow, not a desired-state file: block scalars',
    'examples/ci/gitlab-ci.yml': 'a CI pipeline, not a desired-state file: a block scalar',
    'test/config/fixtures/file-empty.yaml': 'empty',
    'test/config/fixtures/top-level-not-mapping.yaml': 'not a mapping',
    'test/config/fixtures/unknown-key.merged.yaml': 'anchors and merge keys',
    'test/config/fixtures/yaml-merge-invalid.yaml': 'anchors and merge keys',
    'test/config/fixtures/prune-duplicate/a.yaml': 'a flow mapping',
    'test/config/fixtures/prune-duplicate/b.yml': 'a flow mapping',
    'test/config/fixtures/safety-duplicate/a.yaml': 'a flow mapping',
    'test/config/fixtures/quick-replies-too-many.yaml': 'a flow list over several lines',
    'test/config/fixtures/sensitive-words-too-many.yaml': 'a flow list over several lines',
  };

  it('is the path taken by the examples and the test fixtures, with the same result', () => {
    const files = [
      ...yamlFiles(nodePath.join(root, 'examples')),
      ...yamlFiles(nodePath.join(root, 'test/config/fixtures')),
    ];
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) {
      const text = readFileSync(nodePath.join(root, file), 'utf8');
      const taken = readBlockYaml(text) !== undefined;
      expect({ file, taken }).toEqual({ file, taken: DECLINED[file] === undefined });
      if (taken) expect({ file, differences: differences(text) }).toEqual({ file, differences: [] });
    }
  });

  it('reads a mapping of 200,000 keys and gives the first diagnostics in order, capped', async () => {
    const keys = 200_000;
    const text = `version: 1\naccount:\n${Array.from({ length: keys }, (_, i) => `  key_${i}: ${i}\n`).join('')}`;
    expect(readBlockYaml(text)).toBeDefined();
    const dir = await mkdtemp(nodePath.join(tmpdir(), 'guidectl-many-keys-'));
    await writeFile(nodePath.join(dir, 'many.yaml'), text);
    const file = nodePath.join(dir, 'many.yaml');
    const { diagnostics } = await loadDesiredState([file]).finally(() =>
      rm(dir, { recursive: true, force: true }),
    );
    expect(diagnostics).toHaveLength(MAX_DIAGNOSTICS + 1);
    diagnostics.slice(0, MAX_DIAGNOSTICS).forEach((d, i) => {
      expect(d).toEqual({
        severity: 'error',
        code: 'unknown-key',
        message: `unknown key "key_${i}" in "account"`,
        file,
        line: i + 3,
        column: 3,
        endLine: i + 3,
        endColumn: 3 + `key_${i}`.length,
        hint: 'the keys allowed here are: offline_auto_reply, sensitive_words, default_welcome',
      });
    });
    expect(diagnostics[MAX_DIAGNOSTICS]).toEqual({
      severity: 'error',
      code: 'too-many-problems',
      message: `and ${(keys - MAX_DIAGNOSTICS).toLocaleString('en-US')} more errors not shown, from here on; only the first 100 are listed`,
      hint: 'fix the problems above and run again',
      notShown: { errors: keys - MAX_DIAGNOSTICS, warnings: 0 },
      file,
      line: MAX_DIAGNOSTICS + 3,
      column: 3,
    });
    // No time is asserted; the limit only keeps a slow machine from failing the test.
  }, 120_000);
});
