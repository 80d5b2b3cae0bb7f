import { readFile } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/wire/json.js';
import { type CliRun, runCli, type ServiceTarget, useServiceTarget } from '../helpers/cli.js';
import { holdingGate } from '../helpers/holding-gate.js';

const SMALL_STORE = fileURLToPath(new URL('../../examples/small-store.yaml', import.meta.url));
const RETAIL_CHAIN = fileURLToPath(new URL('../../examples/retail-chain', import.meta.url));

const target = useServiceTarget({ reset: true });
const cli = (args: string[], on: ServiceTarget = target, extra: { answer?: string } = {}): Promise<CliRun> =>
  on.cli(args, extra);
const apply = (file: string, on: ServiceTarget = target): Promise<CliRun> =>
  cli(['apply', file, '--auto-approve'], on);

interface JsonPlan {
  summary: { add: number; change: number; delete: number; calls: number };
  calls: Array<{ operation: string; body: Record<string, unknown>; depends_on: number[] }>;
  changes: Array<{ resource: string; action: string; address: string }>;
  unmanaged: Array<{ resource: string; address: string }>;
}

async function jsonPlan(file: string, on: ServiceTarget = target): Promise<{ plan: JsonPlan; text: string }> {
  const run = await cli(['plan', file, '--json'], on);
  expect(run.code, run.stderr).toBe(0);
  return { plan: parseJson(run.stdout) as JsonPlan, text: run.stdout };
}

const guide = (account: string, extra = ''): string =>
  `  - account: ${account}\n    nickname: ${account.slice(0, 10)}\n    head_image_url: https://img.example/${account}\n${extra}`;

describe('apply then plan', () => {
  it('applies an example to an empty account, then plans no changes', async () => {
    const first = await apply(SMALL_STORE);
    expect(first.code, first.stderr + first.stdout).toBe(0);
    expect(first.stdout).toContain('Plan: ');
    expect(first.stdout).toContain('Converged: the account matches the files.');
    expect(first.stdout).toContain(
      'Invited 3 guides (alice_wx, bob_wx, openid oWx3t5e4R_6Tz0pA1b2C3d4E5f6G)',
    );
    const again = await cli(['plan', SMALL_STORE, '--detailed-exitcode']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes.');
  });

  it('applies a folder of files (the retail chain) and converges', async () => {
    const run = await apply(RETAIL_CHAIN);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const again = await jsonPlan(RETAIL_CHAIN);
    expect(again.plan.summary.calls).toBe(0);
  });

  it('plan makes no write call, and --detailed-exitcode says 2 when changes are pending', async () => {
    const run = await cli(['plan', SMALL_STORE, '--detailed-exitcode']);
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/Plan: \d+ to add/);
    const calls = target.service.calls();
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.filter((c) => c.writes)).toEqual([]);
  });
});

describe('guides', () => {
  it('creates, updates only what changed, and deletes only under prune', async () => {
    const file = await target.ws.write(
      'g.yaml',
      `version: 1\nguides:\n${guide('alice_wx')}${guide('bob_wxx')}`,
    );
    expect((await apply(file)).code).toBe(0);
    await target.ws.write(
      'g.yaml',
      `version: 1\nguides:\n${guide('alice_wx').replace('nickname: alice_wx', 'nickname: Alice')}`,
    );
    const { plan } = await jsonPlan(file);
    expect(plan.calls).toEqual([
      {
        operation: 'updateguideacct',
        body: { guide_account: 'alice_wx', guide_nickname: 'Alice' },
        depends_on: [],
        target: { kind: 'guide', address: 'alice_wx' },
      },
    ]);
    expect(plan.unmanaged).toEqual([{ resource: 'guide', address: 'bob_wxx' }]);
    const human = await cli(['plan', file]);
    expect(human.stdout).toContain('~ nickname: "alice_wx" → "Alice"');
    expect(human.stdout).toContain('Not in the files, left alone: 1 guide (bob_wxx)');

    await target.ws.write('g.yaml', `version: 1\nprune:\n  guides: true\nguides:\n${guide('alice_wx')}`);
    const pruned = await jsonPlan(file);
    expect(pruned.plan.calls.map((c) => [c.operation, c.body['guide_account']])).toEqual([
      ['delguideacct', 'bob_wxx'],
    ]);
    expect((await apply(file)).code).toBe(0);
    expect((await jsonPlan(file)).plan.summary.calls).toBe(0);
  });
});

