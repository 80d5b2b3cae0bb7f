import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ALICE_ALONE, type CliRun, runCli, type Workspace, workspace } from '../helpers/cli.js';

// The embedded local database: no command creates folders the user named, and a command that only
// reads does not create a database the user named (a typo must not read as an empty account).
// Only the default .guidectl/ folder and database are created on first use.

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace();
  await ws.write('a.yaml', ALICE_ALONE);
});
afterEach(() => ws.remove());

const cli = (args: string[], env: Record<string, string> = {}): Promise<CliRun> =>
  runCli(args, { cwd: ws.dir, env });

describe('--local-db and GUIDECTL_LOCAL_DB', () => {
  it('a missing folder is an error naming it and the fix, for plan and apply; nothing is created', async () => {
    for (const command of [['plan'], ['apply', '--auto-approve'], ['export']]) {
      const args = command[0] === 'export' ? command : [command[0] ?? '', 'a.yaml', ...command.slice(1)];
      const run = await cli([...args, '--local-db', 'other/x.db']);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(
        `guidectl: the folder ${join(ws.dir, 'other')} of --local-db does not exist; create it first (mkdir -p ${join(ws.dir, 'other')}), or fix the path\n`,
      );
      expect(run.stdout).toBe('');
    }
    const env = await cli(['plan', 'a.yaml'], { GUIDECTL_LOCAL_DB: 'deep/er/x.db' });
    expect(env.code).toBe(1);
    expect(env.stderr).toContain(
      `the folder ${join(ws.dir, 'deep', 'er')} of GUIDECTL_LOCAL_DB does not exist`,
    );
    expect(existsSync(join(ws.dir, 'other'))).toBe(false);
    expect(existsSync(join(ws.dir, 'deep'))).toBe(false);
    expect(existsSync(join(ws.dir, '.guidectl'))).toBe(false);
  });

  it('plan against a named database that does not exist reads an empty account, says so, and creates nothing', async () => {
    await mkdir(join(ws.dir, 'dbs'));
    const plan = await cli(['plan', 'a.yaml', '--local-db', 'dbs/typo.db']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('Plan: 1 to add');
    expect(plan.stderr).toBe(
      'guidectl: note: --local-db dbs/typo.db does not exist yet; reading it as an empty account, and creating nothing (apply creates it)\n',
    );
    const api = await cli(['api', 'getguideacctlist', '{"page": 0, "num": 10}'], {
      GUIDECTL_LOCAL_DB: 'dbs/typo.db',
    });
    expect(api.code, api.stderr).toBe(0);
    expect(api.stderr).toContain('GUIDECTL_LOCAL_DB dbs/typo.db does not exist yet');
    expect(existsSync(join(ws.dir, 'dbs', 'typo.db'))).toBe(false);

    const apply = await cli(['apply', 'a.yaml', '--auto-approve', '--local-db', 'dbs/x.db']);
    expect(apply.code, apply.stderr).toBe(0);
    const again = await cli(['plan', 'a.yaml', '--local-db', 'dbs/x.db', '--detailed-exitcode']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes.');
    expect(again.stderr).toBe('guidectl: using the embedded local service (database dbs/x.db)\n');
  });

  it('a database whose name starts with two dots is named relative to the working directory, as any other', async () => {
    const plan = await cli(['plan', 'a.yaml', '--local-db', '..shop.db']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).toBe(
      'guidectl: note: --local-db ..shop.db does not exist yet; reading it as an empty account, and creating nothing (apply creates it)\n',
    );
  });

  it('the default .guidectl/local.db is created on first use, even by plan', async () => {
    const plan = await cli(['plan', 'a.yaml']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('Plan: 1 to add');
    expect(existsSync(join(ws.dir, '.guidectl', 'local.db'))).toBe(true);
  });
});
