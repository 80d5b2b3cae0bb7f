import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../src/wire/json.js';
import { type CliRun, runCli, useServiceTarget } from '../helpers/cli.js';

/**
 * Safe in CI, end to end: the CLI in-process against the real service over HTTP. Saved plans
 * (applied as is, refused when stale or edited), plan ids, the deletion guards, protection,
 * drift checks and the markdown comment body.
 */

const target = useServiceTarget({ reset: true });
const service = () => target.service;
const ws = () => target.ws;
const cli = target.cli;

async function api(operation: string, body: object): Promise<void> {
  const run = await cli(['api', operation, stringifyJson(body)]);
  expect(run.code, run.stderr).toBe(0);
}

const writes = (): string[] =>
  service()
    .calls()
    .filter((c) => c.writes)
    .map((c) => c.operation);

async function applied(file: string, ...extra: string[]): Promise<CliRun> {
  const run = await cli(['apply', file, '--auto-approve', ...extra]);
  expect(run.code, run.stderr + run.stdout).toBe(0);
  return run;
}

const guide = (account: string, extra = ''): string =>
  `  - account: ${account}\n    nickname: ${account.slice(0, 10)}\n    head_image_url: https://img.example/${account}\n${extra}`;

const guides = (accounts: string[]): string => accounts.map((a) => guide(a)).join('');

const names = (n: number, from = 0): string[] =>
  Array.from({ length: n }, (_, i) => `guide_${String(i + from).padStart(3, '0')}`);

const planIdOf = (run: CliRun): string => /^Plan id: ([0-9a-f]{12})$/m.exec(run.stdout)?.[1] ?? '';

const STORE = `version: 1\ngroups:\n  - name: Flagship\n    members: [alice_wx, bob_wxx]\nguides:\n${guides(['alice_wx', 'bob_wxx'])}`;
const STORE_2 =
  STORE.replace('nickname: alice_wx', 'nickname: Alice').replace(
    'members: [alice_wx, bob_wxx]',
    'members: [alice_wx, bob_wxx, carol_wx]',
  ) + guide('carol_wx');

