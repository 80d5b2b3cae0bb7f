import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/wire/json.js';
import { type CliRun, guideEntries, jsonLines, runCli, useServiceTarget } from '../helpers/cli.js';
import { interruptedAt } from '../helpers/holding-gate.js';

// `apply --json` is one JSON object and `apply --json-stream` ends with a `summary` event, also
// when the run fails with an error before it has a plan: the target refuses the credentials, it
// cannot be reached, or a Ctrl-C stops the read. The exit code stays 1, the error on stderr.

const target = useServiceTarget();
const FILE = `version: 1\nguides:\n${guideEntries(2)}`;

type Failure = 'wrong secret' | 'unreachable' | 'interrupted';

async function applyFailing(failure: Failure, format: '--json' | '--json-stream'): Promise<CliRun> {
  await target.ws.write('a.yaml', FILE);
  const args = ['apply', 'a.yaml', '--auto-approve', format];
  const { appid, secret } = target.service.credentials;
  const cwd = target.ws.dir;
  if (failure === 'wrong secret')
    return runCli([...args, '--base-url', target.service.url], {
      env: { WECHAT_APPID: appid, WECHAT_SECRET: 'wrong-secret' },
      cwd,
    });
  if (failure === 'unreachable')
    return runCli([...args, '--base-url', 'http://127.0.0.1:1', '--read-retry', '1'], {
      env: { WECHAT_APPID: appid, WECHAT_SECRET: secret },
      cwd,
    });
  // Ctrl-C while the first read waits at a gate (one set before the run is seen at the files).
  const env = { WECHAT_APPID: appid, WECHAT_SECRET: secret };
  return (await interruptedAt(target.service.url, 'getguideacctlist', args, { env, cwd })).run;
}

const FAILURES: readonly Failure[] = ['wrong secret', 'unreachable', 'interrupted'];

describe('apply --json when the target fails or the read is interrupted', () => {
  it.each(FAILURES)('%s: one JSON object naming the error, exit 1', async (failure) => {
    const run = await applyFailing(failure, '--json');
    expect(run.code).toBe(1);
    const out = parseJson(run.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ format_version: 1, diagnostics: [], outcomes: [], converged: false });
    expect(String(out['error']).length).toBeGreaterThan(0);
    expect(run.stderr).toContain(`guidectl: ${String(out['error']).split('\n')[0]}`);
    if (failure === 'interrupted') expect(out['error']).toBe('interrupted while reading the live state');
    expect(run.stdout).not.toContain('wrong-secret');
  });
});

describe('apply --json-stream when the target fails or the read is interrupted', () => {
  it.each(FAILURES)('%s: a diagnostics event naming the error, then the summary, exit 1', async (failure) => {
    const run = await applyFailing(failure, '--json-stream');
    expect(run.code).toBe(1);
    const events = jsonLines(run.stdout);
    // A Ctrl-C is told before the summary (no call was running).
    const told = failure === 'interrupted' ? ['interrupt'] : [];
    expect(events.map((e) => e['type'])).toEqual(['diagnostics', ...told, 'summary']);
    expect(events[0]).toMatchObject({ format_version: 1, diagnostics: [] });
    expect(String(events[0]?.['error']).length).toBeGreaterThan(0);
    expect(events.at(-1)).toEqual({
      format_version: 1,
      type: 'summary',
      calls: 0,
      done: 0,
      failed: 0,
      not_started: 0,
      interrupted: failure === 'interrupted',
      converged: false,
      exit_code: 1,
    });
    expect(run.stdout).not.toContain('wrong-secret');
  });
});
