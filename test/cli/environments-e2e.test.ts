// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${name} in plain strings is the syntax under test
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CliRun, runCli, type Workspace, workspace } from '../helpers/cli.js';
import { atUrls, TWO_ENVIRONMENTS } from '../helpers/environments.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { simCall } from '../helpers/service.js';

// Issue 12 end to end: two `guidectl serve` processes, as a user runs them, are the staging and
// production accounts of one repository; every command goes through the CLI over real HTTP.

const FILE = TWO_ENVIRONMENTS;

let staging: ServeProcess;
let production: ServeProcess;
let ws: Workspace;
beforeAll(async () => {
  // Simulation on, for /__sim/reset between tests; each serve generates its own credentials.
  [staging, production] = await Promise.all([
    startServeProcess(['--db', ':memory:', '--simulation']),
    startServeProcess(['--db', ':memory:', '--simulation']),
  ]);
  ws = await workspace();
  await ws.write('guides.yaml', atUrls(FILE, staging.url, production.url));
});
afterAll(async () => {
  await Promise.all([staging?.stop(), production?.stop()]);
  await ws?.remove();
});
beforeEach(async () => {
  await simCall(staging.url, 'reset');
  await simCall(production.url, 'reset');
});

/** Each environment's variables, as CI gives them: PREFIX_APPID and PREFIX_SECRET. */
const env = (): Record<string, string> => ({
  STAGING_APPID: staging.appid,
  STAGING_SECRET: staging.secret,
  PROD_APPID: production.appid,
  PROD_SECRET: production.secret,
});
const cli = (args: readonly string[]): Promise<CliRun> => runCli(args, { cwd: ws.dir, env: env() });

/** The guides of one serve, and alice_wx's welcome card there, read by `guidectl api`. */
async function accountOf(serve: ServeProcess): Promise<{ guides: string[]; card?: unknown }> {
  const api = async (args: string[]): Promise<string> => {
    const run = await runCli(['api', ...args, '--base-url', serve.url], {
      cwd: ws.dir,
      env: { WECHAT_APPID: serve.appid, WECHAT_SECRET: serve.secret },
    });
    expect(run.code, run.stderr).toBe(0);
    return run.stdout;
  };
  const list = JSON.parse(await api(['getguideacctlist', '{"page": 0, "num": 10}']));
  const guides = list.list.map((g: { guide_account: string }) => g.guide_account).sort();
  if (!guides.includes('alice_wx')) return { guides };
  const config = JSON.parse(await api(['getguideconfig', '{"guide_account": "alice_wx"}']));
  return { guides, card: JSON.parse(config.guide_auto_reply.content) };
}

const planAll = (...flags: string[]): Promise<CliRun> =>
  cli(['plan', '--all-envs', '--detailed-exitcode', ...flags, 'guides.yaml']);

