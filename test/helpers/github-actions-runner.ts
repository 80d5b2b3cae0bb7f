import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { data, Evaluator, Lexer, Parser } from '@actions/expressions';
import type { FunctionDefinition } from '@actions/expressions/funcs/info';
import { truthy } from '@actions/expressions/result';
import { parse } from 'yaml';
import { type CiMachine, runProcess } from './ci-runner.js';

/**
 * Runs a GitHub Actions workflow file's jobs on this machine, as a runner would: jobs in the order
 * of their `needs`, each matrix leg in a workspace of its own, every `${{ … }}` and `if:`
 * evaluated by `@actions/expressions` (GitHub's own evaluator) with the status functions, and each
 * `run:` step in bash as GitHub runs it (`bash -e`, or `bash --noprofile --norc -eo pipefail` for
 * `shell: bash`) with GITHUB_OUTPUT and GITHUB_STEP_SUMMARY. Steps that `uses:` an action are
 * simulated: checkout copies the repository, setup-node does nothing (the shims are on PATH),
 * artifacts are folders, github-script runs its script in node against a pull request whose
 * comments are kept here. Any other action, or an expression that cannot be evaluated, throws.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Result = 'success' | 'failure' | 'skipped';

interface Step {
  id?: string;
  name?: string;
  if?: string | boolean;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, string | number | boolean>;
}

interface Job {
  name?: string;
  if?: string;
  needs?: string | string[];
  environment?: string;
  env?: Record<string, string>;
  outputs?: Record<string, string>;
  strategy?: { matrix?: { include?: string } };
  steps: Step[];
}

export interface Workflow {
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}

export interface Comment {
  id: number;
  user: { type: 'Bot' | 'User' };
  body: string;
}

export interface GitHubWorld {
  machine: CiMachine;
  /** The repository as the event's commit has it. */
  repo: string;
  secrets: Record<string, string>;
  /** More of the runner's environment (beyond PATH, HOME, CI=true and GITHUB_*). */
  env?: Record<string, string>;
  /** The pull request's comments, which github-script reads and writes. */
  comments: Comment[];
}

export interface GitHubEvent {
  name: 'pull_request' | 'push' | 'schedule' | 'workflow_dispatch';
  ref: string;
  inputs?: Record<string, string>;
  pullRequest?: number;
}

export interface LegRun {
  job: string;
  /** The job's `name:` as GitHub shows it (the matrix put in). */
  name: string;
  matrix: Json;
  /** The GitHub environment the leg runs in (its protection rules gate it), if any. */
  environment: string | undefined;
  result: Result;
  log: string;
  summary: string;
  outputs: Record<string, string>;
}

export interface WorkflowRun {
  legs: LegRun[];
  /** The job's result: failure if any leg failed, skipped if it did not run. */
  result(job: string): Result;
  /** The one leg named `name` (as GitHub shows it). */
  leg(name: string): LegRun;
}

export const readWorkflow = (path: string): Workflow => parse(readFileSync(path, 'utf8')) as Workflow;

const CONTEXTS = [
  'github',
  'inputs',
  'secrets',
  'matrix',
  'needs',
  'steps',
  'env',
  'vars',
  'runner',
  'job',
  'strategy',
];
const STATUS = ['always', 'success', 'failure', 'cancelled'];

interface Status {
  failed: boolean;
  cwd: string | undefined;
}

function functions(status: Status): Map<string, FunctionDefinition> {
  const fn = (
    name: string,
    min: number,
    max: number,
    call: FunctionDefinition['call'],
  ): [string, FunctionDefinition] => [name.toLowerCase(), { name, minArgs: min, maxArgs: max, call }];
  return new Map([
    fn('always', 0, 0, () => new data.BooleanData(true)),
    fn('success', 0, 0, () => new data.BooleanData(!status.failed)),
    fn('failure', 0, 0, () => new data.BooleanData(status.failed)),
    fn('cancelled', 0, 0, () => new data.BooleanData(false)),
    fn('hashFiles', 1, 255, (...patterns) => {
      // Plain file names only: what the examples hash.
      const hash = createHash('sha256');
      let any = false;
      for (const p of patterns) {
        const file = join(status.cwd ?? '/nonexistent', p.coerceString());
        if (existsSync(file)) {
          any = true;
          hash.update(readFileSync(file));
        }
      }
      return new data.StringData(any ? hash.digest('hex') : '');
    }),
  ]);
}

