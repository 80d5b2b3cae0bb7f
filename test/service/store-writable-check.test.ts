import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Store } from '../../src/service/store.js';

// Opening a database checks that it may be written (a write rolled back at once) only when nothing
// was written yet: a new database's migration has just written it, which shows it writable.

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'guidectl-store-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

describe('opening the store', () => {
  it('checks a database it did not write for being writable, and not one its migration just made', () => {
    const exec = vi.spyOn(Database.prototype, 'exec');
    const checks = () => exec.mock.calls.filter(([sql]) => sql === 'BEGIN IMMEDIATE').length;
    const file = join(dir, 'guides.db');
    new Store(file).close();
    expect(checks()).toBe(0);
    new Store(file).close();
    expect(checks()).toBe(1);
  });
});
