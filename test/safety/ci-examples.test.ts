import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * The CI examples run one job at a time against the account (the guide API has no lock): every
 * job that applies, plans for the default branch or checks drift is in the CI system's
 * concurrency group, and the README says why.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CI = join(ROOT, 'examples', 'ci');

type Job = { script?: string[]; steps?: Array<{ run?: string }>; resource_group?: string; rules?: unknown };

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
    for (const job of applies) expect(job.if ?? '').not.toContain('pull_request');
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
    }
    expect(jobs.map(([n]) => n)).toEqual(expect.arrayContaining(['plan', 'apply', 'drift']));
  });

  it('the README says why one run at a time', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('**One run at a time.** The guide API has no lock');
    expect(readme).toContain('`resource_group: wechat-account`');
    expect(readme).toContain('`concurrency: guides-account`');
  });
});
