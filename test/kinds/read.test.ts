import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuideClient, type GuideClient } from '../../src/client/index.js';
import { accountSettingsToRead, readAccount } from '../../src/kinds/account/read.js';
import { readGroups } from '../../src/kinds/group/read.js';
import { readGuides } from '../../src/kinds/guide/read.js';
import { guideConfigsToRead, readGuideConfig } from '../../src/kinds/guide-config/read.js';
import { toWelcome } from '../../src/kinds/kind.js';
import { groupMembersToRead, readMembers } from '../../src/kinds/membership/read.js';
import type { ReadPort } from '../../src/kinds/read-port.js';
import { readOnlyClient, readPortOf } from '../../src/live/read-live-state.js';
import { toId64 } from '../../src/wire/ids.js';
import { FAST_RETRY } from '../client/helpers.js';
import { desiredGroup, desiredGuide, desiredState, SOURCE } from '../helpers/plan-builder.js';
import { guideBody, startTestService, type TestService } from '../helpers/service.js';

// Each kind's read through a read port over the guide service on 127.0.0.1: what it asks, and
// how it decodes the answers into the live state.

let t: TestService;
let client: GuideClient;
let port: ReadPort<
  'getguideacctlist' | 'getguidegrouplist' | 'getgroupinfo' | 'getguideconfig' | 'getguideacctconfig'
>;
let asked: string[];

beforeAll(async () => {
  t = await startTestService();
  client = createGuideClient({ baseUrl: t.url, auth: t.service.credentials, retry: FAST_RETRY });
  const reads = readPortOf(readOnlyClient(client));
  port = (operation, request) => {
    asked.push(operation);
    return reads(operation, request);
  };
  for (const account of ['alice_wx', 'bobby_wx', 'carol_wx'])
    await t.ok('addguideacct', guideBody(account, account));
  const group = async (name: string, members: string[]): Promise<string> => {
    const { group_id } = await t.ok('newguidegroup', { group_name: name });
    for (const m of members) await t.ok('addguide2guidegroup', { group_id, guide_account: m });
    return String(group_id);
  };
  await group('North', ['carol_wx', 'alice_wx']);
  await group('South', ['bobby_wx']);
  await group('Twin', ['alice_wx']);
  await group('Twin', []);
  await t.ok('setguideconfig', {
    guide_account: 'bobby_wx',
    is_delete: false,
    guide_fast_reply_list: [{ content: 'Hello' }, { content: 'Bye' }],
    guide_auto_reply: { msgtype: 1, content: 'Welcome' },
  });
  await t.ok('setguideacctconfig', {
    is_delete: false,
    guide_auto_reply: { content: 'Back soon' },
    black_keyword: { values: ['scam', 'cheap'] },
  });
  await t.ok('setguideconfig', { is_delete: false, guide_auto_reply: { msgtype: 2, content: 'MEDIA_1' } });
});
afterAll(async () => {
  await client.close();
  await t.close();
});

describe('guide: readGuides', () => {
  it('reads every page, tells each page of new guides as it comes, decodes each as listed', async () => {
    asked = [];
    const told: string[][] = [];
    const guides = await readGuides(port, 2, 0, (items) => told.push(items.map((g) => g.nickname)));
    expect(guides).toEqual(
      ['alice_wx', 'bobby_wx', 'carol_wx'].map((account) => ({
        id: { kind: 'account', account },
        nickname: account,
        headImageUrl: `https://mmbiz.qpic.cn/mmbiz_jpg/${account}/0`,
      })),
    );
    expect(told).toEqual([['alice_wx', 'bobby_wx'], ['carol_wx']]);
    expect(asked).toEqual(['getguideacctlist', 'getguideacctlist']);
  });
});

