import { open, readFile, stat } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { suggest } from '../config/suggest.js';
import { errorCode, errorMessage, UsageError } from '../core/errors.js';
import { pathInside } from '../core/paths.js';
import { realPathOf } from '../core/real-path.js';
import { ifDefined } from '../core/records.js';
import { shellWord } from '../core/shell-word.js';
import { compareTargets, type TargetNow } from '../core/target-identity.js';
import { checkOutputPath, writeWholeFile } from '../core/whole-file.js';
import { liveFingerprints } from '../plan/digest.js';
import { decodeSavedPlan, encodeSavedPlan, SAVED_PLAN_KIND, type SavedPlan } from '../plan/saved-plan.js';
import { parseJson } from '../wire/json.js';
import type { ApplySource } from './apply-run.js';
// Types only: `show` reads saved plans too, and has no YAML to parse (so `readAndReport` of
// files.ts, which loads the parser, is written out here as `load.report(await load.read(…))`).
import type { FilesLoad, LoadedFiles } from './files.js';
import { allPathsExist, readPlanFiles, refuseMadeElsewhere } from './made-elsewhere.js';
import { inputAt } from './output-input.js';
import type { PlanRun } from './plan-run.js';

/** Writes the file whole or not at all (a temporary file renamed into place). */
export async function writeSavedPlan(file: string, saved: SavedPlan): Promise<void> {
  await writeWholeFile(file, encodeSavedPlan(saved), `the plan to ${file}`);
}

/**
 * `plan --out FILE`, before anything is read: the file can be written ({@link checkOutputPath}),
 * a saved plan is JSON, and is named so (guidectl itself tells it by its content), and it is not
 * one of the files the plan is made from (`paths`, as given: files, and the desired-state files
 * of folders), by its real path: a plan saved over its own input would lose the user's file.
 */
export async function checkPlanOut(cwd: string, out: string, paths: readonly string[]): Promise<string> {
  const path = nodePath.resolve(cwd, out);
  await checkOutputPath(path, out, { flag: '--out', example: 'plan.json' });
  if (!out.toLowerCase().endsWith('.json')) {
    throw new UsageError(`--out ${out}: name the file *.json (a saved plan is JSON)`);
  }
  const real = await realPathOf(path);
  const input = await inputAt(real, paths, cwd);
  if (input === undefined) return out;
  const verb = real === path ? 'is' : 'leads to';
  // A new file of a folder given: only through a link (a *.json is not read from a folder).
  throw new UsageError(
    input.kind === 'file'
      ? `--out ${out} ${verb} ${input.shown}, one of the files the plan is made from: the saved plan would overwrite it. Name another file, e.g. --out plan.json`
      : `--out ${out} leads to a new desired-state file of ${input.shown}, which the plan is made from: the folder would read the saved plan with its files next time. Name another file, e.g. --out plan.json`,
  );
}

/**
 * `plan --out`: the plan of `run` saved at `out` (relative to `cwd`), with the paths it was made
 * from as a saved plan records them, its live fingerprints, the target it read (as identified,
 * and as `target` describes it) and, for a plan of an environment, the environment.
 */
export async function savePlanRun(
  cwd: string,
  out: string,
  run: Extract<PlanRun, { status: 'planned' }>,
  paths: readonly string[],
  target: string,
): Promise<void> {
  const { environment, target: identity } = run.basis;
  // A saved plan without its target could be applied to any account.
  if (identity === undefined) throw new Error('a plan is saved only with the identity of its target');
  await writeSavedPlan(nodePath.resolve(cwd, out), {
    planId: run.planId,
    target: { description: target, identity },
    ...(environment === undefined ? {} : { environment: { name: environment } }),
    paths: paths.map((p) => recordedPath(cwd, p)),
    basis: run.basis,
    plan: run.plan,
    liveFingerprints: liveFingerprints(run.live),
    ...ifDefined('quota', run.quota),
  });
}

/** How much of a file is read to tell a saved plan from a desired-state file. */
const SNIFF_BYTES = 4096;

/**
 * Whether a path given on the command line holds a saved plan — decided by its content, the same
 * way in every command: a JSON object whose `kind` is "guidectl-plan", or that starts with
 * `format_version` (the output of `plan --json`, which apply then refuses with the reason).
 * Desired-state files, YAML or JSON, start with other keys (`version`). A folder is never a plan;
 * a path that does not exist is taken for a plan when it is named `*.json` (so that apply says
 * "no such file" about the plan the user meant).
 */