describe('two guidectl serve processes as staging and production', () => {
  it('apply --all-envs: each gets its own values, the only_in guide only staging; each re-plan is no changes', async () => {
    const apply = await cli(['apply', '--all-envs', '--auto-approve', 'guides.yaml']);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toMatch(/\nENVIRONMENT {2}APPLY\nstaging {6}applied\nproduction {3}applied\n$/);

    const s = await accountOf(staging);
    const p = await accountOf(production);
    expect(s.guides).toEqual(['alice_wx', 'qa_bot_wx']);
    expect(p.guides).toEqual(['alice_wx']);
    // The media id of the cover is shown by the service as its picture's URL.
    expect(s.card).toMatchObject({
      appid: 'wx1111111111111111',
      pic_url: expect.stringContaining('/STAGING_COVER/'),
    });
    expect(p.card).toMatchObject({
      appid: 'wx2222222222222222',
      pic_url: expect.stringContaining('/PROD_COVER/'),
    });

    for (const name of ['staging', 'production']) {
      const again = await cli(['plan', '--env', name, '--detailed-exitcode', 'guides.yaml']);
      expect(again.code, again.stdout + again.stderr).toBe(0);
      expect(again.stdout).toContain('No changes.');
    }
  });

  it('plan --all-envs, human, markdown and JSON: exit 2 with changes, 0 once both are applied', async () => {
    const human = await planAll();
    expect(human.code, human.stderr).toBe(2);
    const stagingAt = human.stdout.indexOf(
      `Environment staging: ${staging.url} (STAGING_APPID/STAGING_SECRET)\n`,
    );
    const productionAt = human.stdout.indexOf(
      `Environment production: ${production.url} (PROD_APPID/PROD_SECRET)\n`,
    );
    expect(stagingAt).toBe(0);
    expect(productionAt).toBeGreaterThan(stagingAt);
    expect(human.stdout.slice(stagingAt, productionAt)).toContain('wx1111111111111111');
    expect(human.stdout.slice(stagingAt, productionAt)).toContain('+ guide qa_bot_wx');
    expect(human.stdout.slice(productionAt)).toContain('wx2222222222222222');
    expect(human.stdout.slice(productionAt)).not.toContain('qa_bot_wx');
    expect(human.stdout).toMatch(
      /\nENVIRONMENT {2}ADD {2}CHANGE {2}DELETE {2}PLAN ID\nstaging {8}2 {7}0 {7}0 {2}[0-9a-f]{12}\nproduction {5}1 {7}0 {7}0 {2}[0-9a-f]{12}\n$/,
    );

    const markdown = await planAll('--markdown');
    expect(markdown.code, markdown.stderr).toBe(2);
    expect(markdown.stdout.startsWith('<!-- guidectl-plan -->\n**guidectl plan: 2 environments**\n')).toBe(
      true,
    );
    expect(markdown.stdout).toMatch(/\| staging \| `2` \| `0` \| `0` \| `[0-9a-f]{12}` \|/);
    expect(markdown.stdout).toMatch(/\| production \| `1` \| `0` \| `0` \| `[0-9a-f]{12}` \|/);

    const json = await planAll('--json');
    expect(json.code, json.stderr).toBe(2);
    const plans = JSON.parse(json.stdout);
    expect(plans.format_version).toBe(1);
    expect(Object.keys(plans.environments)).toEqual(['staging', 'production']);
    expect(plans.environments.staging.summary).toMatchObject({ add: 2, change: 0, delete: 0 });
    expect(plans.environments.production.summary).toMatchObject({ add: 1, change: 0, delete: 0 });

    expect((await cli(['apply', '--all-envs', '--auto-approve', 'guides.yaml'])).code).toBe(0);
    const done = await planAll();
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout.match(/No changes\./g)).toHaveLength(2);
    expect((await planAll('--markdown')).code).toBe(0);
    const doneJson = await planAll('--json');
    expect(doneJson.code).toBe(0);
    for (const plan of Object.values<{ summary: object }>(JSON.parse(doneJson.stdout).environments))
      expect(plan.summary).toMatchObject({ add: 0, change: 0, delete: 0 });
  });

  it("a staging saved plan is refused against production, and production's account stays empty", async () => {
    const plan = await cli(['plan', '--env', 'staging', '--out', 'p.json', 'guides.yaml']);
    expect(plan.code, plan.stderr).toBe(0);
    const refused = await cli(['apply', 'p.json', '--env', 'production', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('p.json was made for environment staging, not production');
    expect(refused.stderr).not.toContain(production.secret);
    expect(await accountOf(production)).toEqual({ guides: [] });
    expect(await accountOf(staging)).toEqual({ guides: [] });
  });

  // Last: it stops production's serve.
  it("production's serve stopped: plan --all-envs prints staging's plan, production's failure in its section, exit 1", async () => {
    await production.stop('SIGKILL');
    // --read-retry 0.001: a millisecond of retries for the refused connections, no backoff waited out.
    const human = await planAll('--read-retry', '0.001');
    expect(human.code).toBe(1);
    expect(human.stdout).toContain(`Environment staging: ${staging.url} (STAGING_APPID/STAGING_SECRET)\n`);
    expect(human.stdout).toContain('Plan: 2 to add');
    // Its target was resolved before it failed: the heading names it.
    expect(human.stdout).toContain(
      `\nEnvironment production: ${production.url} (PROD_APPID/PROD_SECRET)\n\nFailed: `,
    );
    expect(human.stdout).toMatch(
      /\nstaging {8}2 {7}0 {7}0 {2}[0-9a-f]{12}\nproduction {5}- {7}- {7}- {2}failed\n$/,
    );
    expect(human.stderr).toContain('guidectl: environment production: ');

    const json = await planAll('--json', '--read-retry', '0.001');
    expect(json.code).toBe(1);
    const plans = JSON.parse(json.stdout);
    expect(plans.environments.staging.summary).toMatchObject({ add: 2 });
    expect(plans.environments.production.error).toContain(`cannot connect to ${production.url}`);
  });
});
