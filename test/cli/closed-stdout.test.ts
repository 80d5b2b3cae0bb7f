import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GuideService } from '../../src/service/index.js';
import { parseJson } from '../../src/wire/json.js';
import { runCli, type Workspace, workspace } from '../helpers/cli.js';
import { simCall } from '../helpers/service.js';
import { spawnCli } from './spawn.js';

// `guidectl … | head -1`: the reader of stdout goes away after its first line. A closed stdout
// must never crash guidectl nor cut an apply short.

let service: GuideService;
let ws: Workspace;
beforeAll(async () => {
  service = await GuideService.start({ db: ':memory:', simulation: true });
});
afterAll(() => service.close());
beforeEach(async () => {
  ws = await workspace();
  await simCall(service.url, 'reset');
  service.resetCalls();
});
afterEach(() => ws.remove());

const env = (): Record<string, string> => ({
  WECHAT_APPID: service.credentials.appid,
  WECHAT_SECRET: service.credentials.secret,
});

/** 40 guides in 2 groups: 42 calls to an empty account. */
function bigFile(): string {
  const guides = Array.from(
    { length: 40 },
    (_, i) =>
      `  - account: guide_${String(i).padStart(3, '0')}\n    nickname: Guide ${i}\n    head_image_url: https://img.example/${i}\n`,
  ).join('');
  return `version: 1\ngroups:\n  - name: North\n  - name: South\nguides:\n${guides}`;
}

function noCrash(stderr: string): void {
  expect(stderr).not.toContain('EPIPE');
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(stderr).not.toContain('internal error');
}

describe('a closed stdout', () => {
  it('does not stop an apply: every call is made, the exit status says how they went', async () => {
    await ws.write('big.yaml', bigFile());
    const args = ['apply', 'big.yaml', '--auto-approve', '--base-url', service.url];
    const { code, stderr } = await spawnCli(args, { cwd: ws.dir, env: env(), closeStdout: true }).ended;
    noCrash(stderr);
    expect(code, stderr).toBe(0);
    const writes = service.calls().filter((c) => c.writes);
    expect(writes).toHaveLength(42);
    const after = await runCli(['plan', 'big.yaml', '--json', '--base-url', service.url], {
      env: env(),
      cwd: ws.dir,
    });
    expect((parseJson(after.stdout) as { summary: { calls: number } }).summary.calls).toBe(0);
  });

  it.each([
    ['plan', ['plan', 'big.yaml']],
    ['plan --json', ['plan', 'big.yaml', '--json']],
    ['export', ['export']],
  ])('%s stops quietly with its usual exit status', async (_name, command) => {
    await ws.write('big.yaml', bigFile());
    const args = [...command, '--base-url', service.url];
    const { code, stderr } = await spawnCli(args, { cwd: ws.dir, env: env(), closeStdout: true }).ended;
    noCrash(stderr);
    expect(code, stderr).toBe(0);
  });

  it.each([
    ['help plan', ['help', 'plan']],
    ['validate', ['validate', 'big.yaml']],
  ])('%s stops quietly with its usual exit status', async (_name, args) => {
    await ws.write('big.yaml', bigFile());
    const { code, stderr } = await spawnCli(args, { cwd: ws.dir, closeStdout: true }).ended;
    noCrash(stderr);
    expect(code, stderr).toBe(0);
  });
});