describe('saved plans: apply exactly what was reviewed', () => {
  it('saves the plan with its id and digests and no secret, and applies it as is without the files', async () => {
    const file = await ws().write('g.yaml', STORE);
    const plan = await cli(['plan', 'g.yaml', '--out', 'plan.json']);
    expect(plan.code, plan.stderr).toBe(0);
    const id = planIdOf(plan);
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(plan.stdout).toContain('Saved the plan to plan.json');
    expect(writes()).toEqual([]);

    const text = await readFile(join(ws().dir, 'plan.json'), 'utf8');
    const saved = parseJson(text) as Record<string, unknown>;
    expect(saved).toMatchObject({ format_version: 4, kind: 'guidectl-plan', plan_id: id, paths: ['g.yaml'] });
    expect(saved['desired_digest']).toMatch(/^[0-9a-f]{64}$/);
    expect(saved['live_digest']).toMatch(/^[0-9a-f]{64}$/);
    expect(text).not.toContain(service().credentials.secret);
    // The target names the credentials' variables (WECHAT_SECRET), never their values.
    expect(text.replaceAll('WECHAT_SECRET', '')).not.toMatch(/access_token|secret/i);
    const calls = (saved['calls'] as Array<{ operation: string }>).map((c) => c.operation);

    // The plan needs no YAML: apply it with the files gone, and it makes exactly its calls.
    await rm(file);
    service().resetCalls();
    const run = await cli(['apply', 'plan.json']);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stderr).toContain('are not here; only the account is checked');
    expect(run.stdout).toContain(`Plan id: ${id}`);
    expect(run.stdout).toMatch(/Apply: 5 calls done, 0 failed/);
    expect(writes().sort()).toEqual([...calls].sort());
    expect(calls).toEqual([
      'newguidegroup',
      'addguideacct',
      'addguideacct',
      'addguide2guidegroup',
      'addguide2guidegroup',
    ]);

    await ws().write('g.yaml', STORE);
    const again = await cli(['plan', 'g.yaml', '--expect-no-changes']);
    expect(again.code, again.stdout).toBe(0);
  });

  it('checks the files it was made from when they are there, and converges', async () => {
    await ws().write('g.yaml', STORE);
    expect((await cli(['plan', 'g.yaml', '--out', 'plan.json'])).code).toBe(0);
    const run = await cli(['apply', 'plan.json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('not here');
    expect(run.stdout).toContain('Converged: the account matches the files.');
  });

  it('applied from another folder than plan ran in: says so, naming that folder and the commands that work; nothing changed', async () => {
    await mkdir(join(ws().dir, 'repo'));
    await mkdir(join(ws().dir, 'other'));
    await ws().write('repo/g.yaml', STORE);
    await ws().write('other/x.yaml', 'version: 1\n');
    const from = (dir: string, args: string[]) =>
      runCli([...args, '--base-url', service().url], { env: target.env(), cwd: join(ws().dir, dir) });
    expect((await from('repo', ['plan', '.', '--out', 'plan.json'])).code).toBe(0);
    service().resetCalls();
    // From a folder of other files, and from the folder above (no files): the same cause.
    for (const [dir, plan, there] of [
      ['other', '../repo/plan.json', '../repo'],
      ['.', 'repo/plan.json', 'repo'],
    ] as const) {
      const run = await from(dir, ['apply', plan]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        `guidectl: ${plan} was made in another folder, ${there}: the paths it recorded (.) are relative to the folder plan ran in, ` +
          'and from here they are not the files it was made from. Nothing was read or changed. ' +
          `Run apply there: cd ${there} && guidectl apply plan.json; or give the files after the plan: guidectl apply ${plan} ${there}\n`,
      );
    }
    // A plan copied away from its folder cannot be told from files with errors: the cause is named as possible.
    await writeFile(join(ws().dir, 'plan.json'), await readFile(join(ws().dir, 'repo', 'plan.json')));
    const copied = await from('.', ['apply', 'plan.json']);
    expect(copied.code).toBe(1);
    expect(copied.stderr).toContain(
      'guidectl: the files plan.json was made from (.) have errors now (its paths are relative to the folder plan ran in: if it was made in another folder, run apply there, or give the files after the plan)\n',
    );
    expect(service().calls()).toEqual([]);
    // The command it names applies the plan.
    const run = await from('other', ['apply', '../repo/plan.json', '../repo']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Converged: the account matches the files.');
  });

  it('a plan that recorded file names, applied from the folder above: refused with the commands that work; nothing read or changed', async () => {
    await mkdir(join(ws().dir, 'repo'));
    await ws().write('repo/small-store.yaml', STORE);
    const from = (dir: string, args: string[]) =>
      runCli([...args, '--base-url', service().url], { env: target.env(), cwd: join(ws().dir, dir) });
    expect((await from('repo', ['plan', 'small-store.yaml', '--out', 'p.json'])).code).toBe(0);
    service().resetCalls();
    const run = await from('.', ['apply', 'repo/p.json']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'guidectl: repo/p.json was made in another folder, repo: the paths it recorded (small-store.yaml) are relative to the folder plan ran in, ' +
        'and from here they are not the files it was made from. Nothing was read or changed. ' +
        'Run apply there: cd repo && guidectl apply p.json; or give the files after the plan: guidectl apply repo/p.json repo/small-store.yaml\n',
    );
    expect(service().calls()).toEqual([]);
    // Both commands it names apply the plan, checking the files.
    const there = await from('repo', ['apply', 'p.json']);
    expect(there.code, there.stderr).toBe(0);
    expect(there.stdout).toContain('Converged: the account matches the files.');
  });

  it('refuses a stale plan after a change to the live state made through the API, showing what changed', async () => {
    await ws().write('g.yaml', STORE);
    await applied('g.yaml');
    await ws().write('g.yaml', STORE_2);
    const plan = await cli(['plan', 'g.yaml', '--out', 'plan.json']);
    expect(plan.code).toBe(0);
    const id = planIdOf(plan);

    // Someone changes the account between plan and apply.
    await api('updateguideacct', { guide_account: 'bob_wxx', guide_nickname: 'Robert' });
    await api('addguideacct', {
      guide_account: 'dave_wxx',
      guide_nickname: 'Dave',
      guide_headimgurl: 'https://img.example/d',
    });
    service().resetCalls();
    const run = await cli(['apply', 'plan.json', '--auto-approve']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `plan is stale: the live state changed since plan ${id} was made; nothing was changed.`,
    );
    expect(run.stderr).toContain('~ guide bob_wxx (changed)');
    expect(run.stderr).toContain('+ guide dave_wxx (added)');
    expect(run.stderr).toMatch(/A plan made now \(id [0-9a-f]{12}\) differs from the saved one:/);
    expect(run.stderr).toContain('+ updateguideacct (guide_account="bob_wxx")');
    expect(writes()).toEqual([]);
  });

  it('refuses a stale plan when the files changed since it was made', async () => {
    await ws().write('g.yaml', STORE);
    expect((await cli(['plan', 'g.yaml', '--out', 'plan.json'])).code).toBe(0);
    await ws().write('g.yaml', STORE_2);
    const run = await cli(['apply', 'plan.json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('plan is stale: the files (g.yaml) changed since plan');
    expect(run.stderr).toContain('+ addguideacct (guide_account="carol_wx")');
    expect(writes()).toEqual([]);
    // Files given next to the plan are checked in place of the recorded ones.
    await ws().write('other.yaml', STORE);
    const explicit = await cli(['apply', 'plan.json', 'other.yaml']);
    expect(explicit.code, explicit.stderr).toBe(0);
  });

  it('a reformatted file is not a change', async () => {
    await ws().write('g.yaml', STORE);
    expect((await cli(['plan', 'g.yaml', '--out', 'plan.json'])).code).toBe(0);
    await ws().write(
      'g.yaml',
      `# reordered and reformatted\nguides:\n${guides(['bob_wxx', 'alice_wx'])}\nversion: 1\ngroups:\n  - {name: Flagship, members: [bob_wxx, alice_wx]}\n`,
    );
    const run = await cli(['apply', 'plan.json']);
    expect(run.code, run.stderr).toBe(0);
  });

  it('refuses a saved plan that was edited, damaged, or is not a saved plan', async () => {
    await ws().write('g.yaml', STORE);
    expect((await cli(['plan', 'g.yaml', '--out', 'plan.json'])).code).toBe(0);
    const text = await readFile(join(ws().dir, 'plan.json'), 'utf8');

    await writeFile(
      join(ws().dir, 'edited.json'),
      text.replace('"guide_account": "bob_wxx"', '"guide_account": "eve_wxxx"'),
    );
    const edited = await cli(['apply', 'edited.json']);
    expect(edited.code).toBe(1);
    expect(edited.stderr).toMatch(
      /edited\.json: it does not match its plan id: its calls, changes, digests, read scope, safety settings, protections and target hash to [0-9a-f]{12}, the file says/,
    );

    await writeFile(join(ws().dir, 'cut.json'), text.slice(0, 200));
    expect((await cli(['apply', 'cut.json'])).stderr).toContain('cut.json is not valid JSON');

    await writeFile(join(ws().dir, 'newer.json'), text.replace('"format_version": 4', '"format_version": 5'));
    expect((await cli(['apply', 'newer.json'])).stderr).toContain(
      'format_version 5 is newer than this guidectl reads',
    );
    // Plans of earlier formats: their ids did not cover the changes shown, or the target, so
    // they are made again.
    for (const [version, uncovered] of [
      [1, 'the changes it shows, so they could have been edited'],
      [2, 'the changes it shows, so they could have been edited'],
      [
        3,
        'the target it was made against (a plan of files without environments could be applied to any account)',
      ],
    ] as const) {
      await writeFile(
        join(ws().dir, 'older.json'),
        text.replace('"format_version": 4', `"format_version": ${version}`),
      );
      const older = await runCli(['show', 'older.json'], { cwd: ws().dir });
      expect(older.code).toBe(1);
      expect(older.stderr).toContain(
        `older.json: it was made by an earlier guidectl (format_version ${version}), whose plan id did not cover ${uncovered}; make the plan again with guidectl plan --out FILE`,
      );
    }

    const json = await cli(['plan', 'g.yaml', '--json']);
    await writeFile(join(ws().dir, 'p.json'), json.stdout);
    expect((await cli(['apply', 'p.json'])).stderr).toContain('not a saved plan: its "kind" is null');

    expect((await cli(['apply', 'missing.json'])).stderr).toContain('missing.json: no such file');
    expect(writes()).toEqual([]);
  });

  it('--out names a .json file', async () => {
    await ws().write('g.yaml', STORE);
    const run = await cli(['plan', 'g.yaml', '--out', 'plan.out']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('name the file *.json');
  });

  it('--out is never one of the files the plan is made from, named or through a link: refused, the file left as it was', async () => {
    const json = JSON.stringify({
      version: 1,
      guides: [{ account: 'alice_wx', nickname: 'Alice', head_image_url: 'https://img.example/a' }],
    });
    await ws().write('desired.json', json);
    await mkdir(join(ws().dir, 'guides'));
    await ws().write('guides/a.yaml', STORE);
    await symlink('desired.json', join(ws().dir, 'link.json'));
    await symlink(join('guides', 'a.yaml'), join(ws().dir, 'into-folder.json'));
    const made =
      'the plan is made from: the saved plan would overwrite it. Name another file, e.g. --out plan.json';
    for (const [args, message] of [
      [
        ['desired.json', '--out', 'desired.json'],
        `--out desired.json is desired.json, one of the files ${made}`,
      ],
      [
        ['desired.json', '--out', './link.json'],
        `--out ./link.json leads to desired.json, one of the files ${made}`,
      ],
      [
        ['guides', '--out', 'into-folder.json'],
        `--out into-folder.json leads to ${join('guides', 'a.yaml')}, one of the files ${made}`,
      ],
    ] as const) {
      const run = await cli(['plan', ...args]);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`guidectl: ${message}\n`);
    }
    expect(await readFile(join(ws().dir, 'desired.json'), 'utf8')).toBe(json);
    expect(await readFile(join(ws().dir, 'guides', 'a.yaml'), 'utf8')).toBe(STORE);
    expect(service().calls()).toEqual([]);
  });
});

describe('plan ids', () => {
  it('the same plan has the same id in text and JSON; apply --plan-id refuses a mismatch and accepts a match', async () => {
    await ws().write('g.yaml', STORE);
    const human = await cli(['plan', 'g.yaml']);
    const id = planIdOf(human);
    const json = await cli(['plan', 'g.yaml', '--json']);
    expect((parseJson(json.stdout) as { plan_id: string }).plan_id).toBe(id);
    expect(planIdOf(await cli(['plan', 'g.yaml']))).toBe(id);

    const wrong = await cli(['apply', 'g.yaml', '--auto-approve', '--plan-id', '0123456789ab']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`refused: the plan made now has id ${id}, not 0123456789ab (--plan-id)`);
    expect(wrong.stderr).toContain('nothing was changed');
    expect(writes()).toEqual([]);

    const bad = await cli(['apply', 'g.yaml', '--plan-id', 'nope']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--plan-id takes the 12 hex digits');

    const ok = await cli(['apply', 'g.yaml', '--auto-approve', '--plan-id', id]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('Converged');
  });

  it('apply PLAN.json --plan-id checks the saved id', async () => {
    await ws().write('g.yaml', STORE);
    const plan = await cli(['plan', 'g.yaml', '--out', 'plan.json']);
    const run = await cli(['apply', 'plan.json', '--plan-id', 'ffffffffffff']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`plan.json holds plan ${planIdOf(plan)}, not ffffffffffff`);
    expect(writes()).toEqual([]);
  });

  it('--plan-id in upper case is the same id (a plan id is hex): a match applies, a mismatch shows it in lower case', async () => {
    await ws().write('g.yaml', STORE);
    const id = planIdOf(await cli(['plan', 'g.yaml']));
    expect((await cli(['plan', 'g.yaml', '--out', 'plan.json'])).code).toBe(0);
    const savedWrong = await cli(['apply', 'plan.json', '--plan-id', 'ABCDEF012345']);
    expect(savedWrong.stderr).toContain(`plan.json holds plan ${id}, not abcdef012345 (--plan-id)`);
    const saved = await cli(['apply', 'plan.json', '--plan-id', id.toUpperCase()]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toContain('Converged');
    const idNow = planIdOf(await cli(['plan', 'g.yaml']));
    const files = await cli(['apply', 'g.yaml', '--auto-approve', '--plan-id', idNow.toUpperCase()]);
    expect(files.code, files.stderr).toBe(0);
  });
});

describe('deletion guards', () => {
  const FORTY = names(40);
  const keep = (n: number, safety = '') =>
    `version: 1\n${safety}prune:\n  guides: true\nguides:\n${guides(FORTY.slice(0, 40 - n))}`;

  beforeEach(async () => {
    await ws().write('all.yaml', `version: 1\nguides:\n${guides(FORTY)}`);
    await applied('all.yaml');
    service().resetCalls();
  });

  it('lets 10 of 40 guides go (the threshold), refuses 11, and --allow-delete lets exactly the allowed count through', async () => {
    await ws().write('g.yaml', keep(10));
    const ten = await cli(['plan', 'g.yaml']);
    expect(ten.code, ten.stderr).toBe(0);
    expect(ten.stdout).toContain('ok: the plan deletes 10 guides (of 40 live); the limit is 10');

    await ws().write('g.yaml', keep(11));
    const eleven = await cli(['plan', 'g.yaml', '--detailed-exitcode']);
    expect(eleven.code).toBe(1);
    expect(eleven.stdout).toContain(
      'refused: the plan deletes 11 guides (of 40 live); the limit is 10 (the smaller of 10 and 25% of live guides). To allow exactly these deletions, pass --allow-delete guides=11.',
    );
    expect(eleven.stdout).toContain('Plan: 0 to add, 0 to change, 11 to delete');
    expect(eleven.stderr).toContain('refused by a deletion guard');
    const json = await cli(['plan', 'g.yaml', '--json']);
    expect(json.code).toBe(1);
    expect(
      (parseJson(json.stdout) as { guards: Array<{ kind: string; status: string }> }).guards[0],
    ).toMatchObject({
      kind: 'guides',
      status: 'refused',
    });
    expect(json.stderr).toContain('guidectl: refused: the plan deletes 11 guides');

    const refused = await cli(['apply', 'g.yaml', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('apply refused; nothing was changed');
    const tooFew = await cli(['apply', 'g.yaml', '--auto-approve', '--allow-delete', 'guides=10']);
    expect(tooFew.code).toBe(1);
    expect(tooFew.stderr).toContain('--allow-delete guides=10 allows at most 10');
    expect(writes()).toEqual([]);

    // A refused plan is still saved; applying it needs the acknowledgement then.
    const saved = await cli(['plan', 'g.yaml', '--out', 'plan.json']);
    expect(saved.code).toBe(1);
    expect((await cli(['apply', 'plan.json'])).code).toBe(1);
    expect(writes()).toEqual([]);

    const allowed = await cli(['apply', 'plan.json', '--allow-delete', 'guides=11']);
    expect(allowed.code, allowed.stderr + allowed.stdout).toBe(0);
    expect(allowed.stdout).toContain(
      'allowed: the plan deletes 11 guides (of 40 live), above the limit of 10',
    );
    expect(writes()).toEqual(Array(11).fill('delguideacct'));
  });

  it('takes limits from the file, flags over the file, and carries them in a saved plan', async () => {
    await ws().write(
      'g.yaml',
      keep(12, 'safety:\n  max_deletes:\n    guides: 12\n  max_delete_share: 0.5\n'),
    );
    const plan = await cli(['plan', 'g.yaml', '--out', 'plan.json']);
    expect(plan.code, plan.stdout).toBe(0);
    expect(plan.stdout).toContain(
      'ok: the plan deletes 12 guides (of 40 live); the limit is 12 (the smaller of 12 (safety.max_deletes.guides) and 50% (safety.max_delete_share) of live guides).',
    );
    const flagged = await cli(['plan', 'g.yaml', '--max-deletes', 'guides=5']);
    expect(flagged.code).toBe(1);
    expect(flagged.stdout).toContain('the limit is 5 (the smaller of 5 (--max-deletes guides=5)');

    // The saved plan keeps the file's limits; a flag given now can still tighten them.
    const tight = await cli(['apply', 'plan.json', '--max-delete-share', '10%']);
    expect(tight.code).toBe(1);
    expect(tight.stderr).toContain('refused: the plan deletes 12 guides (of 40 live); the limit is 4');
    expect(writes()).toEqual([]);
    const run = await cli(['apply', 'plan.json']);
    expect(run.code, run.stderr).toBe(0);
    expect(writes()).toHaveLength(12);
  });

  it('refuses a bad flag value with the form it takes', async () => {
    await ws().write('g.yaml', keep(1));
    const run = await cli(['plan', 'g.yaml', '--allow-delete', 'guide=3']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      '--allow-delete takes KIND=N, where KIND is one of guides, groups, memberships, tasks, words, quick_replies, welcome_messages, offline_replies and N a whole number',
    );
    // The error and where the options are, not the whole help.
    expect(run.stderr.trimEnd().split('\n').at(-1)).toBe("Run 'guidectl plan --help' for its options.");
    expect(run.stderr).not.toContain('Usage:');
    const share = await cli(['plan', 'g.yaml', '--max-delete-share', '2']);
    expect(share.stderr).toContain('--max-delete-share takes a share from 0 to 1');
  });
});

describe('memberships guard', () => {
  it('counts removals against the live members of the groups the files manage', async () => {
    const members = names(12);
    const group = (list: string[]) =>
      `version: 1\ngroups:\n  - name: Big\n    members: [${list.join(', ')}]\nguides:\n${guides(members)}`;
    await ws().write('g.yaml', group(members));
    await applied('g.yaml');
    // 12 live memberships: 25% is 3.
    await ws().write('g.yaml', group(members.slice(3)));
    expect((await cli(['plan', 'g.yaml'])).code).toBe(0);
    await ws().write('g.yaml', group(members.slice(4)));
    const run = await cli(['plan', 'g.yaml']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      'refused: the plan deletes 4 memberships (of 12 live); the limit is 3 (the smaller of 10 and 25% of live memberships). To allow exactly these deletions, pass --allow-delete memberships=4.',
    );
    expect((await cli(['plan', 'g.yaml', '--allow-delete', 'memberships=4'])).code).toBe(0);

    // Saved with the live 64-bit group id as a bare number, and applied with it intact.
    expect(
      (await cli(['plan', 'g.yaml', '--out', 'plan.json', '--allow-delete', 'memberships=4'])).code,
    ).toBe(0);
    const text = await readFile(join(ws().dir, 'plan.json'), 'utf8');
    expect(text).toMatch(/"group_id": [0-9]{19}\b/);
    service().resetCalls();
    // The acknowledgement given to plan is not saved: apply needs its own.
    expect((await cli(['apply', 'plan.json'])).code).toBe(1);
    expect(writes()).toEqual([]);
    const result = await cli(['apply', 'plan.json', '--allow-delete', 'memberships=4']);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(writes()).toEqual(Array(4).fill('delguide2guidegroup'));
    expect(result.stdout).toContain('Converged');
  });
});

describe('protected guides and groups', () => {
  const BASE = `version: 1\ngroups:\n  - name: Flagship\n    members: [alice_wx, bob_wxx]\n  - name: Outlet\n    members: [carol_wx]\nguides:\n${guide('alice_wx', '    protected: true\n')}${guides(['bob_wxx', 'carol_wx'])}`;

  beforeEach(async () => {
    await ws().write('g.yaml', BASE);
    await applied('g.yaml');
    service().resetCalls();
  });

  async function liveGuides(): Promise<string[]> {
    const run = await cli(['api', 'getguideacctlist', '{"page": 0, "num": 100}']);
    return [...run.stdout.matchAll(/"guide_account": "([^"]+)"/g)].map((m) => m[1] ?? '').sort();
  }

  it('survive a file that drops them: deleting one by prune is a plan error, and nothing is deleted', async () => {
    await ws().write(
      'g.yaml',
      `version: 1\nprotect:\n  guides: [alice_wx]\n  groups: [Outlet]\nprune:\n  guides: true\n  groups: true\nguides:\n${guide('bob_wxx')}`,
    );
    const plan = await cli(['plan', 'g.yaml']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(
      /g\.yaml:3:12: error: guide alice_wx is protected, but the plan would delete it: it is live, not under guides:, and prune\.guides is on \[protected-guide-delete\]/,
    );
    expect(plan.stderr).toMatch(
      /g\.yaml:4:12: error: group "Outlet" is protected, but the plan would delete it.*\[protected-group-delete\]/,
    );
    // Flagship holds alice_wx: deleting it would take her out of it.
    expect(plan.stderr).toMatch(
      /g\.yaml:3:12: error: guide alice_wx is protected, but the plan would delete group "Flagship".*\[protected-member-remove\]/,
    );
    const apply = await cli(['apply', 'g.yaml', '--auto-approve', '--allow-delete', 'guides=2,groups=2']);
    expect(apply.code).toBe(1);
    expect(writes()).toEqual([]);
    expect(await liveGuides()).toEqual(['alice_wx', 'bob_wxx', 'carol_wx']);
  });

  it('are never removed from their groups, whatever the members list says', async () => {
    await ws().write('g.yaml', BASE.replace('members: [alice_wx, bob_wxx]', 'members: [bob_wxx]'));
    const plan = await cli(['plan', 'g.yaml']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(
      /g\.yaml:3:5: error: guide alice_wx is protected, but the members of group "Flagship" leave it out, so the plan would remove it from the group \[protected-member-remove\]/,
    );
    expect(writes()).toEqual([]);
  });

  it('may still change, and unprotected guides may still go', async () => {
    await ws().write(
      'g.yaml',
      `version: 1\nprune:\n  guides: true\ngroups:\n  - name: Flagship\n    members: [alice_wx]\nguides:\n${guide('alice_wx', '    protected: true\n').replace('nickname: alice_wx', 'nickname: Alice')}`,
    );
    const run = await cli(['apply', 'g.yaml', '--auto-approve', '--allow-delete', 'guides=2']);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(await liveGuides()).toEqual(['alice_wx']);
  });

  it('warns about a protection that names nothing', async () => {
    await ws().write('g.yaml', `${BASE}protect:\n  guides: [alcie_wx]\n`);
    const run = await cli(['plan', 'g.yaml']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /warning: protected guide alcie_wx is neither in the files nor live.*\[protected-not-found\]/,
    );
  });
});

describe('drift checks', () => {
  it('--expect-no-changes exits 0 when in sync, and 1 printing what drifted', async () => {
    await ws().write('g.yaml', STORE);
    await applied('g.yaml');
    const clean = await cli(['plan', 'g.yaml', '--expect-no-changes']);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain('No changes.');

    await api('updateguideacct', { guide_account: 'alice_wx', guide_nickname: 'Changed' });
    const drift = await cli(['plan', 'g.yaml', '--expect-no-changes']);
    expect(drift.code).toBe(1);
    expect(drift.stdout).toContain('~ nickname: "Changed" → "alice_wx"');
    expect(drift.stderr).toContain(
      'guidectl: drift: the account differs from the files (1 change, 1 API call to bring it back); expected no changes',
    );
    const md = await cli(['plan', 'g.yaml', '--expect-no-changes', '--markdown']);
    expect(md.code).toBe(1);
    expect(md.stdout).toContain('**Drift:**');

    const both = await cli(['plan', 'g.yaml', '--expect-no-changes', '--detailed-exitcode']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('give one');
  });
});

describe('plan --markdown', () => {
  it('writes a comment body: marker, summary, plan id, table, details', async () => {
    await ws().write('g.yaml', STORE);
    const run = await cli(['plan', 'g.yaml', '--markdown']);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('<!-- guidectl-plan -->');
    expect(lines[1]).toBe('**Plan: 3 to add, 0 to change, 0 to delete (5 API calls).**');
    expect(run.stdout).toMatch(/Plan id: `[0-9a-f]{12}`/);
    expect(run.stdout).toContain('| guides | 2 | 0 | 0 |');
    expect(run.stdout).toContain('<details><summary>Details: 3 changes, 5 API calls</summary>');
    expect(run.stdout).toContain('```diff\n+ group Flagship\n');
    expect((await cli(['plan', 'g.yaml', '--format', 'markdown'])).stdout).toBe(run.stdout);
    expect((await cli(['plan', 'g.yaml', '--json', '--markdown'])).stderr).toContain(
      'choose one output format',
    );
  });

  it('says why there is no plan when the files have errors, still as a comment', async () => {
    await ws().write(
      'bad.yaml',
      'version: 1\nguides:\n  - account: alice_wx\n    nickname: 12345678901234567\n',
    );
    const run = await cli(['plan', 'bad.yaml', '--markdown']);
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n').slice(0, 2)).toEqual([
      '<!-- guidectl-plan -->',
      '**guidectl plan failed: the files have errors**',
    ]);
    expect(run.stdout).toContain('bad.yaml:4:15: error:');
  });
});
