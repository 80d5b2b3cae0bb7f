import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/wire/json.js';
import { useServiceTarget } from '../helpers/cli.js';

/**
 * At the 1,000-word limit, a change that swaps words never applied under `semantics: append`: the
 * plan added the missing words before deleting the extra ones, so the add passed the limit
 * (9300814) on every apply. The plan now deletes first when the two lists together pass the limit.
 */

const target = useServiceTarget({ reset: true });
const { cli } = target;
const file = (words: string[]): string =>
  `version: 1\naccount:\n  sensitive_words:\n    semantics: append\n    words: ${JSON.stringify(words)}\n`;
const calls = async (name: string): Promise<Array<{ body: Record<string, unknown> }>> => {
  const run = await cli(['plan', name, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return (parseJson(run.stdout) as { calls: Array<{ body: Record<string, unknown> }> }).calls;
};

describe('sensitive words at the limit', () => {
  const full = Array.from({ length: 1000 }, (_, i) => `w${i}`);

  it('deletes the extra words before adding the missing ones, and converges', async () => {
    await target.ws.write('a.yaml', file(full));
    const first = await cli(['apply', 'a.yaml', '--auto-approve']);
    expect(first.code, first.stderr).toBe(0);

    await target.ws.write('b.yaml', file([...full.slice(1), 'new']));
    expect((await calls('b.yaml')).map((c) => c.body)).toEqual([
      { is_delete: true, black_keyword: { values: ['w0'] } },
      { is_delete: false, black_keyword: { values: ['new'] } },
    ]);
    const run = await cli(['apply', 'b.yaml', '--auto-approve']);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stdout).toContain('Converged');
    expect(await calls('b.yaml')).toEqual([]);
  });

  it('adds first while both lists fit, so the account never lacks a word of either in between', async () => {
    await target.ws.write('a.yaml', file(['a', 'b']));
    expect((await cli(['apply', 'a.yaml', '--auto-approve'])).code).toBe(0);
    await target.ws.write('b.yaml', file(['b', 'c']));
    expect((await calls('b.yaml')).map((c) => c.body)).toEqual([
      { is_delete: false, black_keyword: { values: ['c'] } },
      { is_delete: true, black_keyword: { values: ['a'] } },
    ]);
  });
});
