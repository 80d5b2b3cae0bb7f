import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli, type Workspace, workspace } from '../helpers/cli.js';
import { frozenClock, guideBody, startTestService } from '../helpers/service.js';
import { ROOT } from './pages.js';
import { ajv, expectValid, undeclaredKeys } from './schemas.js';

/**
 * The JSON Schemas of schema/ describe what the commands print: real outputs of every command with
 * a machine format, run against the project's own service in this process, are validated against
 * them (issue 24).
 */

const STORE = readFileSync(join(ROOT, 'examples', 'small-store.yaml'), 'utf8');
const ENVS = `version: 1
environments:
  staging:
    values: {nick: Alice}
  production:
    credentials: PROD
    values: {nick: Alicia}
guides:
  - account: alice_wx
    nickname: \${nick}
    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/alice/0
  - account: qa_bot_wx
    only_in: [staging]
    nickname: QA
    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/qa/0
`;
const BAD =
  'version: 1\nguides:\n  - account: alice_wx\n    nickname: Alexandra the Great\n    head_image_url: https://mmbiz.qpic.cn/a/0\n';

let ws: Workspace;
const cli = (args: string[], env: Record<string, string> = {}): Promise<CliRun> =>
  runCli(args, { cwd: ws.dir, env });
const json = (run: CliRun): unknown => JSON.parse(run.stdout);
const lines = (run: CliRun): unknown[] =>
  run.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

beforeAll(async () => {
  ws = await workspace();
  await ws.write('store.yaml', STORE);
  await ws.write('envs.yaml', ENVS);
  await ws.write('bad.yaml', BAD);
});
afterAll(() => ws.remove());

describe('validate --json matches validate.schema.json', () => {
  it('valid, invalid, and per-environment problems', async () => {
    expectValid(
      'validate.schema.json',
      json(await cli(['validate', '--json', 'store.yaml'])),
      'a valid file',
    );
    const bad = json(await cli(['validate', '--json', 'bad.yaml']));
    expect(bad).toEqual([expect.objectContaining({ code: 'nickname-too-long', line: 4 })]);
    expectValid('validate.schema.json', bad, 'an invalid file');
    await ws.write('envs-bad.yaml', ENVS.replace('nick: Alicia', 'nick: Alexandra the Great'));
    const perEnv = json(await cli(['validate', '--json', 'envs-bad.yaml']));
    expect(perEnv).toEqual([expect.objectContaining({ environments: ['production'] })]);
    expectValid('validate.schema.json', perEnv, 'a problem of one environment');
  });
});

