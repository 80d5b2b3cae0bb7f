import { access, chmod, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/wire/json.js';
import { type CaptureOptions, runCli, useServiceTarget } from '../helpers/cli.js';
import { guideBody, simCall } from '../helpers/service.js';
import { spawnCli } from '../helpers/spawn.js';

// guidectl tasks | qrcode | chats | path-menu, end to end: the CLI in-process against the real
// service over HTTP on 127.0.0.1, the service's clock set by /__sim/clock.

const target = useServiceTarget({ reset: true });
/** 2027-01-10 02:00:00 UTC: 10:00 in Shanghai. */
const NOW = Date.UTC(2027, 0, 10, 2, 0, 0) / 1000;
const SHANGHAI = { TZ: 'Asia/Shanghai' };

const sim = (verb: string, body: unknown = {}) => simCall(target.service.url, verb, body);
/** guidectl ARGS against the service, in Shanghai time unless `env` says otherwise. */
/** Runs guidectl against the service, by the service's clock (NOW) unless `options` says otherwise. */
function cli(args: readonly string[], env: Record<string, string> = SHANGHAI, options: CaptureOptions = {}) {
  return runCli([...args, '--base-url', target.service.url], {
    env: { ...target.env(), ...env },
    cwd: target.ws.dir,
    now: () => NOW * 1000,
    ...options,
  });
}

async function addTask(guide: Record<string, string>, name: string, pushTime: number, openids: string[]) {
  const answer = await target.ok('addguidemassendjob', {
    ...guide,
    task_name: name,
    push_time: pushTime,
    openid: openids,
    material: [{ type: 1, word: 'Hello' }],
  });
  const result = answer['task_result'] as Array<{ task_id: bigint }>;
  return String(result[0]?.task_id);
}

/** Files of the workspace whose names start with a dot: an export's hidden copy, left behind. */
const hiddenFiles = async (): Promise<string[]> =>
  (await readdir(target.ws.dir)).filter((name) => name.startsWith('.'));

function noStack(stderr: string): void {
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(stderr).not.toContain('internal error');
}

beforeEach(async () => {
  await sim('clock', { set: NOW });
  await target.ok('addguideacct', guideBody('alice_wx'));
  await target.ok('addguideacct', guideBody('bob_wx'));
  await target.ok('addguideacct', {
    ...guideBody('x'),
    guide_account: undefined,
    guide_openid: 'oGuideCarol',
  });
  await sim('customers', { guide_account: 'alice_wx', openids: ['oAnn', 'oAmy'] });
  await sim('customers', { guide_account: 'bob_wx', openids: ['oBen'] });
  await sim('customers', { guide_openid: 'oGuideCarol', openids: ['oCat'] });
});

describe('guidectl tasks', () => {
  it("tables every guide's tasks in local time, filters by status and guide, exit 0", async () => {
    const spring = await addTask({ guide_account: 'alice_wx' }, 'Spring sale', NOW + 8 * 3600, [
      'oAnn',
      'oAmy',
    ]);
    const soon = await addTask({ guide_account: 'bob_wx' }, '一二三四五六七八', NOW + 60, ['oBen']);
    const gone = await addTask({ guide_openid: 'oGuideCarol' }, 'Gone', NOW + 7200, ['oCat']);
    await target.ok('cancelguidemassendjob', { task_id: gone });
    await sim('clock', { advance: 61 });

    const all = await cli(['tasks']);
    expect(all.code, all.stderr).toBe(0);
    const lines = all.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+GUIDE\s+PUSH TIME\s+RECIPIENTS\s+STATUS\s+TASK ID$/);
    // Push time order; 10:01 and 12:00 and 18:00 in Shanghai (UTC+8); wide characters padded as two columns.
    const row = (name: string, guide: string, time: string, n: string, status: string, id: string) =>
      `${name}  ${guide.padEnd(18)}  ${time}  ${n.padStart(10)}  ${status.padEnd(9)}  ${id}`;
    // 一二三四五六七八 is 16 columns wide: padded by 2 where "Spring sale" is padded by 5.
    expect(lines[1]).toBe(
      row('一二三四五六七八', 'bob_wx', '2027-01-10 10:01 +08:00', '1', 'executed', soon),
    );
    expect(lines[2]).toBe(
      row('Gone            ', 'openid oGuideCarol', '2027-01-10 12:00 +08:00', '1', 'cancelled', gone),
    );
    expect(lines[3]).toBe(
      row('Spring sale     ', 'alice_wx', '2027-01-10 18:00 +08:00', '2', 'pending', spring),
    );
    expect(lines[4]).toBe('3 tasks');

    const utc = await cli(['tasks', '--status', 'pending'], { TZ: 'UTC' });
    expect(utc.stdout).toContain('2027-01-10 10:00 +00:00');
    expect(utc.stdout).not.toContain('Gone');
    const executed = await cli(['tasks', '--status', 'executed', '--guide', 'bob_wx']);
    expect(executed.stdout).toContain(soon);
    expect(executed.stdout).toContain('1 task\n');
    const carol = await cli(['tasks', '--guide', 'openid:oGuideCarol', '--status', 'pending']);
    expect(carol.stdout).toBe('No tasks.\n');
  });

  it('--status takes every word the table shows: completed lists the delivered tasks only', async () => {
    const delivered = await addTask({ guide_account: 'alice_wx' }, 'Delivered', NOW + 60, ['oAnn']);
    const sent = await addTask({ guide_account: 'alice_wx' }, 'Sent', NOW + 100, ['oAmy']);
    // 125 s on: the first was pushed at 60 s and delivered at 120 s; the second pushed at 100 s.
    await sim('clock', { advance: 125 });
    const all = await cli(['tasks']);
    expect(all.stdout).toMatch(/Delivered .* completed {2}\d+\n/);
    expect(all.stdout).toMatch(/Sent .* executed {3}\d+\n/);
    const completed = await cli(['tasks', '--status', 'completed']);
    expect(completed.code, completed.stderr).toBe(0);
    expect(completed.stdout).toContain(delivered);
    expect(completed.stdout).not.toContain(sent);
    expect(completed.stdout).toContain('1 task\n');
    const executed = await cli(['tasks', '--status', 'executed']);
    expect(executed.stdout).toContain('2 tasks\n');
  });

  it('--json keeps 64-bit ids whole and reads every page', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 120; i++)
      ids.push(await addTask({ guide_account: 'alice_wx' }, `t${i}`, NOW + 3600 + i, ['oAnn']));
    const run = await cli(['tasks', '--guide', 'alice_wx', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`"task_id": ${ids[0]}`);
    const json = parseJson(run.stdout) as { format_version: number; tasks: Array<Record<string, unknown>> };
    expect(json.format_version).toBe(1);
    expect(json.tasks.map((t) => String(t['task_id']))).toEqual(ids);
    expect(json.tasks[0]).toMatchObject({
      guide_account: 'alice_wx',
      name: 't0',
      push_time: NOW + 3600,
      push_at: '2027-01-10T11:00:00+08:00',
      status: 'pending',
      recipients: 1,
      materials: 1,
    });
    const lists = target.service.calls().filter((c) => c.operation === 'getguidemassendjoblist');
    expect(lists).toHaveLength(2);
  });

  it("fails as plan does: a bad name is a usage error, an unknown guide the API's error, exit 1, no stack", async () => {
    target.service.resetCalls();
    const bad = await cli(['tasks', '--guide', '1alice']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      '--guide "1alice" is not a guide\'s account: it starts with "1", not a letter',
    );
    expect(target.service.calls()).toHaveLength(0);
    const unknown = await cli(['tasks', '--guide', 'nobody_wx']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('9300804');
    noStack(unknown.stderr);
    const status = await cli(['tasks', '--status', 'done']);
    expect(status.code).toBe(1);
    expect(status.stderr).toContain("argument 'done' is invalid");
  });
});

