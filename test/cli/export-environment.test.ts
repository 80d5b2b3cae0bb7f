// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${name} in plain strings is the syntax under test
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CliRun, runCli, type Workspace, workspace } from '../helpers/cli.js';
import { startAccounts, type TestService } from '../helpers/service.js';

// export --env NAME --as-environment-file against a real service over HTTP: the file writes the
// environment's values back as ${…}, validates, plans to no changes on the same account, and
// copies the account to another environment by adding its values.

const FILE = `version: 1
environments:
  production:
    base_url: PROD_URL
    credentials: PROD
    values:
      shop_app: wx2222222222222222
      card_cover: PROD_MEDIA_ID
      greeting: Welcome to the flagship store
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://mmbiz.qpic.cn/mmbiz_jpg/alice/0
    quick_replies: ["\${greeting}, I am Alice.", "Prices in $\${currency} are shown at checkout"]
    welcome:
      - miniprogram:
          appid: \${shop_app}
          title: New arrivals
          path: pages/new/index
          media_id: \${card_cover}
      - image: \${card_cover}
groups:
  - name: Flagship
    members: [alice_wx]
`;

let production: TestService;
let copy: TestService;
/** The accounts' variables and their closing. */
let two: { env(): Record<string, string>; close(): Promise<void> };
let ws: Workspace;
beforeAll(async () => {
  const started = await startAccounts('PROD', 'COPY');
  two = started;
  production = started.accounts.PROD;
  copy = started.accounts.COPY;
});
afterAll(async () => {
  await two.close();
});
beforeEach(async () => {
  ws = await workspace();
  await ws.write('guides.yaml', FILE.replace('PROD_URL', production.url));
});
afterEach(() => ws.remove());

const env = (): Record<string, string> => two.env();
const cli = (args: readonly string[]): Promise<CliRun> => runCli(args, { cwd: ws.dir, env: env() });