describe('plan, show and apply match their schemas', () => {
  it('plan --json, --out, show --json, apply --json, a stale saved plan, and a failure', async () => {
    const db = ['--local-db', 'store.db'];
    const planned = await cli(['plan', '--json', 'store.yaml', '--out', 'p.json', ...db]);
    expect(planned.code).toBe(0);
    expectValid('plan.schema.json', json(planned), 'plan --json');
    expectValid(
      'saved-plan.schema.json',
      JSON.parse(readFileSync(join(ws.dir, 'p.json'), 'utf8')),
      'plan --out',
    );
    expectValid('plan.schema.json', json(await cli(['show', '--json', 'p.json'])), 'show --json');

    const applied = await cli(['apply', '--json', 'store.yaml', '--auto-approve', ...db]);
    expect(applied.code).toBe(0);
    expectValid('apply.schema.json', json(applied), 'apply --json');
    // The keys are checked at every depth a schema names another object's schema.
    const output = json(applied) as { plan: object };
    expect(undeclaredKeys('apply.schema.json', { ...output, plan: { ...output.plan, extra: 1 } })).toEqual([
      'plan.extra',
    ]);

    const stale = await cli(['apply', '--json', 'p.json', ...db]);
    expect(stale.code).toBe(1);
    expect(json(stale)).toMatchObject({ stale: true });
    expectValid('apply.schema.json', json(stale), 'a stale saved plan');

    await ws.write('change.yaml', STORE.replace('nickname: Alice', 'nickname: Alicia'));
    const streamed = await cli(['apply', '--json-stream', 'change.yaml', '--auto-approve', ...db]);
    expect(streamed.code).toBe(0);
    const events = lines(streamed);
    expect(events.map((e) => (e as { type: string }).type)).toEqual([
      'plan',
      'call_start',
      'call_done',
      'summary',
    ]);
    for (const event of events)
      expectValid('apply-stream.schema.json', event, 'an apply --json-stream event');

    const failed = await cli(['plan', '--json', 'bad.yaml', ...db]);
    expect(failed.code).toBe(1);
    expectValid('plan.schema.json', json(failed), 'plan --json of invalid files');
    const failedApply = await cli(['apply', '--json', 'bad.yaml', '--auto-approve', ...db]);
    expectValid('apply.schema.json', json(failedApply), 'apply --json of invalid files');
    const failedStream = await cli(['apply', '--json-stream', 'bad.yaml', '--auto-approve', ...db]);
    for (const event of lines(failedStream))
      expectValid('apply-stream.schema.json', event, 'a failed stream');
  });

  it('the environments: envs --json, plan --env, plan and apply --all-envs', async () => {
    const env = { PROD_APPID: 'wx1234567890abcdef' };
    expectValid('envs.schema.json', json(await cli(['envs', '--json', 'envs.yaml'], env)), 'envs --json');
    expectValid(
      'envs.schema.json',
      json(await cli(['envs', '--json', 'bad.yaml'])),
      'envs --json of invalid files',
    );
    expectValid(
      'plan.schema.json',
      json(await cli(['plan', '--json', 'envs.yaml', '--env', 'staging'])),
      'plan --env',
    );
    const all = await cli(['plan', '--json', 'envs.yaml', '--all-envs']);
    expect(all.code).toBe(1);
    expectValid('plan.schema.json', json(all), 'plan --all-envs --json, one environment failing');
    const applied = await cli([
      'apply',
      '--json',
      'envs.yaml',
      '--all-envs',
      '--auto-approve',
      '--continue-on-error',
    ]);
    expectValid('apply.schema.json', json(applied), 'apply --all-envs --json');
    const envs = json(applied) as { environments: { staging: { plan: object } } };
    const staging = { ...envs.environments.staging, plan: { ...envs.environments.staging.plan, extra: 1 } };
    expect(
      undeclaredKeys('apply.schema.json', { ...envs, environments: { ...envs.environments, staging } }),
    ).toEqual(['environments.staging.plan.extra']);
    const streamed = await cli(['apply', '--json-stream', 'envs.yaml', '--all-envs', '--auto-approve']);
    const events = lines(streamed);
    expect((events.at(-1) as { type: string }).type).toBe('environments_summary');
    for (const event of events)
      expectValid('apply-stream.schema.json', event, 'an apply --all-envs --json-stream event');
  });

  it('quota --json, and its failure', async () => {
    const read = await cli(['quota', '--json', '--local-db', 'quota.db']);
    expect(read.code).toBe(0);
    expectValid('quota.schema.json', json(read), 'quota --json');
    const failed = await cli(['quota', '--json', '--base-url', 'http://127.0.0.1:9']);
    expect(failed.code).toBe(1);
    expect(json(failed)).toMatchObject({ error: expect.stringContaining('no credentials') });
    expectValid('quota.schema.json', json(failed), 'quota --json without credentials');
  });

  it('tasks --json and qrcode --json, of a guide named by account and by openid, and their failures', async () => {
    const t = await startTestService();
    try {
      const { appid, secret } = t.service.credentials;
      const env = { WECHAT_APPID: appid, WECHAT_SECRET: secret };
      const at = ['--base-url', t.url];
      await t.ok('addguideacct', guideBody('alice_wx'));
      await t.ok('addguideacct', {
        ...guideBody('x'),
        guide_account: undefined,
        guide_openid: 'oGuideCarol',
      });
      await t.sim('customers', { guide_account: 'alice_wx', openids: ['oAnn'] });
      await t.sim('customers', { guide_openid: 'oGuideCarol', openids: ['oCat'] });
      const pushTime = frozenClock().now() / 1000 + 3600;
      for (const [guide, openid] of [
        [{ guide_account: 'alice_wx' }, 'oAnn'],
        [{ guide_openid: 'oGuideCarol' }, 'oCat'],
      ] as const)
        await t.ok('addguidemassendjob', {
          ...guide,
          task_name: 'Spring sale',
          push_time: pushTime,
          openid: [openid],
          material: [{ type: 1, word: 'Hello' }],
        });
      const tasks = await cli(['tasks', '--json', ...at], env);
      expect(tasks.code, tasks.stderr).toBe(0);
      expect(json(tasks)).toMatchObject({
        tasks: [{ guide_account: 'alice_wx' }, { guide_openid: 'oGuideCarol' }],
      });
      expectValid('tasks.schema.json', json(tasks), 'tasks --json');
      const extra = json(tasks) as { tasks: object[] };
      expect(
        undeclaredKeys('tasks.schema.json', { ...extra, tasks: [{ ...extra.tasks[0], extra: 1 }] }),
      ).toEqual(['tasks.extra']);
      const failedTasks = await cli(['tasks', '--json', '--guide', 'nobody_wx', ...at], env);
      expect(failedTasks.code).toBe(1);
      expectValid('tasks.schema.json', json(failedTasks), 'tasks --json of an unknown guide');

      for (const guide of ['alice_wx', 'openid:oGuideCarol']) {
        const made = await cli(['qrcode', guide, '--json', ...at], env);
        expect(made.code, made.stderr).toBe(0);
        expectValid('qrcode.schema.json', json(made), `qrcode ${guide} --json`);
      }
      const failedQrcode = await cli(['qrcode', 'nobody_wx', '--json', ...at], env);
      expect(failedQrcode.code).toBe(1);
      expectValid('qrcode.schema.json', json(failedQrcode), 'qrcode --json of an unknown guide');
    } finally {
      await t.close();
    }
  });

  it('the schemas refuse what the commands do not print', () => {
    expect(ajv.getSchema('plan.schema.json')?.({ format_version: 1, summary: {} })).toBe(false);
    expect(ajv.getSchema('apply-stream.schema.json')?.({ format_version: 1, type: 'call_done' })).toBe(false);
    expect(ajv.getSchema('saved-plan.schema.json')?.({ format_version: 3, kind: 'guidectl-plan' })).toBe(
      false,
    );
    expect(ajv.getSchema('validate.schema.json')?.([{ severity: 'fatal', code: 'x', message: 'm' }])).toBe(
      false,
    );
    const task = {
      task_id: 1,
      guide_account: 'alice_wx',
      name: 'n',
      remark: '',
      push_time: 1,
      push_at: '1970-01-01T00:00:01Z',
      status: 'pending',
      recipients: 1,
      materials: 1,
    };
    expect(ajv.getSchema('tasks.schema.json')?.({ format_version: 1, tasks: [task] })).toBe(true);
    expect(
      ajv.getSchema('tasks.schema.json')?.({ format_version: 1, tasks: [{ ...task, status: 'sent' }] }),
    ).toBe(false);
    expect(
      ajv.getSchema('tasks.schema.json')?.({ format_version: 1, tasks: [{ ...task, guide_openid: 'o' }] }),
    ).toBe(false);
    expect(ajv.getSchema('qrcode.schema.json')?.({ format_version: 1, qrcode_url: 'https://x' })).toBe(false);
  });
});
