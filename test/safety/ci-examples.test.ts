import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli, workspace } from '../helpers/cli.js';

/**
 * The CI examples run one job at a time against the account (the guide API has no lock): every
 * job that applies, plans for the default branch or checks drift is in the CI system's
 * concurrency group, and the README says why.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CI = join(ROOT, 'examples', 'ci');

type Job = {
  script?: string[];
  steps?: Array<{ run?: string; env?: Record<string, string> }>;
  resource_group?: string;
  rules?: unknown;
};

const commands = (job: Job): string =>
  [...(job.script ?? []), ...(job.steps ?? []).map((s) => s.run ?? '')].join('\n');

describe('the CI examples', () => {
  it('are one for each CI system the README names', () => {
    expect(readdirSync(CI).sort()).toEqual(['github-actions.yml', 'gitlab-ci.yml']);
  });

  it('GitHub Actions: one concurrency group for the account, never cancelled, per pull request for plans', () => {
    const workflow = parse(readFileSync(join(CI, 'github-actions.yml'), 'utf8')) as {
      concurrency: { group: string; 'cancel-in-progress': string };
      jobs: Record<string, Job & { if?: string }>;
    };
    expect(workflow.concurrency.group).toBe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression
      "guides-${{ github.event_name == 'pull_request' && github.ref || 'account' }}",
    );
    // Cancelling is for pull-request plans only: an apply is never cancelled half-way.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression
    expect(workflow.concurrency['cancel-in-progress']).toBe("${{ github.event_name == 'pull_request' }}");
    // No job sets its own group, which would let it out of the run's.
    for (const job of Object.values(workflow.jobs)) expect(job).not.toHaveProperty('concurrency');
    const applies = Object.values(workflow.jobs).filter((j) => /guidectl apply/.test(commands(j)));
    expect(applies.length).toBeGreaterThan(0);
    for (const job of applies) {
      expect(job.if ?? '').not.toContain('pull_request');
      // Each account's apply is behind its own GitHub environment.
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression
      expect(job).toMatchObject({ environment: 'wechat-${{ matrix.name }}' });
    }
  });

  it('GitLab CI: every job that writes, plans for main or checks drift holds the account resource group', () => {
    const pipeline = parse(readFileSync(join(CI, 'gitlab-ci.yml'), 'utf8')) as Record<string, Job>;
    const jobs = Object.entries(pipeline).filter(
      ([, j]) => typeof j === 'object' && j !== null && 'script' in j,
    );
    for (const [name, job] of jobs) {
      const text = commands(job);
      const mergeRequestOnly = JSON.stringify(job.rules ?? '').includes('merge_request_event');
      const touchesAccount = /guidectl (apply|plan)/.test(text);
      if (touchesAccount && !mergeRequestOnly) expect(job.resource_group, name).toBe('wechat-account');
      // A job that reads the account first checks that its protected credentials are here.
      if (touchesAccount) expect(text, name).toContain('They are protected CI/CD variables');
    }
    expect(jobs.map(([n]) => n)).toEqual(expect.arrayContaining(['plan', 'apply', 'drift']));
  });

  it('docs/ci.md says why one run at a time', () => {
    const readme = readFileSync(join(ROOT, 'docs', 'ci.md'), 'utf8');
    expect(readme).toContain('**One run at a time.** The guide API has no lock');
    expect(readme).toContain('`resource_group: wechat-account`');
    expect(readme).toContain('`concurrency: guides-account`');
  });
});

/** `guidectl envs --json` of two environments with credentials and one without, as CI runs it (no secrets set). */
async function envsJson(): Promise<string> {
  const ws = await workspace();
  try {
    await ws.write(
      'envs.yaml',
      'version: 1\nenvironments:\n  staging:\n    base_url: https://staging.example.com\n    credentials: STAGING\n  production:\n    credentials: PROD\n  dev: {}\nguides: []\n',
    );
    const run = await runCli(['envs', '--json', 'envs.yaml'], { cwd: ws.dir });
    expect(run.code, run.stderr).toBe(0);
    return run.stdout;
  } finally {
    await ws.remove();
  }
}

