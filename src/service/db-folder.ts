import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errorCode, errorMessage, UsageError } from '../core/errors.js';

/** The embedded service's database when nothing else is said, relative to the working directory. */
export const DEFAULT_LOCAL_DB_PATH = '.guidectl/local.db';

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
  return errorCode(error) ?? errorMessage(error);
}

/**
 * Makes ready the folder of a database file named by `source` (`--db`, `--local-db`,
 * `GUIDECTL_LOCAL_DB`). Only the `.guidectl/` folder is created (`isDefault`): a typo in another path
 * must not create folders and start an empty account there, so a missing folder is an error
 * naming it and the fix.
 */
export async function prepareDbFolder(
  db: string,
  options: { isDefault: boolean; source: string },
): Promise<void> {
  const folder = dirname(db);
  if (options.isDefault) return ensureDir(folder);
  try {
    if ((await stat(folder)).isDirectory()) return;
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new UsageError(
        `the folder ${folder} of ${options.source} does not exist; create it first (mkdir -p ${folder}), or fix the path`,
      );
    throw new UsageError(`cannot use the folder ${folder} of ${options.source}: ${code ?? String(error)}`);
  }
  throw new UsageError(`${folder} is not a folder, so ${options.source} ${db} cannot be created there`);
}

/** Whether a database file is there; other problems than its absence are errors naming it. */
export async function dbFileExists(db: string, source: string, shown: string): Promise<boolean> {
  try {
    if ((await stat(db)).isFile()) return true;
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return false;
    throw new UsageError(`cannot use the database ${shown} of ${source}: ${code ?? String(error)}`);
  }
  throw new UsageError(`${source} ${shown} is not a file`);
}