const toData = (value: Json): data.ExpressionData =>
  JSON.parse(JSON.stringify(value), data.reviver) as data.ExpressionData;
const fromData = (value: data.ExpressionData): Json =>
  JSON.parse(JSON.stringify(value, data.replacer)) as Json;

function evaluate(expression: string, contexts: Record<string, Json>, status: Status): data.ExpressionData {
  const lexed = new Lexer(expression).lex();
  const tree = new Parser(lexed.tokens, CONTEXTS, [...functions(status).values()]).parse();
  const context = new data.Dictionary(
    ...Object.entries(contexts).map(([key, value]) => ({ key, value: toData(value) })),
  );
  return new Evaluator(tree, context, functions(status)).evaluate();
}

const WHOLE = /^\s*\$\{\{(.*)\}\}\s*$/s;

/** A value with `${{ … }}` in it: the text with each put in, or (a whole expression) the value. */
function interpolate(value: string, contexts: Record<string, Json>, status: Status): Json {
  const whole = WHOLE.exec(value);
  if (whole !== null && !whole[1]?.includes('${{'))
    return fromData(evaluate(whole[1] ?? '', contexts, status));
  return value.replace(/\$\{\{(.*?)\}\}/g, (_, e: string) => evaluate(e, contexts, status).coerceString());
}

const text = (value: string | undefined, contexts: Record<string, Json>, status: Status): string => {
  if (value === undefined) return '';
  const v = interpolate(value, contexts, status);
  // A value put into text: null is '', as GitHub puts in an unset secret.
  if (v === null) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
};

/** An `if:`; without a status function it means `success() && (…)`, as on GitHub. */
function condition(
  value: string | boolean | undefined,
  contexts: Record<string, Json>,
  status: Status,
): boolean {
  const raw = value === undefined ? 'success()' : String(value);
  const expression = WHOLE.exec(raw)?.[1] ?? raw;
  const hasStatus = STATUS.some((s) => new RegExp(`\\b${s}\\(`).test(expression));
  return truthy(evaluate(hasStatus ? expression : `success() && (${expression})`, contexts, status));
}

function order(jobs: Record<string, Job>): string[] {
  const done: string[] = [];
  const visit = (id: string): void => {
    if (done.includes(id)) return;
    const job = jobs[id];
    if (job === undefined) throw new Error(`needs names no job: ${id}`);
    for (const need of needsOf(job)) visit(need);
    done.push(id);
  };
  for (const id of Object.keys(jobs)) visit(id);
  return done;
}

const needsOf = (job: Job): string[] => (job.needs === undefined ? [] : [job.needs].flat());

function readOutputs(file: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  if (!existsSync(file)) return outputs;
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc !== null) {
      const end = lines.indexOf(heredoc[2] ?? '', i + 1);
      outputs[heredoc[1] ?? ''] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('='))
      outputs[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return outputs;
}

export async function runWorkflow(
  workflow: Workflow,
  event: GitHubEvent,
  world: GitHubWorld,
): Promise<WorkflowRun> {
  const artifacts = world.machine.folder('artifacts');
  const github: Json = {
    event_name: event.name,
    ref: event.ref,
    event: event.pullRequest === undefined ? {} : { pull_request: { number: event.pullRequest } },
  };
  const inputs: Json = event.inputs ?? {};
  const results: Record<string, { result: Result; outputs: Record<string, string> }> = {};
  const legs: LegRun[] = [];
  for (const id of order(workflow.jobs)) {
    const job = workflow.jobs[id];
    if (job === undefined) continue;
    const needs: Json = Object.fromEntries(
      needsOf(job).map((n) => [
        n,
        { result: results[n]?.result ?? 'skipped', outputs: results[n]?.outputs ?? {} },
      ]),
    );
    const base = { github, inputs, needs, secrets: world.secrets, vars: {}, env: workflow.env ?? {} };
    const needsFailed = needsOf(job).some((n) => results[n]?.result !== 'success');
    if (!condition(job.if, base, { failed: needsFailed, cwd: undefined })) {
      results[id] = { result: 'skipped', outputs: {} };
      continue;
    }
    const include = job.strategy?.matrix?.include;
    const matrices: Json[] =
      include === undefined ? [{}] : [interpolate(include, base, { failed: false, cwd: undefined })].flat();
    const runs = await Promise.all(
      matrices.map((matrix) => runLeg(id, job, { ...base, matrix }, event, world, artifacts)),
    );
    legs.push(...runs);
    results[id] = {
      result: runs.some((r) => r.result === 'failure') ? 'failure' : 'success',
      outputs: runs.length === 1 ? (runs[0]?.outputs ?? {}) : {},
    };
  }
  return {
    legs,
    result: (job) => results[job]?.result ?? 'skipped',
    leg(name) {
      const found = legs.filter((l) => l.name === name);
      if (found.length !== 1)
        throw new Error(`${found.length} legs named "${name}": ${legs.map((l) => l.name).join(', ')}`);
      return found[0] as LegRun;
    },
  };
}

