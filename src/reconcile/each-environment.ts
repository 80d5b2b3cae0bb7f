import { type Diagnostic, hasErrors } from '../core/diagnostics.js';
import type { EnvironmentApply, EnvironmentPlan } from '../core/environment-plan.js';
import { errorMessage, GuidectlError } from '../core/errors.js';
import { mapLimited } from '../core/map-limited.js';
import { ifDefined } from '../core/records.js';
import { FILES_INTERRUPTED, throwIfStopped } from '../core/stop.js';
import { type LoadedFiles, readAllEnvironments } from './files.js';
import type { PlanRun } from './plan-run.js';

/** How many environments `plan --all-envs` reads at once unless told (`--env-parallelism`). */
export const DEFAULT_ENV_PARALLELISM = 4;

/** What `plan --all-envs` found: the files invalid (nothing read), or each environment's part. */
export type AllEnvsPlan =
  | {
      readonly status: 'invalid';
      readonly diagnostics: readonly Diagnostic[];
      readonly sources: ReadonlyMap<string, string>;
    }
  | {
      readonly status: 'planned';
      readonly environments: readonly EnvironmentPlan[];
      /** Warnings of the files (errors make the whole run `invalid`). */
      readonly diagnostics: readonly Diagnostic[];
      readonly sources: ReadonlyMap<string, string>;
    };

/**
 * Plans one environment against its target (opened and closed by the caller, who may add
 * progress): where the calls went, and the plan run. A throw is that environment's failure;
 * `resolved` is told the target in words once it is resolved, so that a failure after that
 * (the target down, its reads failing) still names it.
 */
export type PlanEnvironment = (
  files: LoadedFiles,
  resolved: (target: string) => void,
) => Promise<{ readonly target: string; readonly run: PlanRun }>;

/**
 * `plan --all-envs` as a use case: the files are read once ({@link readAllEnvironments}: files
 * without environments are a UsageError) and checked in every environment; then each environment
 * is planned by `planEnvironment`, at most `parallelism` at once, and one that fails does not stop
 * or hide the others.
 */
export async function planAllEnvironments(
  paths: readonly string[],
  cwd: string,
  planEnvironment: PlanEnvironment,
  parallelism: number = DEFAULT_ENV_PARALLELISM,
  /** The stop signal: aborted while the files are read and checked, no environment is planned. */
  signal?: AbortSignal,
): Promise<AllEnvsPlan> {
  const { config } = await readAllEnvironments(paths, cwd, 'plan');
  const checked = config.check();
  await throwIfStopped(signal, FILES_INTERRUPTED);
  const sources = new Map(checked.files.map((f) => [f.file, f.text]));
  const { diagnostics } = checked;
  if (hasErrors(diagnostics)) return { status: 'invalid', diagnostics, sources };
  const declared = checked.environments ?? [];
  const environments = await mapLimited(declared, parallelism, async (environment) => {
    const { name } = environment;
    const state = checked.states?.get(name);
    if (state === undefined)
      return { name, outcome: { kind: 'failed', message: 'no desired state' } } as const;
    let resolved: string | undefined;
    try {
      const { target, run } = await planEnvironment({ state, sources, environment }, (target) => {
        resolved = target;
      });
      return { name, target, outcome: outcomeOf(run) };
    } catch (error) {
      // A known failure is the environment's; a bug is everyone's, with its stack trace.
      if (!(error instanceof GuidectlError)) throw error;
      const target = resolved === undefined ? {} : { target: resolved };
      return { name, ...target, outcome: { kind: 'failed', message: errorMessage(error) } } as const;
    }
  });
  return { status: 'planned', environments, diagnostics, sources };
}

function outcomeOf(run: PlanRun): EnvironmentPlan['outcome'] {
  if (run.status === 'invalid') return { kind: 'invalid', diagnostics: run.diagnostics };
  const { plan, planId, guards, diagnostics, quota } = run;
  return { kind: 'planned', plan, planId, guards, diagnostics, ...ifDefined('quota', quota) };
}

export interface ApplyEnvironmentsOptions {
  /** Go on with the next environment after one failed. */
  readonly continueOnError: boolean;
  /** The stop signal (Ctrl-C, SIGTERM): once aborted, no environment starts, whatever `continueOnError` says. */
  readonly signal?: AbortSignal;
}

/**
 * `apply --all-envs` as a use case: each environment in the order declared, one after another
 * (`applyOne` tells whether it succeeded, or `unchanged` when its plan had no changes; a
 * `GuidectlError` thrown is a failure, any other throw a
 * bug that ends the run), stopping at the first failure unless `continueOnError`, and always at
 * the stop signal: the rest are `skipped`.
 */
export async function applyEnvironmentsInOrder(
  names: readonly string[],
  applyOne: (name: string) => Promise<boolean | 'unchanged'>,
  options: ApplyEnvironmentsOptions,
): Promise<EnvironmentApply[]> {
  const { continueOnError, signal } = options;
  // A function: the signal changes while an environment runs, and TypeScript would not see it.
  const stopped = (): boolean => signal?.aborted === true;
  const out: EnvironmentApply[] = [];
  let failed = false;
  for (const name of names) {
    if (stopped()) {
      out.push({ name, status: 'skipped', message: 'not started: interrupted' });
      continue;
    }
    if (failed && !continueOnError) {
      out.push({ name, status: 'skipped' });
      continue;
    }
    const result = await applyOneEnvironment(name, applyOne);
    // A failure once the stop signal came is the interruption's doing, not the environment's.
    const cut = result.status === 'failed' && stopped();
    out.push(cut ? { ...result, status: 'interrupted' } : result);
    if (result.status === 'failed') failed = true;
  }
  return out;
}

async function applyOneEnvironment(
  name: string,
  applyOne: (name: string) => Promise<boolean | 'unchanged'>,
): Promise<EnvironmentApply> {
  try {
    const ended = await applyOne(name);
    return { name, status: ended === 'unchanged' ? 'unchanged' : ended ? 'applied' : 'failed' };
  } catch (error) {
    if (!(error instanceof GuidectlError)) throw error;
    return { name, status: 'failed', message: errorMessage(error) };
  }
}
