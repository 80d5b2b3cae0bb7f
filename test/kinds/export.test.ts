import { describe, expect, it } from 'vitest';
import { UNKNOWN_MEDIA_ID } from '../../src/core/guide-rules.js';
import { exportAccount } from '../../src/kinds/account/export.js';
import { exportGroups } from '../../src/kinds/group/export.js';
import { exportGuides } from '../../src/kinds/guide/export.js';
import { exportGuideConfig, exportWelcome } from '../../src/kinds/guide-config/export.js';
import type { CardMediaId } from '../../src/kinds/live-part.js';
import { exportMembers } from '../../src/kinds/membership/export.js';
import { liveGroup, liveGuide } from '../helpers/plan-builder.js';

const noCards: CardMediaId = () => undefined;
const card = { type: 'miniprogram', appid: 'wx1', title: 'T', path: 'p' } as const;

describe("each kind's part of an export", () => {
  it('guide: accounts first, then openids, each with its configuration when read', () => {
    const warnings: string[] = [];
    const guides = [
      { id: { kind: 'openid', openid: 'oB' }, nickname: 'B', headImageUrl: 'https://x/b' } as const,
      liveGuide('zed_wx'),
      liveGuide('alice_wx', { config: { quickReplies: ['Hi'], welcome: [{ type: 'text', text: 'W' }] } }),
    ];
    const out = exportGuides(guides, warnings, noCards);
    expect(out.map((g) => Object.keys(g))).toEqual([
      ['account', 'nickname', 'head_image_url', 'quick_replies', 'welcome'],
      ['account', 'nickname', 'head_image_url'],
      ['openid', 'nickname', 'head_image_url'],
    ]);
    expect(out[0]).toMatchObject({ account: 'alice_wx', quick_replies: ['Hi'], welcome: [{ text: 'W' }] });
    expect(warnings).toEqual([]);
  });

  it('guide configuration: a card takes the media id the files give it, or a stand-in and a warning', () => {
    const warnings: string[] = [];
    expect(exportWelcome([card], 'guide a', warnings, () => 'MEDIA')).toEqual([
      { miniprogram: { appid: 'wx1', title: 'T', path: 'p', media_id: 'MEDIA' } },
    ]);
    expect(warnings).toEqual([]);
    const unknown = { type: 'unknown', msgtype: 9, content: 'x' } as const;
    expect(exportWelcome([card, unknown], 'guide a', warnings, noCards)).toEqual([
      { miniprogram: { appid: 'wx1', title: 'T', path: 'p', media_id: UNKNOWN_MEDIA_ID } },
    ]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^guide a: a mini-program card's media_id cannot be read back/);
    expect(warnings[1]).toBe('guide a: a welcome message of msgtype 9 is not understood and was left out');
    expect(exportGuideConfig(undefined, 'guide a', warnings, noCards)).toEqual({});
  });

  it('group and membership: by name, members sorted; groups sharing a name left out with a warning', () => {
    const warnings: string[] = [];
    const groups = [
      liveGroup('3', 'B', ['z', 'a']),
      liveGroup('1', 'S'),
      liveGroup('2', 'S'),
      liveGroup('4', 'A'),
    ];
    expect(exportGroups(groups, warnings)).toEqual([
      { name: 'A', members: [] },
      { name: 'B', members: ['a', 'z'] },
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^groups id 1, id 2 share the name "S"/);
    expect(exportMembers(undefined)).toEqual([]);
  });

  it('account: only the settings read, none at all when none was', () => {
    const warnings: string[] = [];
    expect(exportAccount({}, warnings, noCards)).toBeUndefined();
    expect(exportAccount({ offlineAutoReply: null, sensitiveWords: ['b', 'a'] }, warnings, noCards)).toEqual({
      offline_auto_reply: null,
      sensitive_words: { semantics: 'append', words: ['a', 'b'] },
    });
    expect(exportAccount({ defaultWelcome: [card] }, warnings, noCards)).toEqual({
      default_welcome: [{ miniprogram: { appid: 'wx1', title: 'T', path: 'p', media_id: UNKNOWN_MEDIA_ID } }],
    });
    expect(warnings[0]).toMatch(/^account default_welcome: /);
  });
});
