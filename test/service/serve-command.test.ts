import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type Workspace, workspace } from '../helpers/cli.js';

let ws: Workspace;
beforeAll(async () => {
  ws = await workspace();
});
afterAll(() => ws.remove());

describe('guidectl serve --db', () => {
  it('refuses a database in a folder that does not exist, naming it, and creates nothing', async () => {
    const missing = join(ws.dir, 'missing', 'dir');
    const run = await runCli(['serve', '--port', '0', '--db', join(missing, 'x.db')], { cwd: ws.dir });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`the folder ${missing} of --db does not exist`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stdout).toBe('');
    expect(existsSync(join(ws.dir, 'missing'))).toBe(false);
  });
});
