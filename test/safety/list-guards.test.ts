import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useServiceTarget } from '../helpers/cli.js';

/**
 * Emptying a content list is a deletion: a plan that removed 300 sensitive words, a guide's 100
 * quick replies and the offline reply said "0 to delete" and passed every guard. The entries a plan
 * removes are counted under guards of their own (`words`, `quick_replies`, `welcome_messages`,
 * `offline_replies`), with the same limits, flags and file settings as guides and groups.
 */

const target = useServiceTarget({ reset: true });
const cli = target.cli;
const ws = () => target.ws;

const WORDS = Array.from({ length: 300 }, (_, i) => `word${i}`);
const REPLIES = Array.from({ length: 100 }, (_, i) => `reply ${i}`);

const writes = (): string[] =>
  target.service
    .calls()
    .filter((c) => c.writes)
    .map((c) => c.operation);

const ALICE = '  - account: alice_wx\n    nickname: Alice\n    head_image_url: https://img.example/alice\n';

/** The account emptied: no words, no offline reply, no quick replies nor welcome for alice_wx. */
const EMPTIED = `version: 1
account:
  offline_auto_reply: null
  sensitive_words:
    semantics: append
    words: []
guides:
${ALICE}    quick_replies: []
    welcome: []
`;

beforeEach(async () => {
  await target.ok('addguideacct', {
    guide_account: 'alice_wx',
    guide_nickname: 'Alice',
    guide_headimgurl: 'https://img.example/alice',
  });
  await target.ok('setguideconfig', {
    guide_account: 'alice_wx',
    is_delete: false,
    guide_fast_reply_list: REPLIES.map((content) => ({ content })),
    guide_auto_reply: { msgtype: 1, content: 'Hi, I am Alice.' },
    guide_auto_reply_plus: { msgtype: 1, content: 'Ask me anything.' },
  });
  await target.ok('setguideacctconfig', {
    is_delete: false,
    black_keyword: { values: WORDS },
    guide_auto_reply: { content: 'We are offline.' },
  });
  target.service.resetCalls();
});

describe('the guards of list entries', () => {
  it('refuse a plan that empties the lists, counting what it removes, and the flags allow it', async () => {
    await ws().write('g.yaml', EMPTIED);
    const plan = await cli(['plan', 'g.yaml', '--json']);
    expect(plan.code).toBe(1);
    const guards = JSON.parse(plan.stdout).guards as Array<Record<string, unknown>>;
    const byKind = Object.fromEntries(guards.map((g) => [g['kind'], [g['deletes'], g['live'], g['status']]]));
    expect(byKind).toMatchObject({
      words: [300, 300, 'refused'],
      quick_replies: [100, 100, 'refused'],
      // Both of the only two: a mass deletion, as 2 guides of 2 would be.
      welcome_messages: [2, 2, 'refused'],
      offline_replies: [1, 1, 'ok'],
    });

    const human = await cli(['plan', 'g.yaml']);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain(
      'refused: the plan removes 300 sensitive words (of 300 live); the limit is 10 (the smaller of 10 and 25% of live sensitive words). To allow exactly these deletions, pass --allow-delete words=300.',
    );
    expect(human.stdout).toContain('refused: the plan removes 100 quick replies (of 100 live)');
    expect(human.stdout).toContain('--allow-delete quick_replies=100');
    expect(human.stdout).toContain('ok: the plan removes 1 offline reply (of 1 live)');
    expect(human.stdout).toContain('0 to delete, 403 list entries to remove (');
    expect(human.stdout).not.toContain('No changes');

    const refused = await cli(['apply', 'g.yaml', '--auto-approve', '--allow-delete', 'words=300']);
    expect(refused.code).toBe(1);
    expect(writes()).toEqual([]);

    const applied = await cli([
      'apply',
      'g.yaml',
      '--auto-approve',
      '--allow-delete',
      'words=300,quick_replies=100,welcome_messages=2',
    ]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Converged');
  });

  it('the files set the limits: safety.max_deletes.words', async () => {
    await ws().write(
      'g.yaml',
      `${EMPTIED}safety:\n  max_deletes: {words: 300, quick_replies: 0}\n  max_delete_share: 100%\n`,
    );
    const plan = await cli(['plan', 'g.yaml']);
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain('ok: the plan removes 300 sensitive words (of 300 live); the limit is 300');
    expect(plan.stdout).toContain(
      'refused: the plan removes 100 quick replies (of 100 live); the limit is 0',
    );
  });

  it('counts what goes, not what is rewritten: quick replies reordered or edited, and words added, remove nothing', async () => {
    const reordered = [...REPLIES]
      .reverse()
      .map((r, i) => (i < 50 ? `${r}!` : r))
      .map((r) => JSON.stringify(r));
    await ws().write(
      'g.yaml',
      `version: 1\naccount:\n  sensitive_words:\n    semantics: append\n    words: [${[...WORDS, 'extra'].join(', ')}]\nguides:\n${ALICE}    quick_replies: [${reordered.join(', ')}]\n`,
    );
    const plan = await cli(['plan', 'g.yaml', '--json']);
    expect(plan.code, plan.stderr).toBe(0);
    const value = JSON.parse(plan.stdout);
    // The quick replies are cleared and appended again, half of them edited: none is lost.
    expect(value.calls.map((c: { operation: string }) => c.operation)).toContain('setguideconfig');
    for (const g of value.guards) expect([g.kind, g.deletes]).toEqual([g.kind, 0]);
  });

  it('a saved plan applied without its files is checked by the same count', async () => {
    await ws().write('g.yaml', EMPTIED);
    const plan = await cli(['plan', 'g.yaml', '--out', 'plan.json']);
    expect(plan.code).toBe(1);
    await rm(join(ws().dir, 'g.yaml'));
    const refused = await cli(['apply', 'plan.json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('refused: the plan removes 300 sensitive words (of 300 live)');
    expect(writes()).toEqual([]);
    const applied = await cli([
      'apply',
      'plan.json',
      '--allow-delete',
      'words=300,quick_replies=100,welcome_messages=2',
    ]);
    expect(applied.code, applied.stderr).toBe(0);
  });
});