const hasJq = ((): boolean => {
  try {
    execFileSync('jq', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('the CI examples plan every environment, one job each, from `guidectl envs --json`', () => {
  type Workflow = {
    jobs: Record<string, Job & { needs?: string | string[]; strategy?: Record<string, unknown> }>;
  };
  const workflow = (): Workflow => parse(readFileSync(join(CI, 'github-actions.yml'), 'utf8')) as Workflow;

  it('GitHub Actions: targets builds the matrix, and every job that reads an account runs once per account', () => {
    const { jobs } = workflow();
    expect(commands(jobs['targets'] ?? {})).toContain('guidectl envs --json envs/');
    for (const name of ['pull-request-plan', 'plan', 'apply', 'apply-by-plan-id', 'drift']) {
      const job = jobs[name];
      expect([job?.needs].flat(), name).toContain('targets');
      expect(job?.strategy, name).toMatchObject({
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression
        matrix: { include: '${{ fromJSON(needs.targets.outputs.matrix) }}' },
      });
      const step = job?.steps?.find((s) => /guidectl (plan|apply)/.test(s.run ?? ''));
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion
      expect(step?.run, name).toContain('${ENV_NAME:+--env "$ENV_NAME"}');
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression
      expect(step?.env, name).toMatchObject({ NAME: '${{ matrix.name }}', PREFIX: '${{ matrix.prefix }}' });
    }
    expect(jobs['pull-request-plan']?.strategy).toMatchObject({ 'fail-fast': false });
  });

  it.skipIf(!hasJq)(
    "GitHub Actions: the targets job's jq filter gives each environment with credentials, in declared order",
    async () => {
      const run = commands(workflow().jobs['targets'] ?? {});
      const filter = /jq -c '([^']+)'/.exec(run)?.[1];
      expect(filter).toBeDefined();
      const matrix = execFileSync('jq', ['-c', filter ?? ''], { input: await envsJson(), encoding: 'utf8' });
      expect(JSON.parse(matrix)).toEqual([
        { name: 'staging', prefix: 'STAGING', files: 'envs/', env: 'staging' },
        { name: 'production', prefix: 'PROD', files: 'envs/', env: 'production' },
      ]);
    },
  );

  // GitLab runs each script in bash under `set -eo pipefail`: a plan line must still print
  // plan.md and end with the status it means when the plan exits 1 or 2.
  it('GitLab CI: a plan line prints plan.md and exits as meant under set -eo pipefail, whatever plan exits', async () => {
    const pipeline = parse(readFileSync(join(CI, 'gitlab-ci.yml'), 'utf8')) as Record<string, Job>;
    const writer = pipeline['environments-pipeline']?.script?.[1] ?? '';
    // The child job's plan line on a merge request: the template holding --detailed-exitcode.
    const child = /`(status=0; \$\{plan\} --detailed-exitcode[^`]*)`/.exec(String(writer))?.[1];
    expect(child).toBeDefined();
    const plan = 'npx guidectl plan envs/ --env "$GUIDECTL_ENV" --markdown';
    const line = (job: string): string => String(pipeline[job]?.script?.at(-1) ?? '');
    const lines: Array<[string, string, (exit: number) => number]> = [
      ['merge-request-plan', line('merge-request-plan'), (exit) => exit],
      ['plan', line('plan'), (exit) => exit],
      // A child job passes with changes pending (2): a merge request is for them.
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the generator's JavaScript template
      ['plan <environment>', (child ?? '').replace('${plan}', plan), (exit) => (exit === 1 ? 1 : 0)],
    ];
    const ws = await workspace();
    try {
      const npx = join(ws.dir, 'npx');
      writeFileSync(npx, '#!/bin/sh\necho "the plan, exit $FAKE_EXIT"\nexit $FAKE_EXIT\n');
      chmodSync(npx, 0o755);
      for (const [job, line, expected] of lines) {
        expect(line, job).toContain('npx guidectl plan');
        for (const exit of [0, 1, 2]) {
          const run = spawnSync('bash', ['-eo', 'pipefail', '-c', line], {
            cwd: ws.dir,
            env: { ...process.env, PATH: `${ws.dir}:${process.env['PATH'] ?? ''}`, FAKE_EXIT: String(exit) },
            encoding: 'utf8',
          });
          expect(run.stdout, `${job}, plan exiting ${exit}`).toBe(`the plan, exit ${exit}\n`);
          expect(run.status === 0 ? 0 : run.status, `${job}, plan exiting ${exit}`).toBe(expected(exit));
        }
      }
    } finally {
      await ws.remove();
    }
  });
});
