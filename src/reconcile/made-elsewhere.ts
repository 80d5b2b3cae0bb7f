import { stat } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { UsageError } from '../core/errors.js';
import { desiredDigest } from '../plan/digest.js';
import type { SavedPlan } from '../plan/saved-plan.js';

/**
 * A saved plan records its paths relative to the folder `plan` ran in (`guidectl plan . --out
 * p.json` records `.`), so applied from another folder they name other files, or none: apply would
 * then say the files have errors, or that they changed since the plan was made, when the cause is
 * the folder. When the plan file lies in another folder than `cwd` and its recorded paths, taken
 * from there, are the files it was made from (their digest is the plan's) while from `cwd` they
 * are not, this is a UsageError naming that folder and the two commands that work. Nothing is said
 * (undefined) when `cwd` holds the plan's files, or when the folder it was made in cannot be told.
 */
export async function refuseMadeElsewhere(saved: SavedPlan, file: string, cwd: string): Promise<void> {
  const relative = saved.paths.filter((p) => !nodePath.isAbsolute(p));
  const folder = nodePath.dirname(nodePath.resolve(cwd, file));
  if (relative.length === 0 || folder === nodePath.resolve(cwd)) return;
  const beside = saved.paths.map((p) => nodePath.resolve(folder, p));
  if (!(await allPathsExist(beside))) return;
  const environment = saved.environment?.name;
  if (await holdsPlanFiles(saved, saved.paths, cwd, environment)) return;
  if (!(await holdsPlanFiles(saved, beside, cwd, environment))) return;
  throw new UsageError(madeElsewhereMessage(saved, file, cwd, folder));
}

function madeElsewhereMessage(saved: SavedPlan, file: string, cwd: string, folder: string): string {
  const there = nodePath.relative(cwd, folder) || '.';
  const planThere = nodePath.relative(folder, nodePath.resolve(cwd, file));
  const files = saved.paths.map((p) => shellWord(nodePath.relative(cwd, nodePath.resolve(folder, p)) || '.'));
  return (
    `${file} was made in another folder, ${there}: the paths it recorded (${saved.paths.join(', ')}) are relative ` +
    `to the folder plan ran in, and from here they are not the files it was made from. Nothing was read or changed. ` +
    `Run apply there: cd ${shellWord(there)} && guidectl apply ${shellWord(planThere)}; or give the files after the plan: ` +
    `guidectl apply ${shellWord(file)} ${files.join(' ')}`
  );
}

/** Whether `paths` (relative to `cwd`) load without error into the files the plan was made from. */
async function holdsPlanFiles(
  saved: SavedPlan,
  paths: readonly string[],
  cwd: string,
  environment: string | undefined,
): Promise<boolean> {
  // Loaded here, not above: `show` reads saved plans too, and has no YAML to parse.
  const { loadFiles } = await import('./files.js');
  try {
    const { files } = await loadFiles(paths, cwd, environment);
    return files !== undefined && desiredDigest(files.state) === saved.basis.desiredDigest;
  } catch (error) {
    // Files that declare environments without the plan's one (a UsageError) are not its files.
    if (error instanceof UsageError) return false;
    throw error;
  }
}

export async function allPathsExist(paths: readonly string[]): Promise<boolean> {
  for (const path of paths) {
    try {
      await stat(path);
    } catch {
      return false;
    }
  }
  return true;
}

/** A word as a shell reads it: as is when plain, else in single quotes. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
