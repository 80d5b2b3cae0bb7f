import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';

/** Why a tiny disk could not be had: the message a skipped test shows. */
export const NO_TINY_DISK = 'mount -t tmpfs is not permitted here (it needs root, as in the CI container)';

/**
 * A small disk of the file's own (a tmpfs of `size`, e.g. `64k`), mounted in beforeAll, emptied
 * before each test and unmounted in afterAll. Mounting needs root: `dir` is undefined where it is
 * refused, and a test then skips with {@link NO_TINY_DISK}. `fill(room)` leaves `room` bytes free.
 */
export function useTinyDisk(size: string): {
  readonly dir: string | undefined;
  fill(room: number): Promise<void>;
} {
  let parent: string | undefined;
  let mounted: string | undefined;
  beforeAll(async () => {
    parent = await mkdtemp(join(tmpdir(), 'guidectl-disk-'));
    const dir = join(parent, 'disk');
    await mkdir(dir);
    if (await run('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir])) mounted = dir;
  });
  beforeEach(async () => {
    if (mounted === undefined) return;
    for (const name of await readdir(mounted))
      await rm(join(mounted, name), { recursive: true, force: true });
  });
  afterAll(async () => {
    if (mounted !== undefined) await run('umount', [mounted]);
    if (parent !== undefined) await rm(parent, { recursive: true, force: true });
  });
  return {
    get dir() {
      return mounted;
    },
    async fill(room) {
      if (mounted === undefined) throw new Error(NO_TINY_DISK);
      const filler = join(mounted, 'filler');
      // Takes what fits, then ENOSPC: the disk is full; cutting the filler frees `room` bytes.
      await writeFile(filler, Buffer.alloc(16 << 20)).catch(() => undefined);
      await truncate(filler, Math.max(0, (await stat(filler)).size - room));
    },
  };
}

/** Whether `command ARGS` ran and exited 0. */
function run(command: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('close', (code) => resolve(code === 0));
  });
}
