import { expect, it } from 'vitest';
import { parseJson } from '../../src/wire/json.js';
import { type CliRun, jsonLines, useServiceTarget } from '../helpers/cli.js';
import { holdingGate } from '../helpers/holding-gate.js';

// A write that the server holds past the client's timeout and its settling time may still land
// after apply's convergence check has read the account: apply must not claim convergence then.

const target = useServiceTarget({ reset: true });

const file = (nickname: string): string =>
  `version: 1\nguides:\n  - account: alice_wx\n    nickname: ${nickname}\n    head_image_url: https://img.example/alice\n`;

/**
 * Applies a new nickname through a gate that holds the update unanswered, so the client gives it
 * up (after 0.2 + 0.2 s), and lets it land just before the convergence check reads the guides: the
 * read then shows the account converged, though the client cannot know it was the update's doing.
 */
async function heldApply(format: readonly string[]): Promise<CliRun> {
  await target.ws.write('g.yaml', file('Alice'));
  expect((await target.cli(['apply', 'g.yaml', '--auto-approve'])).code).toBe(0);
  await target.ws.write('g.yaml', file('Alice Chen'));
  target.service.resetCalls();
  const gate = await holdingGate(target.service.url, 'updateguideacct', 0, {
    landBefore: 'getguideacctlist',
  });
  try {
    const timeouts = ['--timeout', '0.2', '--settle-timeout', '0.2'];
    return await target.cli(['apply', 'g.yaml', '--auto-approve', ...format, ...timeouts], {
      baseUrl: gate.url,
    });
  } finally {
    gate.close();
  }
}

const FORMATS: ReadonlyArray<{ name: string; format: readonly string[]; says(run: CliRun): void }> = [
  {
    name: 'the human report',
    format: [],
    says: (run) => {
      expect(run.stdout).toMatch(
        /1 write got no answer even after waiting and may still take effect, so convergence is not claimed/,
      );
      expect(run.stdout).not.toMatch(/Converged/);
    },
  },
  {
    name: '--json',
    format: ['--json'],
    says: (run) => expect(parseJson(run.stdout)).toMatchObject({ converged: null, abandoned_writes: 1 }),
  },
  {
    name: '--json-stream',
    format: ['--json-stream'],
    says: (run) =>
      expect(jsonLines(run.stdout).at(-1)).toMatchObject({
        type: 'summary',
        converged: null,
        abandoned_writes: 1,
      }),
  },
];

it.each(FORMATS)(
  '$name: a write given up while the server may still apply it is not resent, and convergence is not claimed',
  async ({ format, says }) => {
    const run = await heldApply(format);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(
      /\(updateguideacct\) failed: the outcome is unknown: no answer within 0\.4 s, even after waiting for it; the server may still apply it/,
    );
    says(run);
    // Given up, not resent; and it did land before the check read the guides, which saw it converged.
    const calls = target.service.calls().map((c) => c.operation);
    expect(calls.filter((op) => op === 'updateguideacct')).toHaveLength(1);
    expect(calls.lastIndexOf('getguideacctlist')).toBeGreaterThan(calls.indexOf('updateguideacct'));
  },
  30_000,
);
