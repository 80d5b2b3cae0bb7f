import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type CliRun, useServiceTarget } from '../helpers/cli.js';

// What apply reads back after its calls (`--verify`). A proxy between guidectl and the service
// logs every guide call with its body and can spoil one: answer -1 without passing it on (the
// call is retried), or pass it on and then drop the connection before the answer (a lost answer).

interface Logged {
  readonly op: string;
  readonly body: Record<string, unknown>;
}
type Action = 'busy' | 'lose' | undefined;
type Spoil = (op: string, body: Record<string, unknown>) => Action | Promise<Action>;

const target = useServiceTarget({ reset: true });
let proxy: Server;
let proxyUrl: string;
let log: Logged[] = [];
let spoil: Spoil = () => undefined;

beforeAll(async () => {
  proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const op = /\/cgi-bin\/guide\/(\w+)/.exec(req.url ?? '')?.[1];
    const body = op === undefined || text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    if (op !== undefined) log.push({ op, body });
    const action = op === undefined ? undefined : await spoil(op, body);
    if (action === 'busy') {
      res.end('{"errcode":-1,"errmsg":"system error"}');
      return;
    }
    const answer = await fetch(`${target.service.url}${req.url ?? ''}`, {
      method: req.method ?? 'POST',
      body: text,
    });
    const out = await answer.text();
    if (action === 'lose') {
      res.socket?.destroy();
      return;
    }
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(out);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
});

beforeEach(() => {
  log = [];
  spoil = () => undefined;
});

function guide(account: string, replies: readonly string[], welcome: string): string {
  return [
    `  - account: ${account}`,
    `    nickname: ${account.slice(0, 5)}`,
    `    head_image_url: https://img.example/${account}`,
    `    quick_replies: ${JSON.stringify(replies)}`,
    `    welcome: [{text: ${JSON.stringify(welcome)}}]`,
  ].join('\n');
}

const ACCOUNT = 'account:\n  sensitive_words: {semantics: append, words: [refund]}\n';
const GROUP =
  'groups:\n  - name: Flagship\n    members: [alice_wx, bob_wx, carol_wx, dave_wx, eve_wx, frank_wx]\n';

/** eve and frank exist with configuration; the files add a reply to eve's, a welcome to frank's. */
async function seedEveAndFrank(): Promise<void> {
  const before = `version: 1\nguides:\n${guide('eve_wx', ['Hi'], 'Eve')}\n${guide('frank_wx', ['Yo'], 'Frank')}\n`;
  const path = await target.ws.write('before.yaml', before);
  expect((await cli(['apply', path, '--auto-approve'])).code).toBe(0);
}

const FILES = `version: 1\n${ACCOUNT}${GROUP}guides:\n${[
  guide('alice_wx', ['Hello', 'Bye'], 'Alice'),
  guide('bob_wx', ['Hello'], 'Bob'),
  guide('carol_wx', ['Hello'], 'Carol'),
  guide('dave_wx', ['Hello'], 'Dave'),
  guide('eve_wx', ['Hi', 'Bye'], 'Eve'),
  guide('frank_wx', ['Yo'], 'Frank again'),
].join('\n')}\n`;

function cli(args: readonly string[]): Promise<CliRun> {
  return target.cli([...args, '--parallelism', '1'], { baseUrl: proxyUrl });
}

/** The guide calls after the last write: the reads of the check after the calls. */
function checkReads(): Logged[] {
  const last = log.findLastIndex((c) => !c.op.startsWith('get'));
  return log.slice(last + 1);
}

function configsRead(reads: readonly Logged[]): string[] {
  return reads
    .filter((c) => c.op === 'getguideconfig' && c.body['guide_account'] !== undefined)
    .map((c) => String(c.body['guide_account']))
    .sort();
}

