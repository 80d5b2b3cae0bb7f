import { mkdir, readFile, realpath, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { thisProcess } from '../../src/cli/lock-process.js';
import { withTarget } from '../../src/index.js';
import { useWorkspace } from '../helpers/cli.js';
import { hostIn } from '../helpers/target-host.js';

// A command that writes the embedded database finds its real path once: what the target's identity
// found is the path its lock is taken on.

const resolved = vi.hoisted(() => [] as string[]);
vi.mock('../../src/core/real-path.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/core/real-path.js')>();
  return {
    realPathOf: (path: string) => {
      resolved.push(path);
      return actual.realPathOf(path);
    },
  };
});

const lock = { command: 'guidectl apply', timeoutSeconds: 0, self: thisProcess() };

describe('the lock of the embedded database', () => {
  const ws = useWorkspace();

  it("is taken on the real path the target's identity found, without finding it again", async () => {
    const cwd = ws().dir;
    // The database's folder is a link: the lock is beside the file it leads to.
    await mkdir(join(cwd, 'shared'));
    await symlink(join(cwd, 'shared'), join(cwd, 'db'));
    const host = hostIn(cwd);
    resolved.length = 0;
    const seen = await withTarget(
      host,
      { flags: { localDb: 'db/guides.db' }, client: {}, lock },
      async (_client, _target, now) => {
        const holder = JSON.parse(await readFile(join(cwd, 'shared', 'guides.db.lock'), 'utf8'));
        return { identity: now.identity, command: holder.command };
      },
    );
    expect(seen).toEqual({
      identity: { kind: 'embedded', database: join(await realpath(join(cwd, 'shared')), 'guides.db') },
      command: 'guidectl apply',
    });
    expect(resolved).toEqual([join(cwd, 'db', 'guides.db')]);
  });
});
