// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${name} in plain strings is the syntax under test
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { atUrls, useTwoAccounts } from '../helpers/environments.js';

// plan --all-envs over real HTTP against two guide services, staging and production, planned
// side by side from one file: sections, summary table, markdown, JSON and exit codes, and one
// environment unreachable without hiding the other's plan.

const FILE = `version: 1
environments:
  staging:
    base_url: STAGING_URL
    credentials: STAGING
    values: {greeting: Hello from staging}
  production:
    base_url: PROD_URL
    credentials: PROD
    values: {greeting: Hello}
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/alice/0
    quick_replies: ["\${greeting}, I am Alice."]
  - account: qa_bot_wx
    only_in: [staging]
    nickname: QA
    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/qa/0
`;

const two = useTwoAccounts(FILE);
// An environment at http://127.0.0.1:9 (nothing listens) fails at once: --read-retry 0.001 gives
// its refused connections a millisecond of retries, so no test waits for a backoff to run out.
const NO_RETRY = ['--read-retry', '0.001'];
/** The summary of apply --all-envs (--json's `summary`, --json-stream's last event) when both environments applied. */
const BOTH_APPLIED = {
  environments: [
    { name: 'staging', status: 'applied' },
    { name: 'production', status: 'applied' },
  ],
  applied: 2,
  unchanged: 0,
  failed: 0,
  interrupted: 0,
  skipped: 0,
  exit_code: 0,
};
const cli = two.cli;

