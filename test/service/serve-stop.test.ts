import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServe } from '../../src/service/index.js';

// `guidectl serve`'s stop: a second signal that finds no call under way has cut nothing short, so
// the stop says `stopped` (exit 0), not that calls in flight went unanswered. Two quick Ctrl-Cs to
// an idle serve said the latter one time in three: the second signal raced the database's close.

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'guidectl-serve-stop-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const self = { pid: process.pid, host: hostname(), isRunning: () => true, now: () => new Date() };

describe('stop of an idle serve', () => {
  it('with the second signal already given: finished, and the lock released', async () => {
    const serve = await startServe({ db: join(dir, 's.db'), cwd: dir, self, log: () => {}, port: 0 });
    expect(await readdir(dir)).toContain('s.db.lock');
    expect(await serve.stop(AbortSignal.abort())).toBe('finished');
    expect(await readdir(dir)).not.toContain('s.db.lock');
  });
});
