import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/wire/json.js';
import { ALICE_ALONE, jsonLines, runCli, useServiceTarget } from '../helpers/cli.js';

// `plan --json` and `apply --json` give CI one JSON object on stdout whatever happens: the plan,
// or — when the files are invalid — the diagnostics, in the shape `validate --json` gives them.

const target = useServiceTarget();
const service = () => target.service;
const ws = () => target.ws;
const cli = target.cli;

const INVALID = `version: 1
guides:
  - account: alice_wx
    nickname: Alexandra the Great
    head_image_url: https://mmbiz.qpic.cn/alice/0
`;

describe('--json when the files are invalid', () => {
  for (const command of [['plan'], ['apply', '--auto-approve']]) {
    it(`${command[0]} --json prints one JSON object with the diagnostics of validate --json, exit 1`, async () => {
      await ws().write('guides.yaml', INVALID);
      const run = await cli([command[0] ?? '', 'guides.yaml', '--json', ...command.slice(1)]);
      expect(run.code).toBe(1);
      const validate = await runCli(['validate', 'guides.yaml', '--json'], { cwd: ws().dir });
      const out = parseJson(run.stdout) as Record<string, unknown>;
      expect(out).toMatchObject({ format_version: 1, error: 'the files have errors' });
      expect(out['diagnostics']).toEqual(parseJson(validate.stdout));
      expect(out['diagnostics']).toMatchObject([
        { severity: 'error', code: 'nickname-too-long', file: 'guides.yaml', line: 4, column: 15 },
      ]);
      if (command[0] === 'apply') expect(out).toMatchObject({ outcomes: [], converged: false });
      // Human diagnostics still go to stderr, for the job log.
      expect(run.stderr).toContain('guides.yaml:4:15: error: nickname');
    });
  }

  it('apply --json-stream prints the diagnostics as an event, then the summary, exit 1', async () => {
    await ws().write('guides.yaml', INVALID);
    const run = await cli(['apply', 'guides.yaml', '--auto-approve', '--json-stream']);
    expect(run.code).toBe(1);
    const validate = await runCli(['validate', 'guides.yaml', '--json'], { cwd: ws().dir });
    const events = jsonLines(run.stdout);
    expect(events).toEqual([
      {
        format_version: 1,
        type: 'diagnostics',
        error: 'the files have errors',
        diagnostics: parseJson(validate.stdout),
      },
      {
        format_version: 1,
        type: 'summary',
        calls: 0,
        done: 0,
        failed: 0,
        not_started: 0,
        interrupted: false,
        converged: false,
        exit_code: 1,
      },
    ]);
    expect(run.stderr).toContain('guides.yaml:4:15: error: nickname');
  });

  it('plan --json: a plan that cannot be made (a protected guide deleted) is one JSON object too', async () => {
    await ws().write('a.yaml', ALICE_ALONE);
    expect((await cli(['apply', 'a.yaml', '--auto-approve'])).code).toBe(0);
    await ws().write(
      'a.yaml',
      'version: 1\nprotect:\n  guides: [alice_wx]\nprune:\n  guides: true\nguides: []\n',
    );
    const run = await cli(['plan', 'a.yaml', '--json']);
    expect(run.code).toBe(1);
    const out = parseJson(run.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({
      format_version: 1,
      error: 'the plan cannot be made',
      diagnostics: [{ severity: 'error', code: 'protected-guide-delete', file: 'a.yaml' }],
    });
    // And apply --json-stream says the same as its first event.
    const stream = await cli(['apply', 'a.yaml', '--auto-approve', '--json-stream']);
    expect(stream.code).toBe(1);
    expect(parseJson(stream.stdout.split('\n')[0] ?? '')).toMatchObject({
      type: 'diagnostics',
      error: 'the plan cannot be made',
      diagnostics: [{ code: 'protected-guide-delete', file: 'a.yaml' }],
    });
  });

  it('plan --json: a failure of the target is one JSON object naming it', async () => {
    await ws().write('a.yaml', 'version: 1\nguides: []\n');
    const run = await runCli(['plan', 'a.yaml', '--json', '--base-url', service().url], {
      env: { WECHAT_APPID: service().credentials.appid, WECHAT_SECRET: 'wrong-secret' },
      cwd: ws().dir,
    });
    expect(run.code).toBe(1);
    const out = parseJson(run.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ format_version: 1, diagnostics: [] });
    expect(String(out['error'])).toMatch(/secret/);
    expect(run.stdout).not.toContain('wrong-secret');
  });
});

describe('apply with no terminal and no --auto-approve: refused, and the JSON still ends with the result', () => {
  const VALID = `version: 1
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://mmbiz.qpic.cn/alice/0
`;
  const NO_TERMINAL =
    'apply needs a confirmation and there is no terminal to ask on; pass --auto-approve to apply without asking (as in CI)';

  it('--json: one object with the plan and why nothing was changed, exit 1', async () => {
    await ws().write('guides.yaml', VALID);
    const guides = async () => (await target.ok('getguideacctlist', { page: 0, num: 100 }))['total_num'];
    const before = await guides();
    const run = await cli(['apply', 'guides.yaml', '--json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`guidectl: ${NO_TERMINAL}\n`);
    const out = parseJson(run.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ format_version: 1, refused: [NO_TERMINAL], outcomes: [], converged: false });
    expect(out['plan']).toMatchObject({ plan_id: expect.stringMatching(/^[0-9a-f]{12}$/) });
    expect(await guides()).toBe(before);
  });

  it('--json-stream: the plan event, then the summary, last, with why', async () => {
    await ws().write('guides.yaml', VALID);
    const run = await cli(['apply', 'guides.yaml', '--json-stream']);
    expect(run.code).toBe(1);
    const events = jsonLines(run.stdout);
    expect(events.map((e) => e['type'])).toEqual(['plan', 'summary']);
    expect(events[1]).toMatchObject({ refused: [NO_TERMINAL], done: 0, exit_code: 1 });
  });

  it('--all-envs --json: an entry for each environment', async () => {
    const local = `version: 1\nenvironments:\n  staging: {}\n  production: {}\n${VALID.replace('version: 1\n', '')}`;
    await ws().write('envs.yaml', local);
    const run = await runCli(['apply', '--all-envs', '--json', '--continue-on-error', 'envs.yaml'], {
      cwd: ws().dir,
    });
    expect(run.code).toBe(1);
    const out = parseJson(run.stdout) as { environments: Record<string, unknown> };
    expect(Object.keys(out.environments)).toEqual(['staging', 'production']);
    expect(out.environments['staging']).toMatchObject({ refused: [NO_TERMINAL], converged: false });
  });
});
