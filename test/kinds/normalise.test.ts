import { describe, expect, it } from 'vitest';
import { normaliseAccount } from '../../src/kinds/account/normalise.js';
import { normaliseGroup } from '../../src/kinds/group/normalise.js';
import { normaliseGuide } from '../../src/kinds/guide/normalise.js';

// Each kind's normalising: what a checked file says, as the planner reads it.

const source = { file: 'g.yaml', line: 2, column: 3 };

describe('the kinds normalise what was written', () => {
  it('a guide by account or by openid, with its quick replies and welcome messages', () => {
    expect(
      normaliseGuide(
        {
          account: 'alice_wx',
          nickname: 'Alice',
          head_image_url: 'https://example.com/a.png',
          quick_replies: ['Hi'],
          welcome: [{ text: 'Welcome' }],
        },
        source,
      ),
    ).toEqual({
      id: { kind: 'account', account: 'alice_wx' },
      nickname: 'Alice',
      headImageUrl: 'https://example.com/a.png',
      quickReplies: ['Hi'],
      welcome: [{ type: 'text', text: 'Welcome' }],
      source,
    });
    const byOpenid = normaliseGuide(
      { openid: 'oXYZ', nickname: 'X', head_image_url: 'https://e.com/x.png' },
      source,
    );
    expect(byOpenid.id).toEqual({ kind: 'openid', openid: 'oXYZ' });
    // Configuration not written is not managed: the keys are absent, not empty.
    expect('quickReplies' in byOpenid || 'welcome' in byOpenid).toBe(false);
  });

  it('a group: members without repeats, in the order written; no members key, not managed', () => {
    expect(normaliseGroup({ name: 'North', members: ['bob_wx', 'alice_wx', 'bob_wx'] }, source)).toEqual({
      name: 'North',
      members: ['bob_wx', 'alice_wx'],
      source,
    });
    expect(normaliseGroup({ name: 'South' }, source)).toEqual({ name: 'South', source });
  });

  it('the account: sensitive words sorted and without repeats, the offline reply as written', () => {
    expect(
      normaliseAccount(
        { offline_auto_reply: 'Back soon', sensitive_words: { semantics: 'append', words: ['b', 'a', 'b'] } },
        source,
      ),
    ).toEqual({
      offlineAutoReply: 'Back soon',
      sensitiveWords: { semantics: 'append', words: ['a', 'b'] },
      source,
    });
  });
});
