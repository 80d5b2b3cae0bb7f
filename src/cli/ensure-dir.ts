import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errorCode, UsageError } from '../core/errors.js';

/**
 * Creates a folder and its missing parents, one level at a time. Node's `mkdir({recursive: true})`
 * loops forever on some virtual file systems (under /proc it keeps retrying a parent that exists),
 * so a bad path must fail here with a clear error instead.
 */
export async function ensureDir(dir: string): Promise<void> {
  const missing: string[] = [];
  let current = dir;
  for (;;) {
    try {
      const info = await stat(current);
      if (!info.isDirectory())
        throw new UsageError(`${current} is not a folder, so ${dir} cannot be created`);
      break;
    } catch (error) {
      if (error instanceof UsageError) throw error;
      if (errorCode(error) !== 'ENOENT')
        throw new UsageError(`cannot use the folder ${current}: ${describe(error)}`);
      const parent = dirname(current);
      if (parent === current) break;
      missing.unshift(current);
      current = parent;
    }
  }
  for (const folder of missing) {
    try {
      await mkdir(folder);
    } catch (error) {
      if (errorCode(error) !== 'EEXIST')
        throw new UsageError(`cannot create the folder ${folder}: ${describe(error)}`);
    }
  }
}

function describe(error: unknown): string {
  return errorCode(error) ?? (error instanceof Error ? error.message : String(error));
}