describe('apply --verify', () => {
  test('targeted (the default) reads back only what the answers do not vouch for; full reads everything', async () => {
    await seedEveAndFrank();
    log = [];
    // carol's creation answers -1 once (retried); bob's quick replies land and the answer is lost.
    let busy = 0;
    let lost = 0;
    spoil = (op, body) => {
      if (op === 'addguideacct' && body['guide_account'] === 'carol_wx' && busy++ === 0) return 'busy';
      if (op === 'setguideconfig' && body['guide_account'] === 'bob_wx' && lost++ === 0) return 'lose';
      return undefined;
    };
    const path = await target.ws.write('guides.yaml', FILES);
    const run = await cli(['apply', path, '--auto-approve', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ converged: true, verify: 'targeted' });
    // carol's creation was sent again; bob's append was not (a read settled it).
    expect([busy, lost]).toEqual([2, 1]);
    const reads = checkReads();
    // bob (lost answer), carol (retried), eve (an append onto a list read before the calls); not
    // alice and dave (created by this apply, their calls answered at once) nor frank (a welcome is
    // set whole).
    expect(configsRead(reads)).toEqual(['bob_wx', 'carol_wx', 'eve_wx']);
    // The lists and the account settings are read again whole (one call per 100 guides).
    expect(reads.filter((c) => c.op === 'getguideacctlist')).toHaveLength(1);
    expect(reads.filter((c) => c.op === 'getguideacctconfig')).toHaveLength(1);
    expect(reads.filter((c) => c.op === 'getgroupinfo')).toHaveLength(1);

    // The same apply from the start under --verify full: every managed guide is read back.
    await target.sim('reset');
    await seedEveAndFrank();
    log = [];
    spoil = () => undefined;
    const full = await cli(['apply', path, '--auto-approve', '--json', '--verify', 'full']);
    expect(full.code, full.stderr).toBe(0);
    expect(JSON.parse(full.stdout)).toMatchObject({ converged: true, verify: 'full' });
    expect(configsRead(checkReads())).toEqual([
      'alice_wx',
      'bob_wx',
      'carol_wx',
      'dave_wx',
      'eve_wx',
      'frank_wx',
    ]);
    expect((await cli(['plan', path, '--detailed-exitcode'])).code).toBe(0);
  });

  test('what someone else changes meanwhile: a list is read back (drift, exit 1); a vouched configuration only by full or a later plan', async () => {
    const path = await target.ws.write(
      'guides.yaml',
      `version: 1\ngroups: [{name: Flagship, members: [alice_wx]}]\nguides:\n${guide('alice_wx', ['Hello'], 'Alice')}\n`,
    );
    /** Once alice is configured (at her membership), someone else makes `op` with `body` on her. */
    const meanwhile = (op: string, body: Record<string, unknown>): Spoil => {
      let done = false;
      return async (called) => {
        if (called === 'addguide2guidegroup' && !done) {
          done = true;
          // One call straight to the service, as someone else would make it.
          await target.ok(op, { guide_account: 'alice_wx', ...body });
        }
        return undefined;
      };
    };
    spoil = meanwhile('updateguideacct', { guide_nickname: 'Mallory' });
    const renamed = await cli(['apply', path, '--auto-approve', '--json']);
    expect(renamed.code, renamed.stdout + renamed.stderr).toBe(1);
    const out = JSON.parse(renamed.stdout) as {
      converged: boolean;
      drift: { calls: { operation: string }[] };
    };
    expect(out.converged, renamed.stdout + renamed.stderr).toBe(false);
    expect(
      out.drift?.calls.map((c) => c.operation),
      renamed.stdout.slice(-1500),
    ).toEqual(['updateguideacct']);

    for (const verify of ['targeted', 'full']) {
      await target.sim('reset');
      const replies = { is_delete: false, guide_fast_reply_list: [{ content: 'Spam' }] };
      spoil = meanwhile('setguideconfig', replies);
      const run = await cli(['apply', path, '--auto-approve', '--json', '--verify', verify]);
      expect(JSON.parse(run.stdout)).toMatchObject({ converged: verify === 'targeted', verify });
      expect((await cli(['plan', path, '--detailed-exitcode'])).code).toBe(2);
    }
  });
});
