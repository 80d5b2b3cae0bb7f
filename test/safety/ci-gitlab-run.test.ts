import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CiMachine,
  ciMachine,
  envsRepo,
  guideOf,
  renameByHand,
  singleRepo,
} from '../helpers/ci-runner.js';
import { type GitLabRun, type GitLabWorld, readPipeline, runPipeline } from '../helpers/gitlab-ci-runner.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { fetchToken } from '../helpers/service.js';

/**
 * examples/ci/gitlab-ci.yml, run: its jobs' scripts under `bash -c 'set -eo pipefail; …'` as a
 * runner runs them (test/helpers/gitlab-ci-runner.ts), its child pipeline too, against `guidectl
 * serve` processes standing in for the accounts. The credentials are protected variables, as the
 * example asks: a merge request from an unprotected branch must fail, saying why, not plan.
 */

const PIPELINE = readPipeline(
  join(fileURLToPath(new URL('../..', import.meta.url)), 'examples', 'ci', 'gitlab-ci.yml'),
);

const log = (run: GitLabRun): string =>
  run.jobs.map((j) => `=== ${j.name} (${j.result})\n${j.log}`).join('\n');
const NO_CREDENTIALS =
  /No credentials for (staging|this account) in this pipeline: (STAGING|WECHAT)_APPID and \2_SECRET \(or \2_ACCESS_TOKEN\) are not set\.\nThey are protected CI\/CD variables, which GitLab gives only to pipelines of protected branches;\nthis one runs on guides\/spring \(protected: false\)/;

