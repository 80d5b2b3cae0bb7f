import { describe, expect, it } from 'vitest';
import { MAX_REQUEST_BODY_BYTES } from '../../src/core/guide-rules.js';
import { parseJson, stringifyJson } from '../../src/wire/json.js';
import { type CliRun, useServiceTarget } from '../helpers/cli.js';

/**
 * Files that validate made request bodies over the service's 1 MiB limit, refused (45002) on every
 * apply: 1,000 long quick replies or sensitive words appended in one call, or a task with 20,000
 * recipients. Appends now go in several calls well under the limit, in order; what cannot be split
 * (a task, the words under `replace`) is refused at plan, before any call, naming the place.
 */

const t = useServiceTarget({ reset: true });
const replacing = useServiceTarget({ reset: true, settings: { sensitiveWords: 'replace' } });

const cli = (args: string[], target = t): Promise<CliRun> => target.cli(args);

interface JsonCall {
  operation: string;
  body: Record<string, unknown>;
  depends_on: number[];
}
const planCalls = async (name: string): Promise<JsonCall[]> => {
  const run = await cli(['plan', name, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return (parseJson(run.stdout) as { calls: JsonCall[] }).calls;
};
const bytes = (body: unknown): number => Buffer.byteLength(stringifyJson(body), 'utf8');
/** `n` distinct texts of `chars` CJK characters each (3 bytes of UTF-8 apiece). */
const cjk = (n: number, chars: number): string[] =>
  Array.from({ length: n }, (_, i) => `${i}`.padStart(4, '0') + '说'.repeat(chars - 4));

const guide = (replies: string[]): string =>
  `version: 1\nguides:\n  - account: alice_wx\n    nickname: Alice\n    head_image_url: https://img.example/a\n    quick_replies: ${JSON.stringify(replies)}\n    welcome:\n      - text: Hello\n`;
const words = (semantics: string, list: string[]): string =>
  `version: 1\naccount:\n  sensitive_words:\n    semantics: ${semantics}\n    words: ${JSON.stringify(list)}\n`;

describe('appends too large for one request', () => {
  it('sends 1,000 quick replies of 400 CJK characters in several calls, in order, and converges', async () => {
    const replies = cjk(1000, 400);
    await t.ws.write('g.yaml', guide(replies));
    const calls = (await planCalls('g.yaml')).filter((c) => c.operation === 'setguideconfig');
    expect(calls.length).toBeGreaterThan(1);
    for (const c of calls) expect(bytes(c.body)).toBeLessThan(MAX_REQUEST_BODY_BYTES / 2);
    // In order, one after the other; the welcome rides with the first.
    const sent = calls.flatMap((c) =>
      (c.body['guide_fast_reply_list'] as { content: string }[]).map((r) => r.content),
    );
    expect(sent).toEqual(replies);
    expect(calls[0]?.body['guide_auto_reply']).toEqual({ msgtype: 1, content: 'Hello' });
    for (const [i, c] of calls.entries()) if (i > 0) expect(c.depends_on).toContain(i);

    const run = await cli(['apply', 'g.yaml', '--auto-approve']);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stdout).toContain('Converged');
    expect(await planCalls('g.yaml')).toEqual([]);
  });

  it('sends 1,000 long sensitive words under append in several calls, and converges', async () => {
    const list = cjk(1000, 400).sort();
    await t.ws.write('w.yaml', words('append', list));
    const calls = await planCalls('w.yaml');
    expect(calls.length).toBeGreaterThan(1);
    for (const c of calls) expect(bytes(c.body)).toBeLessThan(MAX_REQUEST_BODY_BYTES / 2);
    const run = await cli(['apply', 'w.yaml', '--auto-approve']);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(await planCalls('w.yaml')).toEqual([]);
  });
});

describe('a long append on a target that replaces', () => {
  it('is seen for what it is though the words went in several calls, each replacing the one before', async () => {
    await replacing.ws.write('w.yaml', words('append', ['a', 'b']));
    expect((await cli(['apply', 'w.yaml', '--auto-approve'], replacing)).code).toBe(0);
    await replacing.ws.write('w.yaml', words('append', ['a', 'b', ...cjk(998, 400)].sort()));
    const run = await cli(['apply', 'w.yaml', '--auto-approve'], replacing);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'the target replaces the sensitive-word list instead of appending to it: the words appended replaced the list, and 2 words that were to stay are gone ("a", "b")',
    );
  });
});

describe('requests that cannot be split', () => {
  it('refuses the words under replace before any call, naming the place, the size and the limit', async () => {
    await replacing.ws.write('w.yaml', words('replace', cjk(1000, 400).sort()));
    replacing.service.resetCalls();
    for (const args of [['plan'], ['apply', '--auto-approve']]) {
      const run = await cli([...args, 'w.yaml'], replacing);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /w\.yaml:2:1: error: under semantics: replace, all the sensitive words go in one setguideacctconfig request, which would be 1,\d{3},\d{3} bytes \(1\.\d\d MiB\); the limit of one request is 1,048,576 bytes \(1 MiB\) \[request-too-large\]/,
      );
      expect(run.stderr).toContain('hint: shorten or remove sensitive words');
    }
    expect(replacing.service.calls().filter((c) => c.writes)).toEqual([]);
  });

  it('refuses a default welcome message too long for one request, at the account', async () => {
    const text = '说'.repeat(400_000);
    await t.ws.write('d.yaml', `version: 1\naccount:\n  default_welcome:\n    - text: ${text}\n`);
    t.service.resetCalls();
    const run = await cli(['apply', 'd.yaml', '--auto-approve']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /d\.yaml:2:1: error: the setguideconfig request of the default welcome messages would be 1,200,\d{3} bytes \(1\.14 MiB\); the limit of one request is 1,048,576 bytes \(1 MiB\) \[request-too-large\]/,
    );
    expect(t.service.calls().filter((c) => c.writes)).toEqual([]);
  });

  it('refuses a task of 20,000 long recipients before any call', async () => {
    const recipients = Array.from({ length: 20_000 }, (_, i) => `o${String(i).padStart(63, '0')}`);
    // Inside the push window whatever the day the test runs (the window is checked first).
    const pushAt = `${new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 19)}Z`;
    const file =
      'version: 1\nguides:\n  - account: alice_wx\n    nickname: Alice\n    head_image_url: https://img.example/a\n' +
      `tasks:\n  - name: Big\n    guide: alice_wx\n    push_at: ${pushAt}\n    recipients: ${JSON.stringify(recipients)}\n    materials:\n      - text: Hi\n`;
    await t.ws.write('t.yaml', file);
    t.service.resetCalls();
    const run = await cli(['apply', 't.yaml', '--auto-approve']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /t\.yaml:7:5: error: task "Big" goes in one addguidemassendjob request with its 20,000 recipients, which would be 1,3\d\d,\d{3} bytes \(1\.\d\d MiB\); the limit of one request is 1,048,576 bytes \(1 MiB\) \[request-too-large\]/,
    );
    expect(run.stderr).toContain('split its recipients between several tasks');
    expect(t.service.calls().filter((c) => c.writes)).toEqual([]);
  });
});
