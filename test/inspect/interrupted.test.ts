import { describe, expect, it } from 'vitest';
import { useServiceTarget } from '../helpers/cli.js';
import { interruptedAt as stoppedAt } from '../helpers/holding-gate.js';
import { guideBody, simCall } from '../helpers/service.js';

// Ctrl-C during tasks, chats and api says "interrupted", as plan does, not that the call it cut
// failed; for a write made by hand, whether it may have been applied. The stop comes while a call
// is held unanswered by a gate in front of the service (or after the first page is written).

const target = useServiceTarget({ reset: true });

/** Runs guidectl through a gate holding `operation`, with Ctrl-C once the gate holds it. */
const interruptedAt = (operation: string, args: readonly string[]) =>
  stoppedAt(target.service.url, operation, args, { env: target.env(), cwd: target.ws.dir });

const groups = async () => (await target.ok('getguidegrouplist'))['group_list'];

describe('Ctrl-C during tasks and chats', () => {
  it('tasks: interrupted while reading the tasks', async () => {
    await target.ok('addguideacct', guideBody('alice_wx'));
    const { run } = await interruptedAt('getguidemassendjoblist', ['tasks']);
    expect(run).toEqual({ code: 1, stdout: '', stderr: 'guidectl: interrupted while reading the tasks\n' });
  });

  it('chats: interrupted while reading the chat records, with how far it got', async () => {
    await target.ok('addguideacct', guideBody('alice_wx'));
    await simCall(target.service.url, 'customers', { guide_account: 'alice_wx', openids: ['oAnn'] });
    // The service's clock and the CLI's: 2027-01-10 02:00:00 UTC.
    const now = Date.UTC(2027, 0, 10, 2, 0, 0) / 1000;
    await simCall(target.service.url, 'clock', { set: now });
    for (let i = 0; i < 150; i++) {
      await simCall(target.service.url, 'message', {
        guide_account: 'alice_wx',
        openid: 'oAnn',
        content: `message ${i}`,
        direction: 1,
        create_time: now - 3600 + i,
      });
    }
    const stop = new AbortController();
    // Ctrl-C as the first page is written: the second is not asked for.
    const run = await target.cli(['chats', 'alice_wx', '--since', `@${now - 7200}`, '--until', `@${now}`], {
      stop: stop.signal,
      now: () => now * 1000,
      onStdout: () => stop.abort(),
    });
    expect(run.code).toBe(1);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(100);
    expect(run.stderr).toBe('guidectl: interrupted while reading the chat records (100 of 150 read)\n');
  });
});

describe('Ctrl-C during api', () => {
  it('a read: interrupted before it was answered', async () => {
    await target.ok('addguideacct', guideBody('alice_wx'));
    const { run } = await interruptedAt('getguideacct', [
      'api',
      'getguideacct',
      '{"guide_account": "alice_wx"}',
    ]);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: 'guidectl: interrupted before getguideacct was answered\n',
    });
  });

  it('a write stopped in the read before it: nothing was written, and it says so', async () => {
    const { run } = await interruptedAt('getguidegrouplist', [
      'api',
      'newguidegroup',
      '{"group_name": "Flagship"}',
    ]);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: 'guidectl: interrupted before newguidegroup was sent: nothing was written\n',
    });
    expect(target.service.calls().filter((c) => c.writes)).toEqual([]);
  });

  it('a write stopped on its way: it may have been applied, and it says so', async () => {
    const { run, release } = await interruptedAt('newguidegroup', [
      'api',
      'newguidegroup',
      '{"group_name": "Flagship"}',
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'guidectl: interrupted while newguidegroup was on its way: it may have been applied, or may still be (its outcome is unknown); read the account to see before making it again\n',
    );
    // And so it may: the server gets it after all.
    await release();
    expect(await groups()).toMatchObject([{ name: 'Flagship' }]);
  });
});

describe('Ctrl-C during qrcode and path-menu', () => {
  it('path-menu stopped while it reads the guide: nothing was sent', async () => {
    await target.ok('addguideacct', guideBody('alice_wx'));
    const { run } = await interruptedAt('getguideacct', [
      'path-menu',
      'alice_wx',
      '--appid',
      'wx1234567890abcdef',
    ]);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: 'guidectl: interrupted before pushshowwxapathmenu was sent: nothing was written\n',
    });
  });

  it('qrcode stopped on its way: it may have been made', async () => {
    await target.ok('addguideacct', guideBody('alice_wx'));
    const { run } = await interruptedAt('guidecreateqrcode', ['qrcode', 'alice_wx']);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'guidectl: interrupted while guidecreateqrcode was on its way: it may have been applied, or may still be (its outcome is unknown); read the account to see before making it again\n',
    });
  });
});
