import { describe, expect, it } from 'vitest';
import { accountFingerprints, canonicalAccount } from '../../src/kinds/account/export.js';
import { canonicalDesiredGroups, canonicalGroups, groupFingerprints } from '../../src/kinds/group/export.js';
import {
  canonicalDesiredGuides,
  canonicalGuides,
  guideAddress,
  guideFingerprints,
} from '../../src/kinds/guide/export.js';
import { canonicalMembers } from '../../src/kinds/membership/export.js';
import { desiredGroup, desiredGuide, liveGroup, liveGuide } from '../helpers/plan-builder.js';

// A stand-in hash that shows what was hashed: each kind's canonical form, not how it was listed.
const shown = (value: unknown): string => JSON.stringify(value);

describe('each kind canonicalises its part of the digests', () => {
  it('guide: by key, the id written as a key, the configuration kept as read', () => {
    const config = { quickReplies: ['b', 'a'], welcome: [] };
    const guides = [
      liveGuide('zed_wx'),
      { id: { kind: 'openid', openid: 'oABC' }, nickname: 'O', headImageUrl: 'https://x/o' } as const,
      liveGuide('alice_wx', { config }),
    ];
    expect(canonicalGuides(guides).map((g) => g.id)).toEqual([
      'account:alice_wx',
      'account:zed_wx',
      'openid:oABC',
    ]);
    expect(canonicalGuides(guides)[0]?.config).toEqual(config);
    const prints = guideFingerprints([...guides].reverse(), shown);
    expect(prints).toEqual(guideFingerprints(guides, shown));
    expect(Object.keys(prints)).toEqual(['account:alice_wx', 'account:zed_wx', 'openid:oABC']);
    expect(guideAddress('account:alice_wx')).toBe('alice_wx');
    expect(guideAddress('openid:oABC')).toBe('openid oABC');
  });

  it('group and membership: by id then name, members sorted, unread members left unread', () => {
    const groups = [liveGroup('2', 'B', ['z', 'a']), liveGroup('1', 'A')];
    expect(canonicalGroups(groups)).toEqual([liveGroup('1', 'A'), liveGroup('2', 'B', ['a', 'z'])]);
    expect(canonicalMembers(['b', 'B', 'a'])).toEqual(['B', 'a', 'b']);
    expect(groupFingerprints(groups, shown)).toEqual({
      '1': { name: 'A', hash: shown({ id: '1', name: 'A' }) },
      '2': { name: 'B', hash: shown({ id: '2', name: 'B', members: ['a', 'z'] }) },
    });
  });

  it('desired guides by key and groups by name, members sorted: the order written does not count', () => {
    const guides = [desiredGuide('zed_wx'), desiredGuide('alice_wx')];
    expect(canonicalDesiredGuides(guides).map((g) => g.nickname)).toEqual(['alice_wx', 'zed_wx']);
    const groups = [desiredGroup('B', ['z', 'a']), desiredGroup('A')];
    expect(canonicalDesiredGroups(groups)).toEqual([desiredGroup('A'), desiredGroup('B', ['a', 'z'])]);
  });

  it('account: only the settings read, the sensitive words sorted', () => {
    expect(canonicalAccount({ sensitiveWords: ['b', 'a'], offlineAutoReply: null })).toEqual({
      sensitiveWords: ['a', 'b'],
      offlineAutoReply: null,
    });
    expect(accountFingerprints({}, shown)).toEqual({});
    expect(
      accountFingerprints(
        {
          sensitiveWords: ['b', 'a'],
          offlineAutoReply: null,
          defaultWelcome: [{ type: 'text', text: 'Hi' }],
        },
        shown,
      ),
    ).toEqual({
      offline_auto_reply: 'null',
      sensitive_words: '["a","b"]',
      default_welcome: '[{"type":"text","text":"Hi"}]',
    });
  });
});