describe('plan --all-envs', () => {
  it('one section per environment in the order declared, then the summary table', async () => {
    const run = await cli(['plan', '--all-envs', 'guides.yaml']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const stagingAt = run.stdout.indexOf(
      `Environment staging: ${two.staging.url} (STAGING_APPID/STAGING_SECRET)\n`,
    );
    const productionAt = run.stdout.indexOf(
      `Environment production: ${two.production.url} (PROD_APPID/PROD_SECRET)\n`,
    );
    expect(stagingAt).toBe(0);
    expect(productionAt).toBeGreaterThan(stagingAt);
    expect(run.stdout.slice(stagingAt, productionAt)).toContain('Hello from staging, I am Alice.');
    expect(run.stdout.slice(stagingAt, productionAt)).toContain('+ guide qa_bot_wx');
    expect(run.stdout.slice(productionAt)).not.toContain('qa_bot_wx');
    expect(run.stdout).toMatch(
      /\nENVIRONMENT {2}ADD {2}CHANGE {2}DELETE {2}PLAN ID\nstaging {8}2 {7}0 {7}0 {2}[0-9a-f]{12}\nproduction {5}1 {7}0 {7}0 {2}[0-9a-f]{12}\n$/,
    );
  });

  it('--detailed-exitcode: 2 while any environment has changes, 0 once every one is applied', async () => {
    expect((await cli(['plan', '--all-envs', '--detailed-exitcode', 'guides.yaml'])).code).toBe(2);
    expect((await cli(['apply', '--env', 'staging', '--auto-approve', 'guides.yaml'])).code).toBe(0);
    expect((await cli(['plan', '--all-envs', '--detailed-exitcode', 'guides.yaml'])).code).toBe(2);
    expect((await cli(['apply', '--env', 'production', '--auto-approve', 'guides.yaml'])).code).toBe(0);
    const done = await cli(['plan', '--all-envs', '--detailed-exitcode', 'guides.yaml']);
    expect(done.code).toBe(0);
    expect(done.stdout.match(/No changes\./g)).toHaveLength(2);
  });

  it('--json: {format_version, environments: {name: plan}}, each as plan --json with its target', async () => {
    const run = await cli(['plan', '--all-envs', '--json', 'guides.yaml']);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json.format_version).toBe(1);
    expect(Object.keys(json.environments)).toEqual(['staging', 'production']);
    expect(json.environments.staging).toMatchObject({
      format_version: 1,
      summary: { add: 2, change: 0, delete: 0 },
      target: `${two.staging.url} (STAGING_APPID/STAGING_SECRET)`,
    });
    expect(json.environments.production.summary).toMatchObject({ add: 1 });
    expect(json.environments.production.plan_id).toMatch(/^[0-9a-f]{12}$/);
  });

  it('--markdown: one comment, a summary table, a section per environment', async () => {
    const run = await cli(['plan', '--all-envs', '--markdown', 'guides.yaml']);
    expect(run.code).toBe(0);
    expect(run.stdout.startsWith('<!-- guidectl-plan -->\n**guidectl plan: 2 environments**\n')).toBe(true);
    expect(run.stdout.match(/<!-- guidectl-plan -->/g)).toHaveLength(1);
    expect(run.stdout).toMatch(/\| staging \| `2` \| `0` \| `0` \| `[0-9a-f]{12}` \|/);
    expect(run.stdout).toContain('### staging');
    expect(run.stdout).toContain('### production');
  });

  it('--markdown: what a small section does not use goes to the large ones, within the comment budget', async () => {
    const bulk = (only: string, n: number): string =>
      Array.from(
        { length: n },
        (_, i) =>
          `  - account: ${only}_${String(i).padStart(3, '0')}\n    only_in: [${only}]\n    nickname: Bulk ${i}\n    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/${'x'.repeat(80)}/${i}\n`,
      ).join('');
    const file = atUrls(FILE, two.staging.url, two.production.url);
    const section = (markdown: string, name: string): string => {
      const from = markdown.indexOf(`### ${name}`);
      const next = markdown.indexOf('\n### ', from + 1);
      return markdown.slice(from, next < 0 ? undefined : next);
    };
    // Staging's plan needs about 50,000 characters, production's a few hundred: staging is
    // shown whole, though it is far more than half of the comment.
    await two.ws.write('guides.yaml', file + bulk('staging', 260));
    const run = await cli(['plan', '--all-envs', '--markdown', 'guides.yaml']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('… cut:');
    expect(section(run.stdout, 'staging').length).toBeGreaterThan(40_000);
    expect(section(run.stdout, 'staging')).toContain('staging_259');
    expect(run.stdout.length).toBeLessThanOrEqual(60_000);
    // Both large: each is cut, to an equal share, and the comment stays within the budget.
    await two.ws.write('guides.yaml', file + bulk('staging', 260) + bulk('production', 260));
    const both = await cli(['plan', '--all-envs', '--markdown', 'guides.yaml']);
    expect(both.stdout.match(/… cut: /g)).toHaveLength(2);
    expect(both.stdout.length).toBeLessThanOrEqual(60_000);
    expect(both.stdout.length).toBeGreaterThan(55_000);
  });

  it('one environment unreachable: exit 1, its failure in its section, the other planned', async () => {
    await two.ws.write('guides.yaml', atUrls(FILE, two.staging.url, 'http://127.0.0.1:9'));
    const run = await cli(['plan', '--all-envs', '--json', ...NO_RETRY, 'guides.yaml']);
    expect(run.code).toBe(1);
    const json = JSON.parse(run.stdout);
    expect(json.environments.staging.summary).toMatchObject({ add: 2 });
    expect(json.environments.production.error).toContain('cannot connect to http://127.0.0.1:9');
    // The target was resolved before it failed: it is named, as plan --env production names it.
    const down = 'http://127.0.0.1:9 (PROD_APPID/PROD_SECRET)';
    expect(json.environments.production.environment).toEqual({ name: 'production', target: down });
    expect(run.stderr).toContain('guidectl: environment production: ');
    const one = await cli(['plan', '--env', 'production', '--json', ...NO_RETRY, 'guides.yaml']);
    expect(JSON.parse(one.stdout).environment).toEqual({ name: 'production', target: down });
    const human = await cli(['plan', '--all-envs', ...NO_RETRY, 'guides.yaml']);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain('Plan: 2 to add');
    expect(human.stdout).toContain(`Environment production: ${down}\n\nFailed: `);
    expect(human.stdout).toMatch(/\nproduction {5}- {7}- {7}- {2}failed\n$/);
    const markdown = await cli(['plan', '--all-envs', '--markdown', ...NO_RETRY, 'guides.yaml']);
    expect(markdown.stdout).toContain('### production — http://127.0.0.1:9 (PROD\\_APPID/PROD\\_SECRET)\n');
  });

  it('files with errors: said as plan says it, and --json and --markdown still print the failure on stdout', async () => {
    const file = atUrls(FILE, two.staging.url, two.production.url);
    await two.ws.write('bad.yaml', file.replace(/nickname: (\w+)/, 'nickname: $1 the great and powerful'));
    const human = await cli(['plan', '--all-envs', 'bad.yaml']);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(
      /error: .*nickname.*\nguidectl: the files have errors; nothing was read or changed\n$/s,
    );
    const json = await cli(['plan', '--all-envs', '--json', 'bad.yaml']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      format_version: 1,
      error: 'the files have errors',
      diagnostics: [{ code: 'nickname-too-long', file: 'bad.yaml' }],
    });
    const markdown = await cli(['plan', '--all-envs', '--markdown', 'bad.yaml']);
    expect(markdown.stdout).toContain('**guidectl plan failed: the files have errors**');
  });

  it('usage: files without environments, and --env with --all-envs, are refused', async () => {
    const plain = await two.ws.write('plain.yaml', 'version: 1\nguides: []\n');
    const a = await cli(['plan', '--all-envs', plain]);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('the files declare no environments');
    const b = await cli(['plan', '--all-envs', '--env', 'staging', 'guides.yaml']);
    expect(b.code).toBe(1);
    expect(b.stderr).toBe('guidectl: --all-envs and --env choose differently; give one\n');
  });
});