describe('guidectl qrcode', () => {
  it('prints the URL of a QR code that binds its scanner, with --info carried in the scan event', async () => {
    const run = await cli(['qrcode', 'alice_wx', '--info', 'shop 12']);
    expect(run.code, run.stderr).toBe(0);
    const url = run.stdout.trim();
    expect(url).toMatch(/^https:\/\/mp\.weixin\.qq\.com\/guide\/qrcode\?ticket=\S+$/);
    await sim('follow', { openid: 'oNew' });
    const scan = await sim('scan', { openid: 'oNew', qrcode_url: url });
    expect(scan).toMatchObject({ action: 2, qrcode_info: 'shop 12', guide_account: 'alice_wx' });

    const json = await cli(['qrcode', 'openid:oGuideCarol', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ format_version: 1, guide_openid: 'oGuideCarol' });
    const missing = await cli(['qrcode', 'nobody_wx']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('9300804');
    noStack(missing.stderr);
  });
});

describe('guidectl path-menu', () => {
  it("sends the menu to the guide's WeChat ID; an openid guide or a mini game is refused", async () => {
    const run = await cli(['path-menu', 'alice_wx', '--appid', 'wx1234567890abcdef']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('for 60 days');
    const menus = await sim('wxamenu', { wx_username: 'alice_wx' });
    expect(menus['menus']).toEqual([{ wxa_appid: 'wx1234567890abcdef', expires_at: NOW + 60 * 86_400 }]);

    const byOpenid = await cli(['path-menu', 'openid:oGuideCarol', '--appid', 'wx1234567890abcdef']);
    expect(byOpenid.code).toBe(1);
    expect(byOpenid.stderr).toContain('named by openid; name the guide by its account');
    const badAppid = await cli(['path-menu', 'alice_wx', '--appid', 'mygame']);
    expect(badAppid.stderr).toContain('--appid "mygame" is not a mini-program appid');
    await sim('miniprogram', { appid: 'wx00000000000000aa', kind: 'minigame', linked: true });
    const game = await cli(['path-menu', 'alice_wx', '--appid', 'wx00000000000000aa']);
    expect(game.code).toBe(1);
    expect(game.stderr).toContain('40166');
    noStack(game.stderr);
    const noAppid = await cli(['path-menu', 'alice_wx']);
    expect(noAppid.code).toBe(1);
    expect(noAppid.stderr).toContain("required option '--appid <appid>' not specified");
  });
});

describe('guidectl path-menu to a guide that does not exist', () => {
  it('says so, exit 1, and sends nothing (the API would send it to any WeChat ID)', async () => {
    target.service.resetCalls();
    const run = await cli(['path-menu', 'nobody_wx', '--appid', 'wx1234567890abcdef']);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'guidectl: nobody_wx is not a guide of this account (9300804: guide does not exist); nothing was sent\n',
    });
    expect(target.service.calls().map((c) => c.operation)).toEqual(['getguideacct']);
    expect((await sim('wxamenu', { wx_username: 'nobody_wx' }))['menus']).toEqual([]);
  });
});

