import { stat } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { UsageError } from '../core/errors.js';
import { shellWord } from '../core/shell-word.js';
import { desiredDigest } from '../plan/digest.js';
import type { SavedPlan } from '../plan/saved-plan.js';
import type { FilesLoad, LoadResult } from './files.js';

/**
 * A saved plan records its paths relative to the folder `plan` ran in (`guidectl plan . --out
 * p.json` records `.`), so applied from another folder they name other files, or none: apply would
 * then say the files have errors, or that they changed since the plan was made, when the cause is
 * the folder. Given what the plan's recorded paths hold from `cwd` (`here`: what `read` gave, or
 * the UsageError it threw), when they are not the files it was made from (errors, or another
 * digest than the plan's) while the plan file lies in another folder than `cwd` and its paths,
 * taken from there, are those files, this is a UsageError naming that folder and the two commands
 * that work. `here` is undefined when the recorded paths are not there from `cwd` (`guidectl plan
 * g.yaml --out p.json` in `repo/`, applied from above it). Nothing is said when `here` holds the
 * plan's files (the usual case, found without computing a digest when the plan lies in `cwd`), or
 * when the folder it was made in cannot be told.
 */
export async function refuseMadeElsewhere(
  saved: SavedPlan,
  file: string,
  cwd: string,
  here: LoadResult | UsageError | undefined,
  read: FilesLoad['read'],
): Promise<void> {
  const relative = saved.paths.filter((p) => !nodePath.isAbsolute(p));
  const folder = nodePath.dirname(nodePath.resolve(cwd, file));
  if (relative.length === 0 || folder === nodePath.resolve(cwd)) return;
  const beside = saved.paths.map((p) => nodePath.resolve(folder, p));
  if (!(await allPathsExist(beside))) return;
  if (here !== undefined && holdsPlanFiles(saved, here)) return;
  if (!holdsPlanFiles(saved, await readPlanFiles(read, beside, saved.environment?.name))) return;
  throw new UsageError(madeElsewhereMessage(saved, file, cwd, folder));
}

/**
 * What `read` gives for a saved plan's files at `paths`, or the UsageError it throws: files that
 * declare environments without the plan's one are not its files (said once the folder is known).
 */
export async function readPlanFiles(
  read: FilesLoad['read'],
  paths: readonly string[],
  environment: string | undefined,
): Promise<LoadResult | UsageError> {
  try {
    return await read(paths, environment);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
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

/** Whether a read found, without error, the files the plan was made from. */
function holdsPlanFiles(saved: SavedPlan, loaded: LoadResult | UsageError): boolean {
  const files = loaded instanceof UsageError ? undefined : loaded.files;
  return files !== undefined && desiredDigest(files.state) === saved.basis.desiredDigest;
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