describe('apply --all-envs', () => {
  it('applies each environment in the order declared; then plan --all-envs shows no changes', async () => {
    const run = await cli(['apply', '--all-envs', '--auto-approve', 'guides.yaml']);
    expect(run.code).toBe(0);
    expect(run.stdout.indexOf('Environment staging:')).toBeLessThan(
      run.stdout.indexOf('Environment production:'),
    );
    expect(run.stdout).toMatch(/\nENVIRONMENT {2}APPLY\nstaging {6}applied\nproduction {3}applied\n$/);
    const plan = await cli(['plan', '--all-envs', '--detailed-exitcode', 'guides.yaml']);
    expect(plan.code).toBe(0);
    // Applied again: nothing to apply in either, said as such, not "applied".
    const again = await cli(['apply', '--all-envs', '--auto-approve', 'guides.yaml']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(
      /\nENVIRONMENT {2}APPLY\nstaging {6}no changes\nproduction {3}no changes\n$/,
    );
    const json = await cli(['apply', '--all-envs', '--auto-approve', '--json', 'guides.yaml']);
    expect(JSON.parse(json.stdout).summary).toEqual({
      ...BOTH_APPLIED,
      environments: [
        { name: 'staging', status: 'unchanged' },
        { name: 'production', status: 'unchanged' },
      ],
      applied: 0,
      unchanged: 2,
    });
  });

  it('stops at the first environment that fails; --continue-on-error goes on with the next', async () => {
    const file = atUrls(FILE, 'http://127.0.0.1:9', two.production.url);
    await two.ws.write('guides.yaml', file);
    const stopped = await cli(['apply', '--all-envs', '--auto-approve', ...NO_RETRY, 'guides.yaml']);
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toMatch(/\nENVIRONMENT {2}APPLY\nstaging {6}failed\nproduction {3}skipped\n$/);
    expect(stopped.stderr).toContain('guidectl: environment staging: ');
    const plan = await cli(['plan', '--env', 'production', '--detailed-exitcode', 'guides.yaml']);
    expect(plan.code).toBe(2);
    const on = await cli([
      'apply',
      '--all-envs',
      '--auto-approve',
      '--continue-on-error',
      ...NO_RETRY,
      'guides.yaml',
    ]);
    expect(on.code).toBe(1);
    expect(on.stdout).toMatch(/\nstaging {6}failed\nproduction {3}applied\n$/);
  });

  it('--json: one object, each environment as apply --json prints it, and a summary', async () => {
    const run = await cli(['apply', '--all-envs', '--auto-approve', '--json', 'guides.yaml']);
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(Object.keys(json)).toEqual(['format_version', 'environments', 'summary']);
    expect(json.format_version).toBe(1);
    expect(Object.keys(json.environments)).toEqual(['staging', 'production']);
    expect(json.environments.staging).toMatchObject({ format_version: 1, converged: true });
    expect(json.environments.staging.plan.summary).toMatchObject({ add: 2 });
    expect(json.environments.production.plan.summary).toMatchObject({ add: 1 });
    expect(json.environments.production.outcomes).toEqual([
      { index: 0, operation: 'addguideacct', status: 'done' },
      { index: 1, operation: 'setguideconfig', status: 'done' },
    ]);
    expect(json.summary).toEqual(BOTH_APPLIED);
  });

  it('--json with a failing environment: its failure as apply --json prints one, the rest skipped', async () => {
    await two.ws.write('guides.yaml', atUrls(FILE, two.staging.url, two.production.url));
    const run = await runCli(['apply', '--all-envs', '--auto-approve', '--json', 'guides.yaml'], {
      cwd: two.ws.dir,
      env: { PROD_APPID: 'x' },
    });
    expect(run.code).toBe(1);
    const json = JSON.parse(run.stdout);
    expect(json.environments).toEqual({
      staging: {
        format_version: 1,
        environment: { name: 'staging' },
        error: expect.stringContaining('environment staging cannot be used from here'),
        diagnostics: [],
        outcomes: [],
        converged: false,
      },
    });
    expect(json.summary).toMatchObject({ applied: 0, failed: 1, skipped: 1, exit_code: 1 });
  });

  it("--plan-id is one environment's: refused with --all-envs before anything is read, as a usage error", async () => {
    const plan = await cli(['plan', '--env', 'staging', '--json', 'guides.yaml']);
    const id = JSON.parse(plan.stdout).plan_id;
    const writes = () => two.staging.service.calls().filter((c) => c.writes).length;
    const before = writes();
    for (const format of [[], ['--json']]) {
      const run = await cli([
        'apply',
        '--all-envs',
        '--auto-approve',
        '--plan-id',
        id,
        ...format,
        'guides.yaml',
      ]);
      const error =
        '--plan-id pins the plan of one environment; it is not taken with --all-envs (apply each with --env NAME --plan-id ID)';
      expect(run.code).toBe(1);
      // With --json, the failure as one object, as for any failure before the output.
      const json = { format_version: 1, error, diagnostics: [] };
      expect(run.stdout).toBe(format.length === 0 ? '' : `${JSON.stringify(json, null, 2)}\n`);
      expect(run.stderr).toBe(`guidectl: ${error}\n`);
    }
    expect(writes()).toBe(before);
  });

  it('--json-stream: the events of each environment, each naming it, then environments_summary', async () => {
    const run = await cli(['apply', '--all-envs', '--auto-approve', '--json-stream', 'guides.yaml']);
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    const last = events.pop();
    expect(last).toEqual({ format_version: 1, type: 'environments_summary', ...BOTH_APPLIED });
    const of = (name: string) => events.filter((e) => e.environment === name).map((e) => e.type);
    expect(events.every((e) => Object.keys(e).slice(0, 3).join() === 'format_version,type,environment')).toBe(
      true,
    );
    for (const name of ['staging', 'production']) {
      const types = of(name);
      const calls = events.find((e) => e.environment === name && e.type === 'plan').calls;
      expect(types[0]).toBe('plan');
      expect(types.at(-1)).toBe('summary');
      expect(types.filter((t) => t === 'call_done')).toHaveLength(calls);
    }
    expect(events.findIndex((e) => e.environment === 'production')).toBe(of('staging').length);
    expect(of('production').at(-1)).toBe('summary');
  });
});