describe('group and membership: readGroups, readMembers', () => {
  it('reads the members of the groups asked for, and of groups sharing a name, page by page', async () => {
    asked = [];
    const groups = await readGroups(port, new Set(['North']), 1);
    expect(groups.map((g) => [g.name, g.members])).toEqual([
      ['North', ['alice_wx', 'carol_wx']],
      ['South', undefined],
      ['Twin', ['alice_wx']],
      ['Twin', []],
    ]);
    // North: a page for each of its two members; each Twin: one page (South's members are not read).
    expect(asked.filter((op) => op === 'getgroupinfo')).toHaveLength(4);
    const all = await readGroups(port, 'all', 100);
    expect(all.map((g) => g.members)).toEqual([['alice_wx', 'carol_wx'], ['bobby_wx'], ['alice_wx'], []]);
    const south = toId64(all[1]?.id);
    if (south === undefined) throw new Error('no South');
    expect(await readMembers(port, south, 100)).toEqual(['bobby_wx']);
  });
});

describe('guide configuration: readGuideConfig, toWelcome', () => {
  it("reads a guide's quick replies in order and its welcome messages", async () => {
    asked = [];
    expect(await readGuideConfig(port, { kind: 'account', account: 'bobby_wx' })).toEqual({
      quickReplies: ['Hello', 'Bye'],
      welcome: [{ type: 'text', text: 'Welcome' }],
    });
    expect(await readGuideConfig(port, { kind: 'account', account: 'alice_wx' })).toEqual({
      quickReplies: [],
      welcome: [],
    });
    expect(asked).toEqual(['getguideconfig', 'getguideconfig']);
  });

  it('decodes a welcome by its msgtype; a card from its JSON, else as not understood', () => {
    expect(toWelcome({ msgtype: 1, content: 'Hi' })).toEqual({ type: 'text', text: 'Hi' });
    expect(toWelcome({ msgtype: 2, content: 'M' })).toEqual({ type: 'image', mediaId: 'M' });
    const card = JSON.stringify({ appid: 'wx1', title: 'T', path: 'p', extra: 1 });
    expect(toWelcome({ msgtype: 3, content: card })).toEqual({
      type: 'miniprogram',
      appid: 'wx1',
      title: 'T',
      path: 'p',
    });
    expect(toWelcome({ msgtype: 3, content: '{"appid":1}' })).toEqual({
      type: 'unknown',
      msgtype: 3,
      content: '{"appid":1}',
    });
    expect(toWelcome({ msgtype: 3, content: 'not json' })).toMatchObject({ type: 'unknown' });
    expect(toWelcome({ msgtype: 7, content: 'x' })).toEqual({ type: 'unknown', msgtype: 7, content: 'x' });
  });
});

describe('account: readAccount', () => {
  it('reads only the settings asked for, each read once', async () => {
    asked = [];
    const none = { offlineAutoReply: false, sensitiveWords: false, defaultWelcome: false };
    expect(await readAccount(port, none)).toEqual({});
    expect(asked).toEqual([]);
    expect(await readAccount(port, { ...none, sensitiveWords: true })).toEqual({
      sensitiveWords: ['scam', 'cheap'],
    });
    expect(asked).toEqual(['getguideacctconfig']);
    asked = [];
    expect(
      await readAccount(port, { offlineAutoReply: true, sensitiveWords: true, defaultWelcome: true }),
    ).toEqual({
      offlineAutoReply: 'Back soon',
      sensitiveWords: ['scam', 'cheap'],
      defaultWelcome: [{ type: 'image', mediaId: 'MEDIA_1' }],
    });
    expect(asked).toEqual(['getguideacctconfig', 'getguideconfig']);
  });
});

describe('read scope: each kind names what the files make it read', () => {
  it('guide configurations, group members and account settings the files manage', () => {
    const desired = desiredState({
      guides: [desiredGuide('alice_wx', { quickReplies: ['Hi'] }), desiredGuide('bobby_wx')],
      groups: [desiredGroup('North', ['alice_wx']), desiredGroup('South')],
      account: { sensitiveWords: { semantics: 'append', words: ['x'] }, source: SOURCE },
    });
    expect(guideConfigsToRead(desired)).toEqual(new Set(['account:alice_wx']));
    expect(groupMembersToRead(desired)).toEqual(new Set(['North']));
    expect(accountSettingsToRead(desired)).toEqual({
      offlineAutoReply: false,
      sensitiveWords: true,
      defaultWelcome: false,
    });
  });
});
