import { expect, it } from 'vitest';
import { runProgram } from '../../src/cli/program.js';
import { GuideService, parseFaults } from '../../src/service/index.js';
import { captureIo, runCli, workspace } from '../helpers/cli.js';

// A write that the server holds past the client's timeout and its settling time may still land
// after apply's convergence check has read the account: apply must not claim convergence then.

const file = (nickname: string): string =>
  `version: 1\nguides:\n  - account: alice_wx\n    nickname: ${nickname}\n    head_image_url: https://img.example/alice\n`;

it('a write given up while the server may still apply it: not resent, and convergence not claimed', async () => {
  const service = await GuideService.start({ db: ':memory:', simulation: true });
  const ws = await workspace();
  try {
    const env = { WECHAT_APPID: service.credentials.appid, WECHAT_SECRET: service.credentials.secret };
    const path = await ws.write('g.yaml', file('Alice'));
    const target = ['--base-url', service.url];
    expect((await runCli(['apply', path, '--auto-approve', ...target], { env, cwd: ws.dir })).code).toBe(0);
    await ws.write('g.yaml', file('Alice Chen'));
    service.resetCalls();

    // Once the plan is read and confirmed, the service holds calls 1 s: the update is given up
    // after 0.2 + 0.2 s. The hold is lifted only once the update has landed, so the reads of the
    // convergence check are held (and retried) until then.
    const landed = (): boolean => service.calls().some((c) => c.operation === 'updateguideacct');
    const io = {
      ...captureIo(env, ws.dir),
      ask: async (): Promise<string> => {
        service.setFaults(parseFaults('hold=1,hold_time=1s'));
        void (async () => {
          while (!landed()) await new Promise((resolve) => setTimeout(resolve, 20));
          service.setFaults(parseFaults(''));
        })();
        return 'yes';
      },
    };
    const args = ['apply', path, '--timeout', '0.2', '--settle-timeout', '0.2', ...target];
    const code = await runProgram(args, io);
    expect(code, io.err()).toBe(1);
    expect(io.err()).toMatch(
      /updateguideacct failed: the outcome is unknown: no answer within 0\.4 s, even after waiting for it; the server may still apply it/,
    );
    expect(io.out()).toMatch(
      /1 write got no answer even after waiting and may still take effect, so convergence is not claimed/,
    );
    expect(io.out()).not.toMatch(/Converged/);
    // Given up, not resent.
    expect(service.calls().filter((c) => c.operation === 'updateguideacct')).toHaveLength(1);
  } finally {
    await service.close();
    await ws.remove();
  }
}, 30_000);

it('--json and --json-stream agree on a write given up: converged null, abandoned_writes 1', async () => {
  const service = await GuideService.start({ db: ':memory:', simulation: true });
  const ws = await workspace();
  try {
    const env = { WECHAT_APPID: service.credentials.appid, WECHAT_SECRET: service.credentials.secret };
    const path = await ws.write('g.yaml', file('Alice'));
    const target = ['--base-url', service.url];
    expect((await runCli(['apply', path, '--auto-approve', ...target], { env, cwd: ws.dir })).code).toBe(0);
    const landed = (n: number) => (): boolean =>
      service.calls().filter((c) => c.operation === 'updateguideacct').length >= n;
    /** An apply whose update is held past its settling time (as above), in `format`. */
    const heldApply = async (format: string, nickname: string, n: number) => {
      await ws.write('g.yaml', file(nickname));
      const io = {
        ...captureIo(env, ws.dir),
        ask: async (): Promise<string> => {
          service.setFaults(parseFaults('hold=1,hold_time=1s'));
          void (async () => {
            while (!landed(n)()) await new Promise((resolve) => setTimeout(resolve, 20));
            service.setFaults(parseFaults(''));
          })();
          return 'yes';
        },
      };
      const args = ['apply', path, format, '--timeout', '0.2', '--settle-timeout', '0.2', ...target];
      const code = await runProgram(args, io);
      expect(code, io.err()).toBe(1);
      return io.out();
    };
    const json = JSON.parse(await heldApply('--json', 'Alice Chen', 1)) as Record<string, unknown>;
    expect(json).toMatchObject({ converged: null, abandoned_writes: 1 });
    const lines = (await heldApply('--json-stream', 'Alice Wong', 2)).trim().split('\n');
    const summary = JSON.parse(lines.at(-1) ?? '{}') as Record<string, unknown>;
    expect(summary).toMatchObject({ type: 'summary', converged: null, abandoned_writes: 1 });
  } finally {
    await service.close();
    await ws.remove();
  }
}, 30_000);
