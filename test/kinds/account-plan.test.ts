import { describe, expect, it } from 'vitest';
import type { DesiredAccount } from '../../src/core/desired.js';
import type { Diagnostic } from '../../src/core/diagnostics.js';
import { MAX_REQUEST_BODY_BYTES, MAX_SENSITIVE_WORDS } from '../../src/core/guide-rules.js';
import type { LiveAccount } from '../../src/core/live.js';
import type { Change, PlannedCall } from '../../src/core/plan-data.js';
import { planAccount } from '../../src/kinds/account/plan.js';
import { builderFor } from '../helpers/kind-plan.js';
import { desiredState, liveState, SOURCE } from '../helpers/plan-builder.js';

// The account kind's planner on its own: offline reply, sensitive words, default welcome.

function plan(
  account: Omit<DesiredAccount, 'source'>,
  live: LiveAccount = {},
): { calls: PlannedCall[]; changes: Change[]; errors: Diagnostic[] } {
  const b = builderFor();
  const errors: Diagnostic[] = [];
  planAccount(
    b,
    desiredState({ account: { ...account, source: SOURCE } }),
    liveState({ account: live }),
    errors,
  );
  return { calls: b.calls, changes: b.sortedChanges(), errors };
}

const words = (n: number, prefix: string): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(4, '0')}`);

describe('planAccount', () => {
  it('plans nothing when the files leave the account alone', () => {
    const b = builderFor();
    planAccount(b, desiredState(), liveState({ account: { offlineAutoReply: 'x' } }), []);
    expect(b.calls).toEqual([]);
    expect(b.sortedChanges()).toEqual([]);
  });

  it('deletes the offline reply with is_delete: true, never with a null', () => {
    const { calls, changes } = plan({ offlineAutoReply: null }, { offlineAutoReply: 'Away' });
    expect(calls.map((c) => [c.operation, c.body])).toEqual([
      ['setguideacctconfig', { is_delete: true, guide_auto_reply: { content: 'Away' } }],
    ]);
    expect(changes).toEqual([
      {
        resource: 'account',
        action: 'update',
        address: 'account',
        fields: [{ field: 'offline_auto_reply', before: 'Away', after: null }],
      },
    ]);
  });

  it('under append, adds the missing words with the offline reply, then deletes the extra', () => {
    const { calls } = plan(
      { offlineAutoReply: 'Back soon', sensitiveWords: { semantics: 'append', words: ['a', 'b'] } },
      { offlineAutoReply: null, sensitiveWords: ['c', 'a'] },
    );
    expect(calls.map((c) => [c.body, c.dependsOn])).toEqual([
      [
        { is_delete: false, guide_auto_reply: { content: 'Back soon' }, black_keyword: { values: ['b'] } },
        [],
      ],
      [{ is_delete: true, black_keyword: { values: ['c'] } }, [0]],
    ]);
  });

  it('under append, deletes first when the add would pass the limit of the account words', () => {
    const before = words(MAX_SENSITIVE_WORDS, 'old');
    const { calls } = plan(
      { sensitiveWords: { semantics: 'append', words: [...before.slice(1), 'new'] } },
      { sensitiveWords: before },
    );
    expect(calls.map((c) => c.body)).toEqual([
      { is_delete: true, black_keyword: { values: ['old0000'] } },
      { is_delete: false, black_keyword: { values: ['new'] } },
    ]);
  });

  it('under replace, sets the whole list in one call, and refuses one too large for a request', () => {
    const { calls } = plan(
      { sensitiveWords: { semantics: 'replace', words: ['a', 'b'] } },
      { sensitiveWords: ['c'] },
    );
    expect(calls.map((c) => c.body)).toEqual([{ is_delete: false, black_keyword: { values: ['a', 'b'] } }]);

    const long = words(MAX_REQUEST_BODY_BYTES / 8, 'word');
    const { errors } = plan({ sensitiveWords: { semantics: 'replace', words: long } });
    expect(errors.map((e) => e.code)).toEqual(['request-too-large']);
    expect(errors[0]?.message).toContain('under semantics: replace');
  });

  it('sets the default welcome with a setguideconfig that names no guide, after the words', () => {
    const { calls, changes } = plan(
      { offlineAutoReply: 'Hi', defaultWelcome: [{ type: 'text', text: 'Welcome' }] },
      { offlineAutoReply: null, defaultWelcome: [] },
    );
    expect(calls.map((c) => [c.operation, c.body, c.subject])).toEqual([
      [
        'setguideacctconfig',
        { is_delete: false, guide_auto_reply: { content: 'Hi' } },
        { kind: 'account', address: 'account' },
      ],
      [
        'setguideconfig',
        { is_delete: false, guide_auto_reply: { msgtype: 1, content: 'Welcome' } },
        { kind: 'account', address: 'account' },
      ],
    ]);
    expect(changes[0]?.fields.map((f) => f.field)).toEqual(['offline_auto_reply', 'default_welcome']);
  });

  it('deletes the default welcome when the files empty it', () => {
    const { calls } = plan({ defaultWelcome: [] }, { defaultWelcome: [{ type: 'text', text: 'Old' }] });
    expect(calls.map((c) => c.body)).toEqual([{ is_delete: true, guide_auto_reply: { msgtype: 1 } }]);
  });
});