describe('quick replies and welcome messages', () => {
  it('appends only the missing tail when the live list is a prefix, else deletes all and adds', async () => {
    const write = (replies: string[]) =>
      target.ws.write(
        'q.yaml',
        `version: 1\nguides:\n${guide('alice_wx', `    quick_replies: ${JSON.stringify(replies)}\n`)}`,
      );
    const file = await write(['a', 'b']);
    expect((await apply(file)).code).toBe(0);
    await write(['a', 'b', 'c', 'd']);
    const prefix = await jsonPlan(file);
    expect(prefix.plan.calls).toEqual([
      {
        operation: 'setguideconfig',
        body: {
          guide_account: 'alice_wx',
          is_delete: false,
          guide_fast_reply_list: [{ content: 'c' }, { content: 'd' }],
        },
        depends_on: [],
        target: { kind: 'guide', address: 'alice_wx' },
      },
    ]);
    expect((await apply(file)).code).toBe(0);
    await write(['b', 'a']);
    const rewrite = { plan: parseJson((await cli(['plan', file, '--json'])).stdout) as JsonPlan };
    expect(rewrite.plan.calls.map((c) => [c.body['is_delete'], c.body['guide_fast_reply_list']])).toEqual([
      [true, [{ content: 'a' }]],
      [false, [{ content: 'b' }, { content: 'a' }]],
    ]);
    expect(rewrite.plan.calls[1]?.depends_on).toEqual([0]);
    // c and d go: 2 of 4 quick replies removed.
    expect((await apply(file)).code).toBe(1);
    expect((await cli(['apply', file, '--auto-approve', '--allow-delete', 'quick_replies=2'])).code).toBe(0);
    await write([]);
    const emptied = parseJson((await cli(['plan', file, '--json'])).stdout) as JsonPlan;
    expect(emptied.calls.map((c) => c.body['is_delete'])).toEqual([true]);
    // Emptying the list removes both replies, of both live: the guard asks for an acknowledgement.
    const refused = await apply(file);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('pass --allow-delete quick_replies=2');
    expect((await cli(['apply', file, '--auto-approve', '--allow-delete', 'quick_replies=2'])).code).toBe(0);
    expect((await jsonPlan(file)).plan.summary.calls).toBe(0);
  });

  it('sets welcome messages with quick replies in one call, and deletes them', async () => {
    const welcome =
      '    quick_replies: [Hi]\n    welcome:\n      - text: Hello there\n      - miniprogram: {appid: wx1234567890abcdef, title: Shop, path: pages/index, media_id: COVER}\n';
    const file = await target.ws.write('w.yaml', `version: 1\nguides:\n${guide('alice_wx', welcome)}`);
    const { plan } = await jsonPlan(file);
    const config = plan.calls.filter((c) => c.operation === 'setguideconfig');
    expect(config).toHaveLength(1);
    expect(config[0]?.body).toMatchObject({
      is_delete: false,
      guide_fast_reply_list: [{ content: 'Hi' }],
      guide_auto_reply: { msgtype: 1, content: 'Hello there' },
      guide_auto_reply_plus: { msgtype: 3 },
    });
    expect((await apply(file)).code).toBe(0);
    expect((await jsonPlan(file)).plan.summary.calls).toBe(0);
    await target.ws.write('w.yaml', `version: 1\nguides:\n${guide('alice_wx', '    welcome: []\n')}`);
    // Both welcome messages of the two live go: the plan is refused unless acknowledged.
    expect((await cli(['plan', file])).stdout).toContain('refused: the plan removes 2 welcome messages');
    const del = { plan: parseJson((await cli(['plan', file, '--json'])).stdout) as JsonPlan };
    expect(del.plan.calls).toEqual([
      {
        operation: 'setguideconfig',
        body: { guide_account: 'alice_wx', is_delete: true, guide_auto_reply: { msgtype: 1 } },
        depends_on: [],
        target: { kind: 'guide', address: 'alice_wx' },
      },
    ]);
    expect((await apply(file)).code).toBe(1);
    expect((await cli(['apply', file, '--auto-approve', '--allow-delete', 'welcome_messages=2'])).code).toBe(
      0,
    );
    expect((await jsonPlan(file)).plan.summary.calls).toBe(0);
  });
});

