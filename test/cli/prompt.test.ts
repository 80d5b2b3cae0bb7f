import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createAsk } from '../../src/cli/prompt.js';
import { useServiceTarget } from '../helpers/cli.js';

const SMALL_STORE = fileURLToPath(new URL('../../examples/small-store.yaml', import.meta.url));
// The apply --json refusals are documented in docs/machine-output.md.
const README = fileURLToPath(new URL('../../docs/machine-output.md', import.meta.url));

/** A question asked on a terminal whose keys the test types. */
function terminal(signal?: AbortSignal): {
  ask: (q: string) => Promise<string | undefined>;
  type: (keys: string) => void;
  end: () => void;
} {
  const input = new PassThrough();
  const output = new PassThrough();
  output.resume();
  return {
    ask: createAsk({ input, output, terminal: true, ...(signal === undefined ? {} : { signal }) }),
    type: (keys) => input.write(keys),
    end: () => input.end(),
  };
}

describe('the confirmation question', () => {
  it('returns the line typed', async () => {
    const t = terminal();
    const answer = t.ask('Make these calls? ');
    t.type('yes\r');
    expect(await answer).toBe('yes');
  });

  it.each([
    ['Ctrl-C', '\u0003'],
    ['Ctrl-D', '\u0004'],
  ])('is cancelled by %s', async (_name, key) => {
    const t = terminal();
    const answer = t.ask('Make these calls? ');
    t.type(key);
    expect(await answer).toBeUndefined();
  });

  it('is cancelled by the end of input and by a stop signal', async () => {
    const ended = terminal();
    const first = ended.ask('? ');
    ended.end();
    expect(await first).toBeUndefined();
    const stop = new AbortController();
    const stopped = terminal(stop.signal);
    const second = stopped.ask('? ');
    stop.abort();
    expect(await second).toBeUndefined();
  });
});

describe('apply, cancelled at the question', () => {
  const target = useServiceTarget();

  it('says the apply was cancelled (not that there is no terminal), exits 1, writes nothing', async () => {
    const run = await target.cli(['apply', SMALL_STORE], {
      // Ctrl-C or Ctrl-D: the asker answers undefined.
      ask: async () => undefined,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('guidectl: apply cancelled; nothing was changed');
    expect(run.stderr).not.toContain('no terminal');
    expect(target.service.calls().filter((c) => c.writes)).toEqual([]);
  });

  it('--json, declined: the object says what stderr says, and the README quotes it as printed', async () => {
    const run = await target.cli(['apply', SMALL_STORE, '--json'], { ask: async () => 'no' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('guidectl: apply cancelled; nothing was changed\n');
    // The question was not asked blind: the plan as text came first, on stderr, stdout one object.
    expect(run.stderr).toMatch(/Plan: \d+ to add/);
    expect(run.stderr.indexOf('Plan:')).toBeLessThan(run.stderr.indexOf('apply cancelled'));
    const { refused } = JSON.parse(run.stdout) as { refused: string[] };
    expect(refused).toEqual(['apply cancelled; nothing was changed']);
    const readme = readFileSync(README, 'utf8').replace(/\s+/g, ' ');
    expect(readme).toContain(`\`"refused": ${JSON.stringify(refused)}\` for a confirmation declined`);
  });

  it('--json-stream, asked on a terminal: the plan as text on stderr before the question; stdout only events', async () => {
    const run = await target.cli(['apply', SMALL_STORE, '--json-stream'], { ask: async () => 'no' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Plan: \d+ to add/);
    expect(run.stderr.indexOf('Plan:')).toBeLessThan(run.stderr.indexOf('apply cancelled'));
    for (const line of run.stdout.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });
});