async function runLeg(
  id: string,
  job: Job,
  contexts: Record<string, Json>,
  event: GitHubEvent,
  world: GitHubWorld,
  artifacts: string,
): Promise<LegRun> {
  const noStatus: Status = { failed: false, cwd: undefined };
  const name = job.name === undefined ? id : text(job.name, contexts, noStatus);
  const workspace = world.machine.folder(`${id}-${name}`);
  const runnerTemp = world.machine.folder(`${id}-${name}-temp`);
  const summaryFile = join(runnerTemp, 'summary.md');
  const environment = job.environment === undefined ? undefined : text(job.environment, contexts, noStatus);
  const steps: Record<string, Json> = {};
  const status: Status = { failed: false, cwd: workspace };
  let log = '';
  let index = 0;
  for (const step of job.steps) {
    index += 1;
    const stepContexts = { ...contexts, steps, job: { status: status.failed ? 'failure' : 'success' } };
    const stepEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries({
      ...(contexts['env'] as Record<string, string>),
      ...job.env,
      ...step.env,
    }))
      stepEnv[k] = text(v, stepContexts, status);
    const label =
      step.name === undefined ? (step.uses ?? step.run ?? '') : text(step.name, stepContexts, status);
    if (!condition(step.if, stepContexts, status)) {
      log += `\n--- ${label}: skipped\n`;
      if (step.id !== undefined) steps[step.id] = { outcome: 'skipped', conclusion: 'skipped', outputs: {} };
      continue;
    }
    const outputFile = join(runnerTemp, `output-${index}`);
    writeFileSync(outputFile, '');
    const env: Record<string, string> = {
      PATH: world.machine.path,
      HOME: runnerTemp,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME: event.name,
      GITHUB_REF: event.ref,
      GITHUB_WORKSPACE: workspace,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      RUNNER_TEMP: runnerTemp,
      ...world.env,
      ...stepEnv,
    };
    const ran =
      step.run !== undefined
        ? await runStep(text(step.run, stepContexts, status), step.shell, workspace, runnerTemp, index, env)
        : await useAction(step, stepContexts, status, { workspace, artifacts, world, env, event });
    log += `\n--- ${label}: exit ${ran.code}\n${ran.log}`;
    const outcome = ran.code === 0 ? 'success' : 'failure';
    if (step.id !== undefined)
      steps[step.id] = { outcome, conclusion: outcome, outputs: readOutputs(outputFile) };
    if (ran.code !== 0) status.failed = true;
  }
  const result: Result = status.failed ? 'failure' : 'success';
  const outputs: Record<string, string> = {};
  for (const [k, v] of Object.entries(job.outputs ?? {}))
    outputs[k] = text(v, { ...contexts, steps }, status);
  const summary = existsSync(summaryFile) ? readFileSync(summaryFile, 'utf8') : '';
  return { job: id, name, matrix: contexts['matrix'] ?? {}, environment, result, log, summary, outputs };
}

function runStep(
  script: string,
  shell: string | undefined,
  workspace: string,
  temp: string,
  index: number,
  env: Record<string, string>,
): Promise<{ code: number; log: string }> {
  const file = join(temp, `step-${index}.sh`);
  writeFileSync(file, script);
  // GitHub's bash: `bash -e {0}` by default, `bash --noprofile --norc -eo pipefail {0}` for shell: bash.
  if (shell === undefined) return runProcess(['bash', '-e', file], workspace, env);
  if (shell === 'bash')
    return runProcess(['bash', '--noprofile', '--norc', '-eo', 'pipefail', file], workspace, env);
  throw new Error(`shell ${shell}: not simulated`);
}