describe('the GitLab CI example', () => {
  let machine: CiMachine;
  let staging: ServeProcess;
  let production: ServeProcess;
  let account: ServeProcess;

  beforeAll(async () => {
    machine = ciMachine();
    [staging, production, account] = await Promise.all([
      startServeProcess(['--db', ':memory:'], { cwd: machine.dir }),
      startServeProcess(['--db', ':memory:'], { cwd: machine.dir }),
      startServeProcess(['--db', ':memory:'], { cwd: machine.dir }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([staging?.stop(), production?.stop(), account?.stop()]);
    machine?.remove();
  });

  const secret = (value: string): { value: string; protected: boolean } => ({ value, protected: true });

  it('several accounts: MR plans on a protected branch, refusal on another, apply on main per environment, drift', async () => {
    const world = (without: string[] = [], more: Record<string, string> = {}): GitLabWorld => ({
      machine,
      repo: envsRepo(machine, staging, production),
      variables: Object.fromEntries(
        Object.entries({
          STAGING_APPID: staging.appid,
          STAGING_SECRET: staging.secret,
          PROD_APPID: production.appid,
          PROD_SECRET: production.secret,
          ...more,
        })
          .filter(([k]) => !without.includes(k))
          .map(([k, v]) => [k, secret(v)]),
      ),
    });
    // A merge request from a protected branch: each environment planned in a child job.
    let run = await runPipeline(
      PIPELINE,
      { source: 'merge_request_event', branch: 'guides/spring', protectedRef: true },
      world(),
    );
    expect(
      run.jobs.map((j) => [j.name, j.result]),
      log(run),
    ).toEqual([
      ['environments-pipeline', 'success'],
      ['plan staging', 'success'],
      ['plan production', 'success'],
      ['environments', 'success'],
    ]);
    expect(run.job('plan staging').log).toContain(`### staging — ${staging.url}`);
    expect(run.job('plan staging').log).toContain('Plan: 2 to add');
    expect(await guideOf(staging, 'alice_wx')).toBeUndefined();

    // From an unprotected branch the protected variables are not there: the plans fail, saying why.
    run = await runPipeline(
      PIPELINE,
      { source: 'merge_request_event', branch: 'guides/spring', protectedRef: false },
      world(),
    );
    expect(run.job('environments').result).toBe('failed');
    expect(run.job('plan staging').result).toBe('failed');
    expect(run.job('plan staging').log).toMatch(NO_CREDENTIALS);
    // …before guidectl runs: no plan against any account, not even an empty local one.
    expect(run.job('plan staging').log).not.toMatch(/^guidectl:|Plan:/m);

    // Main, with staging's secret missing: staging's plan fails naming it and its apply does not
    // run; production is planned and applied, in its GitLab environment and resource group.
    run = await runPipeline(
      PIPELINE,
      { source: 'push', branch: 'main', protectedRef: true },
      world(['STAGING_SECRET']),
    );
    expect(
      run.jobs.map((j) => [j.name, j.result, j.environment, j.resourceGroup]),
      log(run),
    ).toEqual([
      ['environments-pipeline', 'success', undefined, undefined],
      ['plan staging', 'failed', undefined, 'wechat-staging'],
      ['plan production', 'success', undefined, 'wechat-production'],
      ['apply staging', 'skipped', 'wechat-staging', 'wechat-staging'],
      ['apply production', 'success', 'wechat-production', 'wechat-production'],
      ['environments', 'failed', undefined, undefined],
    ]);
    expect(run.job('plan staging').log).toContain(
      'STAGING_APPID and STAGING_SECRET (or STAGING_ACCESS_TOKEN) are not set',
    );
    expect(await guideOf(production, 'alice_wx')).toMatchObject({ guide_nickname: 'Alice' });
    expect(await guideOf(staging, 'alice_wx')).toBeUndefined();

    // The schedule: production changed by hand, and staging never applied, both drift.
    await renameByHand(production, 'alice_wx', 'Alice by hand');
    run = await runPipeline(PIPELINE, { source: 'schedule', branch: 'main', protectedRef: true }, world());
    expect(
      run.jobs.map((j) => [j.name, j.result, j.resourceGroup]),
      log(run),
    ).toEqual([
      ['environments-pipeline', 'success', undefined],
      ['drift staging', 'failed', 'wechat-staging'],
      ['drift production', 'failed', 'wechat-production'],
      ['environments', 'failed', undefined],
    ]);
    expect(run.job('drift production').log).toContain('Plan: 0 to add, 1 to change');
    for (const job of run.jobs) expect(job.log).not.toContain(production.secret);

    // Main, with staging's access token only: its plan runs, but its apply fails before guidectl,
    // saying that a saved plan needs the appid and secret and how to apply by plan id; production
    // applies (its change by hand undone).
    const token = await fetchToken(staging.url, staging.appid, staging.secret);
    run = await runPipeline(
      PIPELINE,
      { source: 'push', branch: 'main', protectedRef: true },
      world(['STAGING_APPID', 'STAGING_SECRET'], { STAGING_ACCESS_TOKEN: token }),
    );
    expect(
      run.jobs.map((j) => [j.name, j.result]),
      log(run),
    ).toEqual([
      ['environments-pipeline', 'success'],
      ['plan staging', 'success'],
      ['plan production', 'success'],
      ['apply staging', 'failed'],
      ['apply production', 'success'],
      ['environments', 'failed'],
    ]);
    expect(run.job('apply staging').log).toContain(
      'Applying a saved plan needs STAGING_APPID and STAGING_SECRET, to confirm the account it was made for (an access token names no account).\nWith STAGING_ACCESS_TOKEN only, apply the plan you reviewed by its id (the "Plan id" the plan job printed):\nnpx guidectl apply envs/ --env staging --plan-id ID',
    );
    expect(run.job('apply staging').log).not.toMatch(/^guidectl:/m);
    expect(await guideOf(staging, 'alice_wx')).toBeUndefined();
    expect(await guideOf(production, 'alice_wx')).toMatchObject({ guide_nickname: 'Alice' });
    for (const job of run.jobs) expect(job.log).not.toContain(token);
  }, 120_000);

  it('one account (guides/): MR plan refused off a protected branch, apply on main', async () => {
    const world: GitLabWorld = {
      machine,
      repo: singleRepo(machine),
      variables: { WECHAT_APPID: secret(account.appid), WECHAT_SECRET: secret(account.secret) },
      // The one account is a local serve: its URL reaches guidectl as GUIDECTL_BASE_URL.
      env: { GUIDECTL_BASE_URL: account.url },
    };
    let run = await runPipeline(
      PIPELINE,
      { source: 'merge_request_event', branch: 'guides/spring', protectedRef: false },
      world,
    );
    expect(
      run.jobs.map((j) => [j.name, j.result]),
      log(run),
    ).toEqual([
      ['validate', 'success'],
      ['merge-request-plan', 'failed'],
    ]);
    expect(run.job('merge-request-plan').log).toMatch(NO_CREDENTIALS);
    run = await runPipeline(PIPELINE, { source: 'push', branch: 'main', protectedRef: true }, world);
    expect(
      run.jobs.map((j) => [j.name, j.result, j.environment, j.resourceGroup]),
      log(run),
    ).toEqual([
      ['validate', 'success', undefined, undefined],
      ['plan', 'success', undefined, 'wechat-account'],
      ['apply', 'success', 'wechat-production', 'wechat-account'],
    ]);
    expect(await guideOf(account, 'alice_wx')).toMatchObject({ guide_nickname: 'Alice' });
  }, 120_000);
});