export async function isSavedPlanFile(file: string): Promise<boolean> {
  let head: string;
  try {
    // Opening a named pipe waits for a writer: only a regular file is opened.
    if (!(await stat(file)).isFile()) return false;
    const handle = await open(file, 'r');
    try {
      if (!(await handle.stat()).isFile()) return false;
      const buffer = Buffer.alloc(SNIFF_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
      head = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = errorCode(error) ?? '';
    return code === 'ENOENT' && file.toLowerCase().endsWith('.json');
  }
  const text = head.replace(/^\uFEFF/, '').trimStart();
  return (
    text.startsWith('{') &&
    (/^\{\s*"format_version"\s*:/.test(text) || new RegExp(`"kind"\\s*:\\s*"${SAVED_PLAN_KIND}"`).test(text))
  );
}

/** Command-line paths split by content: saved plans, and desired-state files or folders. */
export interface SplitPaths {
  readonly savedPlans: readonly string[];
  readonly paths: readonly string[];
}

/** Splits command-line paths into saved plans and desired-state paths, by content. */
export async function splitSavedPlans(cwd: string, args: readonly string[]): Promise<SplitPaths> {
  const savedPlans: string[] = [];
  const paths: string[] = [];
  for (const arg of args)
    ((await isSavedPlanFile(nodePath.resolve(cwd, arg))) ? savedPlans : paths).push(arg);
  return { savedPlans, paths };
}

/**
 * For commands that read desired-state files (validate, plan): a saved plan among the paths is a
 * usage error pointing at the commands that read it, instead of a misreading of it as YAML.
 */
export async function refuseSavedPlans(cwd: string, args: readonly string[]): Promise<void> {
  const { savedPlans } = await splitSavedPlans(cwd, args);
  const [first] = savedPlans;
  if (first === undefined) return;
  const shown = JSON.stringify(first);
  throw new UsageError(
    `${shown} is a saved plan, not a desired-state file: print it with guidectl show ${shellWord(first)}, or apply it with guidectl apply ${shellWord(first)}`,
  );
}

/** Reads and checks a saved plan; every problem is a `UsageError` naming the file. */
export async function readSavedPlan(file: string, shown: string): Promise<SavedPlan> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = errorCode(error) ?? '';
    throw new UsageError(
      code === 'ENOENT'
        ? `${shown}: no such file (make one with: guidectl plan PATH… --out ${shellWord(shown)})`
        : `${shown}: cannot read it: ${errorMessage(error)}`,
    );
  }
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    throw new UsageError(
      `${shown} is not valid JSON (${errorMessage(error)}); it is not a saved plan, or it was damaged: make the plan again with guidectl plan --out`,
    );
  }
  return decodeSavedPlan(value, shown);
}

/**
 * `show PLAN.json`: the saved plan `file` names (relative to `cwd`), after the checks `apply` makes
 * of the file itself (kind, version, plan id) and, with `environment` (`--env`), of the
 * environment it was made for. A desired-state file is refused with the command that plans it.
 */
export async function readSavedPlanToShow(
  cwd: string,
  file: string,
  environment?: string,
): Promise<SavedPlan> {
  const absolute = nodePath.resolve(cwd, file);
  if (!(await isSavedPlanFile(absolute))) {
    throw new UsageError(
      `${JSON.stringify(file)} is not a saved plan (a desired-state file? see its plan with guidectl plan ${shellWord(file)}); make a saved plan with guidectl plan PATH… --out FILE.json`,
    );
  }
  const saved = await readSavedPlan(absolute, file);
  checkSavedEnvironment(saved, file, environment);
  return saved;
}

/** A path as a saved plan records it: relative to the working directory when inside it, with `/`. */
export function recordedPath(cwd: string, path: string): string {
  const absolute = nodePath.resolve(cwd, path);
  if (absolute === nodePath.resolve(cwd)) return '.';
  return pathInside(cwd, absolute)?.split(nodePath.sep).join('/') ?? absolute;
}