describe('account settings', () => {
  const replacing = useServiceTarget({ settings: { sensitiveWords: 'replace' } });
  const account = (semantics: string, words: string[], offline = 'Back at 9') =>
    `version: 1\naccount:\n  offline_auto_reply: ${JSON.stringify(offline)}\n  sensitive_words:\n    semantics: ${semantics}\n    words: ${JSON.stringify(words)}\n  default_welcome:\n    - text: Welcome\n`;

  it('append: adds what is missing and deletes what is extra, then converges', async () => {
    const file = await target.ws.write('a.yaml', account('append', ['a', 'b']));
    expect((await apply(file)).code).toBe(0);
    await target.ws.write('a.yaml', account('append', ['b', 'c'], 'Closed'));
    const { plan } = await jsonPlan(file);
    expect(plan.calls.map((c) => [c.operation, c.body])).toEqual([
      [
        'setguideacctconfig',
        { is_delete: false, guide_auto_reply: { content: 'Closed' }, black_keyword: { values: ['c'] } },
      ],
      ['setguideacctconfig', { is_delete: true, black_keyword: { values: ['a'] } }],
    ]);
    expect((await apply(file)).code).toBe(0);
    expect((await jsonPlan(file)).plan.summary.calls).toBe(0);
  });

  it('deletes the offline reply with is_delete: true (a null guide_auto_reply changes nothing)', async () => {
    const file = await target.ws.write('a.yaml', account('append', ['a']));
    expect((await apply(file)).code).toBe(0);
    const text = account('append', ['a']).replace(
      'offline_auto_reply: "Back at 9"',
      'offline_auto_reply: null',
    );
    await target.ws.write('a.yaml', text);
    const { plan } = await jsonPlan(file);
    expect(plan.calls.map((c) => [c.operation, c.body])).toEqual([
      ['setguideacctconfig', { is_delete: true, guide_auto_reply: { content: 'Back at 9' } }],
    ]);
    expect((await apply(file)).code).toBe(0);
    expect((await jsonPlan(file)).plan.summary.calls).toBe(0);
  });

  it('replace: one call sets the set, and converges on a replacing target', async () => {
    const file = await target.ws.write('a.yaml', account('replace', ['a', 'b']));
    expect((await apply(file, replacing)).code).toBe(0);
    await target.ws.write('a.yaml', account('replace', ['b', 'c']));
    const { plan } = await jsonPlan(file, replacing);
    expect(plan.calls.map((c) => c.body['black_keyword'])).toEqual([{ values: ['b', 'c'] }]);
    expect((await apply(file, replacing)).code).toBe(0);
    expect((await jsonPlan(file, replacing)).plan.summary.calls).toBe(0);
  });

  it('stops with exit 1 and the fix when the file states the wrong semantics', async () => {
    await replacing.sim('reset');
    const file = await target.ws.write('a.yaml', account('append', ['a', 'b']));
    expect((await apply(file, replacing)).code).toBe(0);
    await target.ws.write('a.yaml', account('append', ['a', 'b', 'c']));
    const run = await apply(file, replacing);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Not converged: the target replaces the sensitive-word list');
    expect(run.stderr).toContain('Set semantics: replace under account.sensitive_words');
  });
});