describe('guidectl chats', () => {
  /** `n` messages between alice_wx and oAnn (every third from oAmy), a minute apart from `from`. */
  async function chat(n: number, from = NOW - 86_400): Promise<void> {
    for (let i = 0; i < n; i++) {
      await sim('message', {
        guide_account: 'alice_wx',
        openid: i % 3 === 2 ? 'oAmy' : 'oAnn',
        content: i === 1 ? 'a, "quoted"\nsecond line' : `message ${i}`,
        direction: i % 2 === 0 ? 2 : 1,
        create_time: from + i * 60,
      });
    }
  }

  it('streams every page as JSON lines, each page written before the next is asked for', async () => {
    await chat(250);
    target.service.resetCalls();
    const callsAtFirstWrite: number[] = [];
    // No window given: the last 30 days up to now, by the CLI's clock (here, the service's).
    const run = await cli(['chats', 'alice_wx'], SHANGHAI, {
      now: () => NOW * 1000,
      onStdout: () => callsAtFirstWrite.push(target.service.calls().length),
    });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(250);
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      time: '2027-01-09T10:00:00+08:00',
      create_time: NOW - 86_400,
      guide_account: 'alice_wx',
      openid: 'oAnn',
      direction: 2,
      content_type: 1,
      content: 'message 0',
    });
    expect(JSON.parse(lines[1] ?? '')['content']).toBe('a, "quoted"\nsecond line');
    const pages = target.service.calls().filter((c) => c.operation === 'getguidebuyerchatrecord');
    expect(pages).toHaveLength(3);
    // The first records went out after the first page's call, not after the last.
    expect(callsAtFirstWrite[0]).toBeLessThan(target.service.calls().length);
    expect(run.stderr).toBe('');
  });

  it('writes CSV to a file only once whole, in the window and for the customer asked', async () => {
    await chat(12);
    await sim('message', {
      guide_account: 'alice_wx',
      openid: 'oAnn',
      content: 'too old',
      direction: 2,
      create_time: NOW - 31 * 86_400,
    });
    const since = '2027-01-09T10:01+08:00';
    // Chat records hold customer data: a file kept private stays private when replaced.
    await chmod(await target.ws.write('audit.csv', 'old\n'), 0o600);
    const run = await cli([
      'chats',
      'alice_wx',
      '--customer',
      'oAnn',
      '--since',
      since,
      '--until',
      `@${NOW - 86_400 + 600}`,
      '--format',
      'csv',
      '-o',
      'audit.csv',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('guidectl: wrote audit.csv: 7 chat records\n');
    const csv = await readFile(join(target.ws.dir, 'audit.csv'), 'utf8');
    expect(csv.split('\n')[0]).toBe(
      'time,create_time,guide_account,guide_openid,openid,direction,type,content',
    );
    expect(csv).toContain(
      `2027-01-09T10:01:00+08:00,${NOW - 86_400 + 60},alice_wx,,oAnn,guide_to_customer,text,"a, ""quoted""\nsecond line"\n`,
    );
    expect(csv).not.toContain('oAmy');
    expect(csv).not.toContain('message 0');
    expect(csv).not.toContain('too old');
    expect((await stat(join(target.ws.dir, 'audit.csv'))).mode & 0o7777).toBe(0o600);
    expect(await hiddenFiles()).toEqual([]);
  });

  it('names the flag and the accepted forms for a bad date, and a window that ends first', async () => {
    target.service.resetCalls();
    const bad = await cli(['chats', 'alice_wx', '--since', 'yesterday']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      '--since "yesterday" is not a date; write 2026-11-01 (a whole day), 2026-11-01T09:30',
    );
    const feb = await cli(['chats', 'alice_wx', '--until', '2027-02-30']);
    expect(feb.stderr).toContain('--until "2027-02-30" is not a date');
    const reversed = await cli(['chats', 'alice_wx', '--since', '2027-01-09', '--until', '2027-01-08']);
    expect(reversed.code).toBe(1);
    expect(reversed.stderr).toContain(
      '--since 2027-01-09 00:00 +08:00 is after --until 2027-01-08 23:59:59 +08:00',
    );
    const customer = await cli(['chats', 'alice_wx', '--customer', 'o Ann']);
    expect(customer.code).toBe(1);
    expect(customer.stderr).toContain('--customer "o Ann" is not an openid: an openid has 1 to 64 letters');
    expect(target.service.calls()).toHaveLength(0);
    noStack(bad.stderr + reversed.stderr + customer.stderr);
  });

  it('--until alone: the 30 days up to it, from the oldest record kept; an end not given is now, not a flag', async () => {
    for (const days of [15, 5, 2]) {
      const at = { content: `day -${days}`, create_time: NOW - days * 86_400 };
      await sim('message', { guide_account: 'alice_wx', openid: 'oAnn', direction: 2, ...at });
    }
    const contents = (stdout: string) =>
      stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line)['content']);
    // Ahead of now: the 30 days up to it (day -15 is before them).
    const ahead = await cli(['chats', 'alice_wx', '--until', `@${NOW + 20 * 86_400}`]);
    expect([ahead.code, ahead.stderr, contents(ahead.stdout)]).toEqual([0, '', ['day -5', 'day -2']]);
    // Within what is kept: from the oldest record kept, with no note about what is not.
    const within = await cli(['chats', 'alice_wx', '--until', '2027-01-05']);
    expect([within.code, within.stderr, contents(within.stdout)]).toEqual([0, '', ['day -15', 'day -5']]);
    // Before anything kept (the trial's case: it blamed a --since not given): nothing to read, said so.
    const old = await cli(['chats', 'alice_wx', '--until', '2026-09-30']);
    expect(old).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'guidectl: note: chat records are kept 30 days: nothing before 2026-12-11 10:00 +08:00 can be read, and the window ends at 2026-09-30 23:59:59 +08:00: there is nothing to read\n',
    });
    const future = await cli(['chats', 'alice_wx', '--since', '2027-01-11']);
    expect(future).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'guidectl: --since 2027-01-11 00:00 +08:00 is after now (2027-01-10 10:00 +08:00); the window must begin before it ends\n',
    });
  });

  it('says when --since reaches past the 30 days the API keeps', async () => {
    const run = await cli(['chats', 'alice_wx', '--since', '2026-11-01'], SHANGHAI, {
      now: () => NOW * 1000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe(
      'guidectl: note: chat records are kept 30 days: nothing before 2026-12-11 10:00 +08:00 can be read\n',
    );
  });

  it('writes nothing when a call fails (no file, no CSV header), exit 1; a header alone when there is nothing', async () => {
    const run = await cli(['chats', 'nobody_wx', '-o', 'audit.jsonl']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('9300804');
    noStack(run.stderr);
    await expect(access(join(target.ws.dir, 'audit.jsonl'))).rejects.toThrow();
    expect(await hiddenFiles()).toEqual([]);
    const csv = await cli(['chats', 'nobody_wx', '--format', 'csv']);
    expect(csv.code).toBe(1);
    expect(csv.stdout).toBe('');
    const empty = await cli(['chats', 'bob_wx', '--format', 'csv']);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toBe('time,create_time,guide_account,guide_openid,openid,direction,type,content\n');
  });

  it('stops reading quietly when its reader goes away (| head -1)', async () => {
    await chat(500);
    target.service.resetCalls();
    const window = ['--since', `@${NOW - 2 * 86_400}`, '--until', `@${NOW}`];
    const args = ['chats', 'alice_wx', ...window, '--base-url', target.service.url];
    const { code, stderr } = await spawnCli(args, {
      cwd: target.ws.dir,
      env: target.env(),
      closeStdout: true,
    }).ended;
    noStack(stderr);
    expect(stderr).not.toContain('EPIPE');
    expect(code, stderr).toBe(0);
    const pages = target.service.calls().filter((c) => c.operation === 'getguidebuyerchatrecord');
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.length).toBeLessThan(5);
  });

  it('shows its progress in pages on a terminal, as plan does, and clears it', async () => {
    await chat(250);
    let t = NOW * 1000;
    // Each look at the clock is a second later: the line shows once two seconds have passed.
    const run = await cli(
      ['chats', 'alice_wx', '--since', `@${NOW - 2 * 86_400}`, '--until', `@${NOW}`],
      SHANGHAI,
      {
        tty: true,
        now: () => {
          t += 1000;
          return t;
        },
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/Reading chat records: 2\/3 calls, \d+s elapsed/);
    expect(run.stderr.endsWith('\r\u001b[2K')).toBe(true);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(250);
  });
});