/**
 * A saved plan to apply, and the files to check it against: those given after the plan, else
 * those the plan was made from (recorded relative to `cwd`) when they are all there; when they are
 * not, only the account is checked, and `notice` says so — but a plan of an environment needs
 * them (they name its target): a UsageError with the command to run. A plan made for another
 * environment than `environment` (`--env`) is refused first. Undefined when the files have errors
 * (`load` has reported them). The files are read once.
 */
export async function savedPlanSource(
  file: string,
  paths: readonly string[],
  cwd: string,
  load: FilesLoad,
  notice: (line: string) => void,
  environment?: string,
): Promise<ApplySource | undefined> {
  const saved = await readSavedPlan(nodePath.resolve(cwd, file), file);
  checkSavedEnvironment(saved, file, environment, '; nothing was changed');
  let files: LoadedFiles | undefined;
  let checked: readonly string[] = paths;
  const made = saved.paths.join(', ');
  if (paths.length > 0) {
    files = await load.report(await load.read(paths, saved.environment?.name));
    if (files === undefined) return undefined;
  } else if (saved.paths.length > 0 && (await allExist(cwd, saved.paths))) {
    checked = saved.paths;
    files = await loadPlanFiles(saved, file, cwd, load);
    if (files === undefined) {
      notice(
        `the files ${file} was made from (${made}) have errors now (its paths are relative to the folder plan ran in: if it was made in another folder, run apply there, or give the files after the plan)`,
      );
      return undefined;
    }
  } else if (saved.environment !== undefined) {
    throw new UsageError(await missingEnvironmentFiles(saved, file, cwd));
  } else {
    // Not here: when they lie beside the plan, it was made in that folder (told with the fix).
    await refuseMadeElsewhere(saved, file, cwd, undefined, load.read);
    notice(
      `note: the files ${file} was made from (${made}) are not here; only the account is checked against the plan`,
    );
  }
  return { kind: 'saved', saved, file, files, paths: checked };
}

/**
 * What `apply` makes its calls from, given its paths split by content: the files, or the one saved
 * plan among them with the files to check it against (see {@link savedPlanSource}); more than one
 * saved plan is a usage error. Undefined when the files have errors (`load` has reported them).
 */
export async function applySourceOf(
  { savedPlans, paths }: SplitPaths,
  cwd: string,
  load: FilesLoad,
  notice: (line: string) => void,
  environment?: string,
): Promise<ApplySource | undefined> {
  if (savedPlans.length > 1) {
    throw new UsageError(`give one saved plan, not ${savedPlans.length} (${savedPlans.join(', ')})`);
  }
  const [savedPlan] = savedPlans;
  if (savedPlan !== undefined) return savedPlanSource(savedPlan, paths, cwd, load, notice, environment);
  const files = await load.report(await load.read(paths, environment));
  return files && { kind: 'files', files };
}

/**
 * The files a saved plan was made from, at the paths it recorded, read once: when they are not its
 * files, whether it was made in another folder is told first (see {@link refuseMadeElsewhere}),
 * then what the read found is reported. Undefined when the files have errors.
 */
async function loadPlanFiles(
  saved: SavedPlan,
  file: string,
  cwd: string,
  load: FilesLoad,
): Promise<LoadedFiles | undefined> {
  const here = await readPlanFiles(load.read, saved.paths, saved.environment?.name);
  await refuseMadeElsewhere(saved, file, cwd, here, load.read);
  if (here instanceof UsageError) throw here;
  return load.report(here);
}

/**
 * Why a saved plan of an environment cannot be applied without its files, and the command that
 * can: the files name the environment's target (its base URL and credentials' variables). The
 * paths it recorded are relative to the folder `plan` ran in; when they lie next to the plan
 * file (as when it was saved there), the command names them from here.
 */
async function missingEnvironmentFiles(saved: SavedPlan, file: string, cwd: string): Promise<string> {
  const name = saved.environment?.name ?? '';
  const made = saved.paths.join(', ');
  const folder = nodePath.dirname(nodePath.resolve(cwd, file));
  const beside = saved.paths.map((p) => nodePath.resolve(folder, p));
  const found = saved.paths.length > 0 && (await allExist(cwd, beside));
  const paths = found ? beside.map((p) => shellWord(nodePath.relative(cwd, p) || '.')).join(' ') : 'PATH…';
  const command = `guidectl apply ${shellWord(file)} ${paths}`;
  const where = found
    ? ''
    : ` (the paths the plan recorded are relative to the folder plan ran in: run apply there, or give them from here)`;
  const are = saved.paths.length === 1 ? 'is' : 'are';
  return `${file} was made for environment ${name} from ${made}, which ${are} not here: the files name the environment's target (its base_url and credentials), so nothing was read or changed. Give them after the plan: ${command}${where}`;
}

