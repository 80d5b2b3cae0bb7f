import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { type CiMachine, checkout, runProcess } from './ci-runner.js';

/**
 * Runs a GitLab CI file's jobs on this machine, as a runner would: `rules:` decide which jobs are
 * in the pipeline (the `if:` forms the examples use — `$A == "x"`, `$A == $B`, `&&` — and
 * `exists:` globs; anything else throws), jobs in the order of their stages and `needs`, each in a
 * checkout of its own with the artifacts of the jobs before it, the default before_script and the
 * script under `bash -c 'set -eo pipefail; …'`. Protected variables reach only pipelines of
 * protected refs. A `trigger:` job runs the child pipeline its `include: artifact` names
 * (`strategy: depend`: it fails when the child does).
 */

type Result = 'success' | 'failed' | 'skipped';

interface GitLabJob {
  stage?: string;
  needs?: string[];
  rules?: Array<{ if?: string; exists?: string[] }>;
  variables?: Record<string, string>;
  before_script?: unknown[];
  script?: unknown[];
  environment?: string;
  resource_group?: string;
  artifacts?: { paths?: string[]; when?: string };
  trigger?: { include: Array<{ artifact: string; job: string }>; strategy?: string };
}

export type Pipeline = Record<string, unknown>;

export interface GitLabWorld {
  machine: CiMachine;
  repo: string;
  /** The project's CI/CD variables; `protected` ones reach only pipelines of protected refs. */
  variables: Record<string, { value: string; protected: boolean }>;
  /** More of the runner's environment. */
  env?: Record<string, string>;
}

export interface GitLabEvent {
  source: 'merge_request_event' | 'push' | 'schedule';
  branch: string;
  protectedRef: boolean;
}

export interface GitLabJobRun {
  name: string;
  /** Where it ran: "" for the parent pipeline, the trigger job's name for its child. */
  pipeline: string;
  environment: string | undefined;
  resourceGroup: string | undefined;
  result: Result;
  log: string;
}

export interface GitLabRun {
  jobs: GitLabJobRun[];
  job(name: string): GitLabJobRun;
}

export const readPipeline = (path: string): Pipeline => parse(readFileSync(path, 'utf8')) as Pipeline;

const KEYWORDS = new Set(['stages', 'default', 'variables', 'include', 'workflow', 'image', 'cache']);

function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
}

function glob(pattern: string): RegExp {
  const source = pattern
    .split('**/')
    .map((part) =>
      part
        .split('*')
        .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('(?:.*/)?');
  return new RegExp(`^${source}$`);
}

/** One `if:` of the forms the examples use. */
function ruleIf(expression: string, vars: Record<string, string>): boolean {
  return expression.split('&&').every((clause) => {
    const m = /^\s*\$(\w+)\s*(==|!=)\s*(?:"([^"]*)"|\$(\w+))\s*$/.exec(clause);
    if (m === null) throw new Error(`rules: if: not simulated: ${clause}`);
    const left = vars[m[1] ?? ''];
    const right = m[3] ?? vars[m[4] ?? ''];
    return m[2] === '==' ? left === right : left !== right;
  });
}

export async function runPipeline(
  pipeline: Pipeline,
  event: GitLabEvent,
  world: GitLabWorld,
): Promise<GitLabRun> {
  const runs: GitLabJobRun[] = [];
  await runOne(pipeline, event, world, '', world.machine.folder('artifacts'), runs);
  return {
    jobs: runs,
    job(name) {
      const found = runs.filter((r) => r.name === name);
      if (found.length !== 1)
        throw new Error(`${found.length} jobs named "${name}": ${runs.map((r) => r.name).join(', ')}`);
      return found[0] as GitLabJobRun;
    },
  };
}

async function runOne(
  pipeline: Pipeline,
  event: GitLabEvent,
  world: GitLabWorld,
  name: string,
  artifacts: string,
  runs: GitLabJobRun[],
): Promise<Result> {
  const stages = (pipeline['stages'] as string[] | undefined) ?? ['build', 'test', 'deploy'];
  const defaults = (pipeline['default'] as { before_script?: unknown[] } | undefined) ?? {};
  const predefined: Record<string, string> = {
    CI: 'true',
    GITLAB_CI: 'true',
    CI_PIPELINE_SOURCE: event.source,
    CI_DEFAULT_BRANCH: 'main',
    CI_COMMIT_REF_NAME: event.branch,
    CI_COMMIT_REF_PROTECTED: String(event.protectedRef),
    ...(event.source === 'merge_request_event' ? {} : { CI_COMMIT_BRANCH: event.branch }),
  };
  const project = Object.fromEntries(
    Object.entries(world.variables)
      .filter(([, v]) => event.protectedRef || !v.protected)
      .map(([k, v]) => [k, v.value]),
  );
  const files = filesOf(world.repo);
  const jobs = Object.entries(pipeline).filter(
    ([key, value]) => !KEYWORDS.has(key) && !key.startsWith('.') && typeof value === 'object',
  ) as Array<[string, GitLabJob]>;
  const included = jobs.filter(([, job]) =>
    (job.rules ?? [{}]).some(
      (rule) =>
        (rule.if === undefined || ruleIf(rule.if, { ...predefined, ...project })) &&
        (rule.exists === undefined || rule.exists.some((p) => files.some((f) => glob(p).test(f)))),
    ),
  );
  const results: Record<string, Result> = {};
  const stageOf = (job: GitLabJob): number => stages.indexOf(job.stage ?? 'test');
  const ordered = [...included].sort(([, a], [, b]) => stageOf(a) - stageOf(b));
  let overall: Result = 'success';
  for (const [jobName, job] of ordered) {
    const before = job.needs ?? included.filter(([, j]) => stageOf(j) < stageOf(job)).map(([n]) => n);
    const record = (result: Result, log: string): void => {
      results[jobName] = result;
      if (result === 'failed') overall = 'failed';
      runs.push({
        name: jobName,
        pipeline: name,
        environment: job.environment,
        resourceGroup: job.resource_group,
        result,
        log,
      });
    };
    if (before.some((n) => results[n] !== 'success')) {
      record('skipped', '');
      continue;
    }
    const workspace = checkout(world.machine, world.repo, `${name}-${jobName}`);
    for (const n of before)
      if (existsSync(join(artifacts, n))) cpSync(join(artifacts, n), workspace, { recursive: true });
    if (job.trigger !== undefined) {
      const [include] = job.trigger.include;
      if (include === undefined) throw new Error('trigger without include');
      const child = parse(readFileSync(join(artifacts, include.job, include.artifact), 'utf8')) as Pipeline;
      const result = await runOne(
        child,
        event,
        world,
        jobName,
        world.machine.folder('child-artifacts'),
        runs,
      );
      record(job.trigger.strategy === 'depend' ? result : 'success', '');
      continue;
    }
    const lines = [...(job.before_script ?? defaults.before_script ?? []), ...(job.script ?? [])].flat(10);
    const env: Record<string, string> = {
      PATH: world.machine.path,
      HOME: workspace,
      ...world.env,
      ...predefined,
      ...project,
      ...job.variables,
    };
    const ran = await runProcess(['bash', '-c', `set -eo pipefail\n${lines.join('\n')}`], workspace, env);
    const result: Result = ran.code === 0 ? 'success' : 'failed';
    if (job.artifacts !== undefined && (result === 'success' || job.artifacts.when === 'always'))
      for (const path of job.artifacts.paths ?? [])
        if (existsSync(join(workspace, path))) cpSync(join(workspace, path), join(artifacts, jobName, path));
    record(result, ran.log);
  }
  return overall;
}
