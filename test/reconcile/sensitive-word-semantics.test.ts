import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/core/plan-data.js';
import { detectReplacedWords } from '../../src/plan/index.js';
import { parseJson } from '../../src/wire/json.js';
import { type CliRun, runCli, useWorkspace } from '../helpers/cli.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';

/**
 * `semantics: append` against a target that replaces: each apply appended the missing words,
 * the target replaced the list with them, and the next apply appended the other half — the list
 * alternated and words were deleted every time, reported only as "drift". apply now sees it in
 * its read after the calls (every appended word there, words that were to stay gone) and stops
 * with the fix, without offering the drift's calls, which would replace the list again.
 */

const plan = (calls: Plan['calls']): Plan => ({
  formatVersion: 1,
  summary: { add: 0, change: 1, delete: 0, calls: calls.length },
  changes: [],
  calls,
  unmanaged: [],
  sensitiveWordSemantics: 'append',
});
const append = (values: string[], isDelete = false): Plan['calls'][number] => ({
  operation: 'setguideacctconfig',
  body: { is_delete: isDelete, black_keyword: { values } },
  subject: { kind: 'account', address: 'account' },
  dependsOn: [],
});

describe('detectReplacedWords', () => {
  it('finds words that were to stay and are gone while the appended ones are there', () => {
    const p = plan([append(['c']), append(['x'], true)]);
    expect(detectReplacedWords(p, { sensitiveWords: ['b', 'a', 'x'] }, { sensitiveWords: ['c'] })).toEqual({
      lost: ['a', 'b'],
    });
  });

  it('says nothing when the target appended, when the append failed, or under replace', () => {
    const p = plan([append(['c'])]);
    expect(detectReplacedWords(p, { sensitiveWords: ['a'] }, { sensitiveWords: ['a', 'c'] })).toBeUndefined();
    expect(detectReplacedWords(p, { sensitiveWords: ['a'] }, { sensitiveWords: ['a'] })).toBeUndefined();
    expect(detectReplacedWords(p, { sensitiveWords: [] }, { sensitiveWords: ['c'] })).toBeUndefined();
    expect(
      detectReplacedWords(
        { ...p, sensitiveWordSemantics: 'replace' },
        { sensitiveWords: ['a'] },
        { sensitiveWords: ['c'] },
      ),
    ).toBeUndefined();
  });
});

describe('apply against guidectl serve --sensitive-words replace', () => {
  let serve: ServeProcess;
  const ws = useWorkspace();
  beforeAll(async () => {
    serve = await startServeProcess(['--db', ':memory:', '--sensitive-words', 'replace']);
  }, 30_000);
  afterAll(async () => {
    await serve.stop();
  });

  const cli = (args: string[]): Promise<CliRun> =>
    runCli([...args, '--base-url', serve.url], {
      env: { WECHAT_APPID: serve.appid, WECHAT_SECRET: serve.secret },
      cwd: ws().dir,
    });
  const file = (semantics: string, words: string[]): string =>
    `version: 1\naccount:\n  sensitive_words:\n    semantics: ${semantics}\n    words: ${JSON.stringify(words)}\n`;
  const liveWords = async (): Promise<string[]> => {
    const run = await cli(['api', 'getguideacctconfig']);
    const answer = parseJson(run.stdout) as { black_keyword?: { values?: string[] } };
    return [...(answer.black_keyword?.values ?? [])].sort();
  };

  it('stops with the fix when the append replaced the list, and replace then converges', async () => {
    await ws().write('a.yaml', file('append', ['apple', 'banana']));
    const first = await cli(['apply', 'a.yaml', '--auto-approve']);
    expect(first.code, first.stderr).toBe(0);

    await ws().write('a.yaml', file('append', ['apple', 'banana', 'cherry']));
    const run = await cli(['apply', 'a.yaml', '--auto-approve']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'guidectl: error: the target replaces the sensitive-word list instead of appending to it: the words appended replaced the list, and 2 words that were to stay are gone ("apple", "banana"). Set semantics: replace under account.sensitive_words in the files, then apply again',
    );
    // The drift is not offered as calls (they would replace the list again).
    expect(run.stdout).toContain('Not converged: the target replaces the sensitive-word list');
    expect(run.stdout).not.toContain('Drift:');
    expect(await liveWords()).toEqual(['cherry']);

    const json = await cli(['apply', 'a.yaml', '--auto-approve', '--json']);
    expect(json.code).toBe(1);
    expect((parseJson(json.stdout) as Record<string, unknown>)['sensitive_words_replaced']).toEqual({
      semantics: 'append',
      target: 'replace',
      lost: ['cherry'],
    });

    await ws().write('a.yaml', file('replace', ['apple', 'banana', 'cherry']));
    const fixed = await cli(['apply', 'a.yaml', '--auto-approve']);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.stdout).toContain('Converged');
    expect(await liveWords()).toEqual(['apple', 'banana', 'cherry']);
  });
});