describe('groups and memberships', () => {
  const groups = (members: string[], prune = false) =>
    `version: 1\n${prune ? 'prune:\n  groups: true\n' : ''}groups:\n  - name: Flagship\n    members: ${JSON.stringify(members)}\nguides:\n${guide('alice_wx')}${guide('bob_wxx')}${guide('carol_wx')}`;

  it('creates a group with members, then adds and removes members with the live 64-bit id', async () => {
    const file = await target.ws.write('g.yaml', groups(['alice_wx', 'bob_wxx']));
    const created = await jsonPlan(file);
    const member = created.plan.calls.find((c) => c.operation === 'addguide2guidegroup');
    expect(member?.body['group_id']).toEqual({ $group: 'Flagship' });
    expect((await apply(file)).code).toBe(0);

    await target.ws.write('g.yaml', groups(['bob_wxx', 'carol_wx']));
    const { plan, text } = await jsonPlan(file);
    expect(plan.calls.map((c) => [c.operation, c.body['guide_account']])).toEqual([
      ['addguide2guidegroup', 'carol_wx'],
      ['delguide2guidegroup', 'alice_wx'],
    ]);
    // The id is written as a bare JSON number of 19 digits, beyond 2^53, exactly as the service gave it.
    const id = /"group_id": ([0-9]+)/.exec(text)?.[1] ?? '';
    expect(id).toMatch(/^[0-9]{19}$/);
    expect(BigInt(id) > 2n ** 53n).toBe(true);
    const listed = await fetchGroupIds();
    expect(listed).toEqual([id]);
    expect((await apply(file)).code).toBe(0);
    expect((await jsonPlan(file)).plan.summary.calls).toBe(0);
  });

  it('leaves unknown live groups alone, and deletes them only under prune', async () => {
    const file = await target.ws.write('g.yaml', groups(['alice_wx']));
    expect((await apply(file)).code).toBe(0);
    await cli(['api', 'newguidegroup', '{"group_name": "Pop-up"}']);
    const kept = await jsonPlan(file);
    expect(kept.plan.unmanaged).toEqual([{ resource: 'group', address: 'Pop-up' }]);
    await target.ws.write('g.yaml', groups(['alice_wx'], true));
    const pruned = await jsonPlan(file);
    expect(pruned.plan.calls.map((c) => c.operation)).toEqual(['delguidegroup']);
    expect((await apply(file)).code).toBe(0);
    expect((await jsonPlan(file)).plan.summary.calls).toBe(0);
  });

  it('reconciles two live groups of one name instead of failing, naming the file position', async () => {
    await cli(['api', 'newguidegroup', '{"group_name": "Flagship"}']);
    await cli(['api', 'newguidegroup', '{"group_name": "Flagship"}']);
    const file = await target.ws.write('g.yaml', groups(['alice_wx']));
    const run = await cli(['plan', file]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /g\.yaml:3:5: warning: group "Flagship" matches 2 live groups; the plan keeps id/,
    );
    expect(run.stderr).toContain('[group-live-duplicates]');
  });

  it('refuses a member that is neither declared nor live', async () => {
    const file = await target.ws.write(
      'm.yaml',
      `version: 1\ngroups:\n  - name: G\n    members: [ghost_wx]\n`,
    );
    const run = await cli(['plan', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('[member-not-found]');
    expect(target.service.calls().filter((c) => c.writes)).toEqual([]);
  });
});

async function fetchGroupIds(): Promise<string[]> {
  const run = await cli(['api', 'getguidegrouplist']);
  return [...run.stdout.matchAll(/"id": ([0-9]+)/g)].map((m) => m[1] ?? '');
}

describe('export', () => {
  it('exports a file that validates and plans to no changes', async () => {
    expect((await apply(SMALL_STORE)).code).toBe(0);
    await cli(['api', 'newguidegroup', '{"group_name": "Extra"}']);
    const exported = await cli(['export', '-o', 'exported.yaml']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain('media_id cannot be read back');
    // The card's cover cannot be read back: its placeholder is refused by name, at its line.
    const placeholder = await runCli(['validate', 'exported.yaml'], { cwd: target.ws.dir });
    expect(placeholder.code).toBe(1);
    expect(placeholder.stdout).toMatch(
      /exported\.yaml:\d+:\d+: error: .*replace the placeholder with the media id of the card's cover/,
    );
    expect(placeholder.stdout).toContain('[media-id-placeholder]');
    const text = await readFile(nodePath.join(target.ws.dir, 'exported.yaml'), 'utf8');
    await target.ws.write('exported.yaml', text.replaceAll('UNKNOWN_MEDIA_ID', 'COVER'));
    const valid = await runCli(['validate', 'exported.yaml'], { cwd: target.ws.dir });
    expect(valid.code, valid.stdout).toBe(0);
    const plan = await jsonPlan('exported.yaml');
    expect(plan.plan.summary.calls).toBe(0);
    expect(plan.plan.unmanaged).toEqual([]);
  });
});

describe('a call failing for good mid-apply', () => {
  it('stops, reports every call, exits 1; a second apply converges once the cause is gone', async () => {
    await target.sim('miniprogram', { appid: 'wxaaaaaaaaaaaaaaaa', kind: 'miniprogram', linked: false });
    const card =
      '    welcome:\n      - miniprogram: {appid: wxaaaaaaaaaaaaaaaa, title: Shop, path: p, media_id: M}\n';
    const file = await target.ws.write(
      'f.yaml',
      `version: 1\ngroups:\n  - name: G\n    members: [alice_wx, bob_wxx]\nguides:\n${guide('alice_wx', card)}${guide('bob_wxx')}`,
    );
    const run = await apply(file);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/call #\d+ \(setguideconfig\) failed: 40168/);
    expect(run.stderr).not.toContain('setguideconfig failed:');
    expect(run.stdout).toMatch(/Apply: \d+ calls? done, 1 failed, \d+ not started/);
    expect(run.stdout).toMatch(/failed +#\d+ setguideconfig \(guide_account="alice_wx"\)/);
    expect(run.stdout).toContain('Still to do');

    await target.sim('miniprogram', { appid: 'wxaaaaaaaaaaaaaaaa', kind: 'miniprogram', linked: true });
    const second = await apply(file);
    expect(second.code, second.stdout).toBe(0);
    expect(second.stdout).toContain('Converged');
  });
});

describe('confirmation', () => {
  it('refuses without a terminal and without --auto-approve, and writes nothing', async () => {
    const run = await cli(['apply', SMALL_STORE]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--auto-approve');
    expect(target.service.calls().filter((c) => c.writes)).toEqual([]);
  });

  it('applies on "yes" and cancels on anything else', async () => {
    const no = await cli(['apply', SMALL_STORE], target, { answer: 'y' });
    expect(no.code).toBe(1);
    expect(no.stderr).toContain('cancelled');
    expect(target.service.calls().filter((c) => c.writes)).toEqual([]);
    const yes = await cli(['apply', SMALL_STORE], target, { answer: 'yes' });
    expect(yes.code).toBe(0);
  });
});

describe('--continue-on-error', () => {
  const small = useServiceTarget({ settings: { maxGuides: 1 } });

  it('goes on with independent calls and skips only what depends on the failed one', async () => {
    const replies = '    quick_replies: [Hi]\n';
    const file = await small.ws.write(
      'c.yaml',
      `version: 1\nguides:\n${guide('alice_wx', replies)}${guide('bob_wxx', replies)}`,
    );
    // Calls: 1 add alice, 2 add bob (9300812: the account holds one guide), 3 alice's replies, 4 bob's replies.
    const stop = await cli(['apply', file, '--auto-approve', '--parallelism', '1', '--no-adapt'], small);
    expect(stop.code).toBe(1);
    expect(stop.stdout).toContain('Apply: 1 call done, 1 failed, 2 not started (of 4).');
    expect(stop.stdout).toContain(
      '#3 setguideconfig (guide_account="alice_wx"): not started: apply stopped after a failed call',
    );

    const more = await cli(
      ['apply', file, '--auto-approve', '--parallelism', '1', '--no-adapt', '--continue-on-error'],
      small,
    );
    expect(more.code).toBe(1);
    expect(more.stdout).toContain('Apply: 1 call done, 1 failed, 1 not started (of 3).');
    // The operation once: the client's reason ("addguideacct failed: 9300812 …") without its name.
    expect(more.stdout).toMatch(/failed +#1 addguideacct \(guide_account="bob_wxx"\): 9300812/);
    expect(more.stdout).not.toContain('addguideacct failed:');
    expect(more.stdout).toContain(
      '#3 setguideconfig (guide_account="bob_wxx"): not started: it depends on call #1 addguideacct (index 0)',
    );
  });
});

describe('colour', () => {
  it('colours the plan on a terminal, and never with NO_COLOR or without a terminal', async () => {
    const env = target.env();
    const args = ['plan', SMALL_STORE, '--base-url', target.service.url];
    const tty = await runCli(args, { env, cwd: target.ws.dir, tty: true });
    expect(tty.stdout).toContain('\u001b[32m+\u001b[39m');
    const noColor = await runCli(args, { env: { ...env, NO_COLOR: '1' }, cwd: target.ws.dir, tty: true });
    expect(noColor.stdout).not.toContain('\u001b[');
    const pipe = await runCli(args, { env, cwd: target.ws.dir });
    expect(pipe.stdout).not.toContain('\u001b[');
  });
});

describe('interruption (Ctrl-C)', () => {
  it('stops apply: nothing new starts, every call is reported, exit 1; a second apply finishes', async () => {
    // Ctrl-C while the first write is on the wire (held at the gate until then; one call at a
    // time, so no other is), which is then let finish.
    const gate = await holdingGate(target.service.url, 'addguideacct');
    const stop = new AbortController();
    void gate.held.then(() => {
      stop.abort();
      void gate.answer();
    });
    try {
      const args = ['apply', SMALL_STORE, '--auto-approve', '--parallelism', '1', '--no-adapt'];
      const run = await target.cli(args, { baseUrl: gate.url, stop: stop.signal });
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('Interrupted');
      expect(run.stdout).toMatch(/not started: apply was interrupted/);
      // The calls in flight were let finish, not cut: none failed, none has an unknown outcome.
      expect(run.stderr).toContain('guidectl: stopping');
      expect(run.stdout).toMatch(/Apply: \d+ calls? done, 0 failed/);
    } finally {
      gate.close();
    }
    const again = await cli(['apply', SMALL_STORE, '--auto-approve']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('Converged');
  });
});