function allExist(cwd: string, paths: readonly string[]): Promise<boolean> {
  return allPathsExist(paths.map((p) => nodePath.resolve(cwd, p)));
}

/**
 * Refuses a saved plan made for another environment than `environment` (`--env`, or the files'
 * environment now), naming both; `then` ends the message (what was not done). Apply's check (a
 * staging plan is never applied to production) and `show --env NAME`'s.
 */
export function checkSavedEnvironment(
  saved: SavedPlan,
  file: string,
  environment: string | undefined,
  then = '',
): void {
  const made = saved.environment;
  if (environment === undefined) return;
  if (made === undefined) {
    throw new UsageError(
      `${file} was made from files without environments, not for environment ${environment}${then}`,
    );
  }
  if (environment !== made.name) {
    const guess = suggest(environment, [made.name]) === undefined ? '' : ` (did you mean "${made.name}"?)`;
    throw new UsageError(`${file} was made for environment ${made.name}, not ${environment}${guess}${then}`);
  }
}

/**
 * Refuses a saved plan made against another account than the target resolved now (see
 * `compareTargets`: the account, not the words that describe it), even when the two accounts
 * look alike, whether or not the files have environments. When an access token on either side
 * leaves the account unconfirmed, the plan is refused unless `pinned` (`--plan-id`) was given:
 * the user then says which reviewed plan this is, and `applyRun` refuses any other id. Its
 * environment is not checked here: `savedPlanSource` refused a plan of another environment when
 * it read it, and the files it loaded are the plan's environment's.
 */
export function checkSavedTarget(saved: SavedPlan, file: string, target: TargetNow, pinned?: string): void {
  const made = saved.target;
  const difference = compareTargets(made.identity, target.identity);
  if (difference === undefined) return;
  const [then, now] = [made.identity, target.identity];
  const env = saved.environment === undefined ? '' : ` for environment ${saved.environment.name}`;
  if (then.kind === 'embedded' && now.kind === 'embedded') {
    // Both described relative to the folder each ran in, they can read alike: give both in full.
    const fix =
      saved.environment === undefined
        ? `apply it to that database (--local-db ${shellWord(then.database)}), or plan again for this one`
        : 'run apply in the folder where the plan was made';
    throw new UsageError(
      `${file} was made${env} against the local database ${then.database}; here the target is the local database ${now.database}. Nothing was changed: ${fix}`,
    );
  }
  if (difference === 'unconfirmed') {
    if (pinned !== undefined) return;
    const token =
      then.kind === 'remote' && then.appidDigest === undefined
        ? now.kind === 'remote' && now.appidDigest === undefined
          ? 'Both use an access token'
          : 'The plan was made with an access token'
        : 'The target now uses an access token';
    throw new UsageError(
      `${file} was made${env} against ${made.description}; the target now is ${target.description}. ${token}, which does not say which account it belongs to (one base URL serves many accounts), so guidectl cannot confirm that this is the account the plan was made for. Nothing was changed: if it is, give the id of the plan you reviewed (the "Plan id:" that plan printed): guidectl apply ${shellWord(file)} --plan-id ID; or use the account's appid and secret both to plan and to apply; or plan again for this target`,
    );
  }
  const why = difference === 'account' ? ', with the credentials of another account (another appid). ' : '. ';
  throw new UsageError(
    `${file} was made${env} against ${made.description}; the target now is ${target.description}${why}Nothing was changed: plan again for this target`,
  );
}

/**
 * Checks the target of an apply once it is resolved, before it is opened: a saved plan is refused
 * against another account, or one that cannot be confirmed without `pinned` (`--plan-id`; see
 * {@link checkSavedTarget}), so that a refused plan makes no local database and takes no lock;
 * files are planned for whatever target they name.
 */
export function checkSourceTarget(source: ApplySource, target: TargetNow, pinned?: string): void {
  if (source.kind === 'saved') checkSavedTarget(source.saved, source.file, target, pinned);
}