describe('export --env NAME --as-environment-file', () => {
  it('writes the values as ${…}, validates, and plans to no changes against the same account', async () => {
    expect((await cli(['apply', '--env', 'production', '--auto-approve', 'guides.yaml'])).code).toBe(0);
    const run = await cli([
      'export',
      '--env',
      'production',
      '--as-environment-file',
      '--files',
      'guides.yaml',
      '-o',
      'exported.yaml',
    ]);
    expect(run.stderr).toBe('guidectl: wrote exported.yaml: 1 guide, 1 group\n');
    expect(run.code).toBe(0);
    const text = await readFile(join(ws.dir, 'exported.yaml'), 'utf8');
    expect(text).toContain(
      'environments:\n  production:\n' +
        `    base_url: ${production.url}\n` +
        '    credentials: PROD\n' +
        '    values:\n' +
        '      shop_app: wx2222222222222222\n' +
        '      card_cover: PROD_MEDIA_ID\n' +
        '      greeting: Welcome to the flagship store\n',
    );
    expect(text).toContain('${greeting}, I am Alice.');
    expect(text).toContain('Prices in $${currency} are shown at checkout');
    expect(text).toContain('appid: ${shop_app}');
    expect(text).toContain('media_id: ${card_cover}');
    expect(text).toContain('image: ${card_cover}');
    expect(text).not.toContain('wx2222222222222222\n          title');

    const validate = await cli(['validate', 'exported.yaml']);
    expect(validate.stdout).toBe('valid: 1 file, 1 environment (production: 1 guide, 1 group)\n');
    const plan = await cli(['plan', '--env', 'production', '--detailed-exitcode', 'exported.yaml']);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('No changes.');
  });

  it('a new environment with its own values gets the account copied by apply --env NEW', async () => {
    await cli(['apply', '--env', 'production', '--auto-approve', 'guides.yaml']);
    await cli([
      'export',
      '--env',
      'production',
      '--as-environment-file',
      '--files',
      'guides.yaml',
      '-o',
      'out.yaml',
    ]);
    const text = await readFile(join(ws.dir, 'out.yaml'), 'utf8');
    const added = text.replace(
      'environments:\n',
      `environments:\n  copy:\n    base_url: ${copy.url}\n    credentials: COPY\n    values:\n` +
        '      shop_app: wx3333333333333333\n      card_cover: COPY_MEDIA_ID\n      greeting: Hi from the copy\n',
    );
    await ws.write('out.yaml', added);
    const apply = await cli(['apply', '--env', 'copy', '--auto-approve', 'out.yaml']);
    expect(apply.code).toBe(0);
    const api = await runCli(
      ['api', 'getguideconfig', '{"guide_account": "alice_wx"}', '--base-url', copy.url],
      {
        cwd: ws.dir,
        env: { WECHAT_APPID: copy.service.credentials.appid, WECHAT_SECRET: copy.service.credentials.secret },
      },
    );
    expect(api.stdout).toContain('Hi from the copy, I am Alice.');
    expect(api.stdout).toContain('wx3333333333333333');
    expect(api.stdout).toContain('COPY_MEDIA_ID');
    expect(api.stdout).toContain('Prices in ${currency} are shown at checkout');
  });

  it('--as-environment-file without --env and --files: exit 1, a usage message', async () => {
    const a = await cli(['export', '--as-environment-file']);
    expect(a.code).toBe(1);
    expect(a.stderr).toBe('guidectl: --as-environment-file needs --env NAME and --files PATH…\n');
    // With one of the two, the flag the user gave is the one the message is about.
    for (const half of [
      ['--files', 'guides.yaml'],
      ['--env', 'production'],
    ]) {
      const run = await cli(['export', '--as-environment-file', ...half]);
      expect(run, half.join(' ')).toEqual({
        code: 1,
        stdout: '',
        stderr: 'guidectl: --as-environment-file needs --env NAME and --files PATH…\n',
      });
    }
  });

  it('-o naming one of the --files (links followed, or a file of a folder given) is refused before any read', async () => {
    const given = await readFile(join(ws.dir, 'guides.yaml'), 'utf8');
    await symlink('guides.yaml', join(ws.dir, 'link.yaml'));
    await mkdir(join(ws.dir, 'envs'));
    await ws.write('envs/a.yaml', given);
    production.service.resetCalls();
    const replace = (out: string, input: string) =>
      `guidectl: -o ${out} would replace ${input}, one of the --files the export is made from; name another file\n`;
    const runs = [
      [['--files', 'guides.yaml', '-o', 'guides.yaml'], replace('guides.yaml', 'guides.yaml')],
      [
        ['--files', 'guides.yaml', '-o', './guides.yaml', '--as-environment-file'],
        replace('./guides.yaml', 'guides.yaml'),
      ],
      [['--files', 'guides.yaml', '-o', 'link.yaml'], replace('link.yaml', 'guides.yaml')],
      [
        ['--files', 'link.yaml', '-o', join(ws.dir, 'guides.yaml')],
        replace(join(ws.dir, 'guides.yaml'), 'link.yaml'),
      ],
      [['--files', 'envs', '-o', 'envs/a.yaml'], replace('envs/a.yaml', join('envs', 'a.yaml'))],
      [
        ['--files', 'envs', '-o', 'envs/new.yml'],
        'guidectl: -o envs/new.yml is in the folder envs given with --files, whose desired-state files are all read: the export would be read with the files it is made from; name a file outside it\n',
      ],
    ] as const;
    for (const [args, stderr] of runs) {
      const run = await cli(['export', '--env', 'production', ...args]);
      expect(run, args.join(' ')).toEqual({ code: 1, stdout: '', stderr });
    }
    expect(production.service.calls()).toEqual([]);
    expect(await readFile(join(ws.dir, 'guides.yaml'), 'utf8')).toBe(given);
    expect(await readFile(join(ws.dir, 'envs', 'a.yaml'), 'utf8')).toBe(given);
    // A file of its own, beside them, is written.
    const elsewhere = await cli(['export', '--env', 'production', '--files', 'envs', '-o', 'envs.txt']);
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
  });
});
