import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WRITE_EFFECTS } from '../../src/kinds/registry.js';

// Each write operation is named (as a word, comments too) only where it is defined: its kind's
// writes.ts, the PlannedOperation union, and the client method that sends it. Every other file
// reaches a write through what writes.ts exports. The service is the independent model and the
// wire room describes the API, so neither counts.

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/** Files that still name some operations, with the reason. */
const NOT_YET: Readonly<Record<string, string>> = {};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('write operation names', () => {
  const files = sourceFiles(SRC)
    .map((path) => ({ name: relative(SRC, path).split(/[\\/]/).join('/'), text: readFileSync(path, 'utf8') }))
    .filter(({ name }) => !name.startsWith('service/') && !name.startsWith('wire/'));

  it.each(Object.keys(WRITE_EFFECTS))(
    'names %s in its writes.ts, core/plan-data.ts and the client only',
    (op) => {
      const word = new RegExp(`\\b${op}\\b`);
      const naming = files.filter(({ name, text }) => word.test(text) && NOT_YET[name] === undefined);
      const names = naming.map(({ name }) => name).sort();
      const writes = names.filter((name) => /^kinds\/[^/]+\/writes\.ts$/.test(name));
      expect(writes).toHaveLength(1);
      expect(names).toEqual([...writes, 'client/guide-client.ts', 'core/plan-data.ts'].sort());
    },
  );
});
