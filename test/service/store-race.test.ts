import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/service/store.js';
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

// Holds the write lock of a new database file (still in rollback-journal mode) for 300 ms, from a
// process of its own, as the first of several commands started together does while it sets the
// file up: the switch to WAL mode then cannot take the write lock after its read, and SQLite
// answers it with SQLITE_BUSY at once, without its busy handler.
const HOLDER = `
const [, sqlite, db] = process.argv;
const { default: Database } = await import(sqlite);
const holder = new Database(db);
holder.exec('CREATE TABLE IF NOT EXISTS held (x)');
holder.exec('BEGIN IMMEDIATE');
process.stdout.write('holding\\n');
setTimeout(() => { holder.exec('COMMIT'); holder.close(); }, 300);
`;
const SQLITE = resolve(process.cwd(), 'node_modules/better-sqlite3/lib/index.js');

describe('a new database opened by several processes at once', () => {
  const ws = useWorkspace();

  it('is created once, and every process opens it', async () => {
    for (let round = 0; round < 3; round++) {
      const db = join(ws().dir, `race-${round}.db`);
      const outcomes = await openTogether(db, join(ws().dir, `go-${round}`), 6);
      expect(outcomes).toEqual(Array(6).fill('opened'));
    }
  });

  it('waits for a lock held while it switches the file to WAL mode, instead of failing with "database is locked"', async () => {
    const db = join(ws().dir, 'held.db');
    const holder = spawn(process.execPath, ['--input-type=module', '-e', HOLDER, SQLITE, db], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await untilOutput(holder.stdout, /holding\n/);
    const store = new Store(db);
    try {
      expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      store.close();
      holder.kill();
    }
  });
});
