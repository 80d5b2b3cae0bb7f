import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * A folder for the files of one test file, removed after it; `write` puts a text in it, under a
 * name of its own unless one is given (`sub/x.yaml`, in a folder made already), and returns its path.
 */
export function tempFiles(prefix: string): {
  readonly dir: string;
  write(text: string, name?: string): string;
} {
  const dir = mkdtempSync(join(tmpdir(), `guidectl-${prefix}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  return {
    dir,
    write(text, name = `f${++n}.yaml`) {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
  };
}