const GITHUB_SCRIPT = `
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
const [scriptFile, stateFile, issue] = process.argv.slice(2);
const state = JSON.parse(readFileSync(stateFile, 'utf8'));
const page = async (fn, args) => (await fn(args)).data;
const issues = {
  listComments: async () => ({ data: state.comments }),
  createComment: async ({ body }) => { state.comments.push({ id: state.comments.length + 100, user: { type: 'Bot' }, body }); },
  updateComment: async ({ comment_id, body }) => {
    const c = state.comments.find((c) => c.id === comment_id);
    if (c === undefined) throw new Error('no comment ' + comment_id);
    c.body = body;
  },
};
const github = { paginate: page, rest: { issues } };
const context = { repo: { owner: 'brand', repo: 'guides' }, issue: { number: Number(issue) } };
const core = { info: console.log, warning: console.warn, error: console.error, setFailed: (m) => { console.error(m); process.exitCode = 1; } };
const AsyncFunction = (async () => {}).constructor;
await new AsyncFunction('require', 'github', 'context', 'core', readFileSync(scriptFile, 'utf8'))(
  createRequire(process.cwd() + '/'), github, context, core);
writeFileSync(stateFile, JSON.stringify(state));
`;

async function useAction(
  step: Step,
  contexts: Record<string, Json>,
  status: Status,
  at: {
    workspace: string;
    artifacts: string;
    world: GitHubWorld;
    env: Record<string, string>;
    event: GitHubEvent;
  },
): Promise<{ code: number; log: string }> {
  const action = (step.uses ?? '').replace(/@.*$/, '');
  const input = (key: string): string | undefined => {
    const v = step.with?.[key];
    return v === undefined ? undefined : text(String(v), contexts, status);
  };
  switch (action) {
    case 'actions/checkout':
      cpSync(at.world.repo, at.workspace, { recursive: true });
      return { code: 0, log: 'checked out (test: a copy of the repository)\n' };
    case 'actions/setup-node':
      return { code: 0, log: 'node (test: this node, and the shims on PATH)\n' };
    case 'actions/upload-artifact': {
      const name = input('name') ?? 'artifact';
      const path = input('path') ?? '';
      if (!existsSync(join(at.workspace, path)))
        return {
          code: 0,
          log: `warning: no files were found with the provided path: ${path}. No artifacts will be uploaded.\n`,
        };
      mkdirSync(join(at.artifacts, name), { recursive: true });
      cpSync(join(at.workspace, path), join(at.artifacts, name, path));
      return { code: 0, log: `uploaded ${path} as ${name}\n` };
    }
    case 'actions/download-artifact': {
      const name = input('name');
      const pattern = input('pattern');
      const all = readdirSync(at.artifacts);
      const chosen =
        name !== undefined
          ? all.filter((a) => a === name)
          : all.filter((a) =>
              new RegExp(`^${(pattern ?? '*').split('*').map(escapeRegExp).join('.*')}$`).test(a),
            );
      if (name !== undefined && chosen.length === 0)
        return {
          code: 1,
          log: `Error: Unable to download artifact(s): Artifact not found for name: ${name}\n`,
        };
      // merge-multiple (or one by name): the files straight into the workspace.
      for (const a of chosen) cpSync(join(at.artifacts, a), at.workspace, { recursive: true });
      return { code: 0, log: `downloaded ${chosen.join(', ') || 'nothing'}\n` };
    }
    case 'actions/github-script': {
      const script = step.with?.['script'];
      if (typeof script !== 'string') throw new Error('github-script without a script');
      const dir = at.world.machine.folder('github-script');
      writeFileSync(join(dir, 'runner.mjs'), GITHUB_SCRIPT);
      // The script's own `${{ … }}` are put in first, as the runner does.
      writeFileSync(join(dir, 'script.js'), text(script, contexts, status));
      writeFileSync(join(dir, 'state.json'), JSON.stringify({ comments: at.world.comments }));
      const ran = await runProcess(
        [
          'node',
          join(dir, 'runner.mjs'),
          join(dir, 'script.js'),
          join(dir, 'state.json'),
          String(at.event.pullRequest ?? 0),
        ],
        at.workspace,
        at.env,
      );
      if (ran.code === 0) {
        const state = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as { comments: Comment[] };
        at.world.comments.splice(0, at.world.comments.length, ...state.comments);
      }
      return ran;
    }
    default:
      throw new Error(`action ${step.uses}: not simulated`);
  }
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
