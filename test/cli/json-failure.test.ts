import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/wire/json.js';
import { ONE_GUIDE, runCli, useServiceTarget } from '../helpers/cli.js';

// Every command given --json prints one JSON object on stdout when it fails before printing its
// output, as plan --json and apply --json do: {"format_version": 1, "error": …, "diagnostics": […]},
// then its line on stderr, exit 1. A script piping stdout to jq never reads nothing.

const target = useServiceTarget();

describe('--json when the command fails', () => {
  it('tasks --json and qrcode --json, the target refusing the credentials: the error as JSON, then on stderr', async () => {
    const { appid } = target.service.credentials;
    const env = { WECHAT_APPID: appid, WECHAT_SECRET: 'wrong-secret' };
    const base = ['--base-url', target.service.url];
    await target.ws.write('one.yaml', ONE_GUIDE);
    const plan = await runCli(['plan', '--json', 'one.yaml', ...base], { env, cwd: target.ws.dir });
    for (const args of [
      ['tasks', '--json'],
      ['qrcode', 'alice_wx', '--json'],
    ]) {
      const run = await runCli([...args, ...base], { env, cwd: target.ws.dir });
      expect(run.code, args.join(' ')).toBe(1);
      const out = parseJson(run.stdout) as Record<string, unknown>;
      expect(Object.keys(out)).toEqual(['format_version', 'error', 'diagnostics']);
      expect(out).toMatchObject({ format_version: 1, diagnostics: [] });
      expect(run.stderr).toBe(`guidectl: ${String(out['error'])}\n`);
      // The same error plan --json names.
      expect(out['error']).toBe((parseJson(plan.stdout) as Record<string, unknown>)['error']);
      expect(run.stdout + run.stderr).not.toContain('wrong-secret');
    }
    // A usage error found before anything is printed, too.
    const bad = await runCli(['tasks', '--json', '--guide', '1alice', ...base], { env });
    expect(bad.code).toBe(1);
    expect(parseJson(bad.stdout)).toMatchObject({ format_version: 1, diagnostics: [] });
  });

  it('validate --json keeps its array of diagnostics', async () => {
    const run = await runCli(['validate', '--json', 'missing.yaml'], { cwd: target.ws.dir });
    expect(run.code).toBe(1);
    expect(Array.isArray(parseJson(run.stdout))).toBe(true);
  });
});
