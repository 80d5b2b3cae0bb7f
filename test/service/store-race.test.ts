import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useWorkspace } from '../helpers/cli.js';
import { untilOutput } from '../helpers/spawn.js';

// Each child loads the built Store, says it is ready, then waits for the `go` file to open the
// database: all of them open one new file within a millisecond or so of each other.
const CHILD = `
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [, storeModule, db, go] = process.argv;
const { Store } = await import(pathToFileURL(storeModule).href);
process.stdout.write('ready\\n');
const nap = new Int32Array(new SharedArrayBuffer(4));
while (!existsSync(go)) Atomics.wait(nap, 0, 0, 1);
try {
  new Store(db).close();
  process.stdout.write('opened\\n');
} catch (error) {
  process.stdout.write(\`failed: \${error.message}\\n\`);
}
`;
const STORE = resolve(process.cwd(), 'dist/service/store.js');

/** Opens `db` from `count` processes at once; returns what each printed after it was ready. */
async function openTogether(db: string, go: string, count: number): Promise<string[]> {
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, ['--input-type=module', '-e', CHILD, STORE, db, go], {
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const outcomes = children.map((child) => untilOutput(child.stdout, /(opened|failed: .*)\n/));
  await Promise.all(children.map((child) => untilOutput(child.stdout, /ready\n/)));
  await writeFile(go, '');
  return (await Promise.all(outcomes)).map((match) => match[1] ?? '');
}

describe('a new database opened by several processes at once', () => {
  const ws = useWorkspace();

  it('is created once, and every process opens it', async () => {
    for (let round = 0; round < 3; round++) {
      const db = join(ws().dir, `race-${round}.db`);
      const outcomes = await openTogether(db, join(ws().dir, `go-${round}`), 6);
      expect(outcomes).toEqual(Array(6).fill('opened'));
    }
  });
});
