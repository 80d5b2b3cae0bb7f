import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuideClient, type GuideClient } from '../../src/client/index.js';
import {
  type LiveReader,
  READ_EVERYTHING,
  type ReadProgress,
  readLiveState,
  readOnlyClient,
  readScopeFor,
} from '../../src/live/index.js';
import { FAST_RETRY } from '../client/helpers.js';
import { desiredGroup, desiredGuide, desiredState } from '../helpers/plan-builder.js';
import { guideBody, startTestService, type TestService } from '../helpers/service.js';

// readLiveState against the guide service on 127.0.0.1: every page of every list, only what the
// scope asks for, in the order the API lists it, with the fewest calls.

let t: TestService;
let client: GuideClient;
const ACCOUNTS = ['guide1_wx', 'guide2_wx', 'guide3_wx', 'guide4_wx', 'guide5_wx', 'guide6_wx', 'guide7_wx'];

/**
 * Seven guides (guide2_wx with two quick replies and a welcome), groups North (g1, g3, g5), South
 * (none) and two named Twin (g2; g4), the offline reply, two sensitive words and a default welcome.
 */
beforeAll(async () => {
  t = await startTestService();
  client = createGuideClient({ baseUrl: t.url, auth: t.service.credentials, retry: FAST_RETRY });
  for (const account of ACCOUNTS) await t.ok('addguideacct', guideBody(account, account.toUpperCase()));
  await t.ok('setguideconfig', {
    guide_account: 'guide2_wx',
    is_delete: false,
    guide_fast_reply_list: [{ content: 'Hello' }, { content: 'Bye' }],
    guide_auto_reply: { msgtype: 1, content: 'Welcome to g2' },
  });
  const group = async (name: string, members: string[]): Promise<void> => {
    const { group_id } = await t.ok('newguidegroup', { group_name: name });
    for (const m of members) await t.ok('addguide2guidegroup', { group_id, guide_account: m });
  };
  await group('North', ['guide5_wx', 'guide1_wx', 'guide3_wx']);
  await group('South', []);
  await group('Twin', ['guide2_wx']);
  await group('Twin', ['guide4_wx']);
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

/** The read calls made by `read`, by operation. */
async function readCalls<T>(read: () => Promise<T>): Promise<{ value: T; calls: Record<string, number> }> {
  t.service.resetCalls();
  const value = await read();
  const calls: Record<string, number> = {};
  for (const c of t.service.calls()) calls[c.operation] = (calls[c.operation] ?? 0) + 1;
  return { value, calls };
}

describe('readLiveState', () => {
  it('reads everything, page by page, each guide once, in the order the API lists them', async () => {
    const { value: live, calls } = await readCalls(() =>
      readLiveState(readOnlyClient(client), READ_EVERYTHING, { pageSize: 2 }),
    );
    expect(live.guides.map((g) => g.id)).toEqual(ACCOUNTS.map((account) => ({ kind: 'account', account })));
    expect(live.guides[0]).toEqual({
      id: { kind: 'account', account: 'guide1_wx' },
      nickname: 'GUIDE1_WX',
      headImageUrl: 'https://mmbiz.qpic.cn/mmbiz_jpg/guide1_wx/0',
      config: { quickReplies: [], welcome: [] },
    });
    expect(live.guides[1]?.config).toEqual({
      quickReplies: ['Hello', 'Bye'],
      welcome: [{ type: 'text', text: 'Welcome to g2' }],
    });
    // Members as the API lists them (by guide, not by when they joined), over two pages of 2.
    expect(live.groups.map((g) => [g.name, g.members])).toEqual([
      ['North', ['guide1_wx', 'guide3_wx', 'guide5_wx']],
      ['South', []],
      ['Twin', ['guide2_wx']],
      ['Twin', ['guide4_wx']],
    ]);
    expect(live.groups.every((g) => /^[0-9]{16,20}$/.test(g.id))).toBe(true);
    expect(live.account).toEqual({
      offlineAutoReply: 'Back soon',
      sensitiveWords: ['scam', 'cheap'],
      defaultWelcome: [{ type: 'image', mediaId: 'MEDIA_1' }],
    });
    expect(calls).toEqual({
      getguideacctlist: 4, // 7 guides, 2 a page
      getguideconfig: 8, // each guide's, and the account's default welcome
      getguidegrouplist: 1,
      getgroupinfo: 2 + 1 + 1 + 1, // North over two pages; the others one each
      getguideacctconfig: 1,
    });
  });

  it('reads only what the scope asks: configs of managed guides, members of managed groups and of shared names', async () => {
    const desired = desiredState({
      guides: [
        desiredGuide('guide3_wx', { quickReplies: [] }),
        desiredGuide('absent_wx', { quickReplies: [] }),
      ],
      groups: [desiredGroup('South', []), desiredGroup('North')],
    });
    const { value: live, calls } = await readCalls(() =>
      readLiveState(readOnlyClient(client), readScopeFor(desired)),
    );
    expect(live.guides.filter((g) => g.config !== undefined).map((g) => g.id)).toEqual([
      { kind: 'account', account: 'guide3_wx' },
    ]);
    // North's members are not managed; the two Twins share a name, so they are read whole.
    expect(live.groups.map((g) => [g.name, g.members])).toEqual([
      ['North', undefined],
      ['South', []],
      ['Twin', ['guide2_wx']],
      ['Twin', ['guide4_wx']],
    ]);
    expect(live.account).toEqual({});
    expect(calls).toEqual({ getguideacctlist: 1, getguideconfig: 1, getguidegrouplist: 1, getgroupinfo: 3 });
  });

  it('pages on one page at a time when the pages do not add up to the total (a server paging otherwise)', async () => {
    // A reader whose server serves 3 guides on the first page and 2 on the others, whatever is
    // asked: the first page promises ⌈7/3⌉ pages, which hold 6 guides (one of them twice).
    const asked: number[] = [];
    const real = readOnlyClient(client);
    const reader: LiveReader = {
      ...real,
      getguideacctlist: (request) => {
        asked.push(request.page);
        return real.getguideacctlist({ page: request.page, num: request.page === 0 ? 3 : 2 });
      },
    };
    const live = await readLiveState(reader, READ_EVERYTHING, { pageSize: 3 });
    expect(live.guides.map((g) => (g.id.kind === 'account' ? g.id.account : ''))).toEqual(ACCOUNTS);
    expect(asked).toEqual([0, 1, 2, 3]);
    expect(live.guides.filter((g) => g.config !== undefined)).toHaveLength(7);
  });

  it('asks for the pages the expected guides fill with the first page, not after it; a wrong guess still reads every guide', async () => {
    /** The order in which pages of the guide list were asked for and answered. */
    const listPages = async (expectedGuides?: number): Promise<{ events: string[]; accounts: string[] }> => {
      const events: string[] = [];
      const real = readOnlyClient(client);
      const reader: LiveReader = {
        ...real,
        getguideacctlist: async (request) => {
          events.push(`ask ${request.page}`);
          const answer = await real.getguideacctlist(request);
          events.push(`answer ${request.page}`);
          return answer;
        },
      };
      const scope = { ...READ_EVERYTHING, ...(expectedGuides === undefined ? {} : { expectedGuides }) };
      const live = await readLiveState(reader, scope, { pageSize: 2 });
      return { events, accounts: live.guides.map((g) => (g.id.kind === 'account' ? g.id.account : '')) };
    };
    const asked = (events: readonly string[]): string[] => events.filter((e) => e.startsWith('ask')).sort();
    // Without a guess: page 0, then the other three at once.
    const plain = await listPages();
    expect(plain.events.indexOf('answer 0')).toBeLessThan(plain.events.indexOf('ask 1'));
    expect(asked(plain.events)).toEqual(['ask 0', 'ask 1', 'ask 2', 'ask 3']);
    // Seven expected: all four pages asked before any is answered, and no more.
    const exact = await listPages(7);
    expect(exact.events.slice(0, 4)).toEqual(['ask 0', 'ask 1', 'ask 2', 'ask 3']);
    expect(asked(exact.events)).toEqual(asked(plain.events));
    expect(exact.accounts).toEqual(ACCOUNTS);
    // Too many expected: two empty pages more; too few: the rest after the first answers.
    const over = await listPages(12);
    expect(asked(over.events)).toHaveLength(6);
    expect(over.accounts).toEqual(ACCOUNTS);
    const under = await listPages(4);
    expect(under.events.slice(0, 2)).toEqual(['ask 0', 'ask 1']);
    expect(asked(under.events)).toEqual(asked(plain.events));
    expect(under.accounts).toEqual(ACCOUNTS);
  });

  it('reports progress: known grows as lists come in, done reaches it once every call is answered', async () => {
    const seen: ReadProgress[] = [];
    const { calls } = await readCalls(() =>
      readLiveState(readOnlyClient(client), READ_EVERYTHING, {
        pageSize: 3,
        onProgress: (p) => seen.push(p),
      }),
    );
    const total = Object.values(calls).reduce((a, b) => a + b, 0);
    expect(seen.every((p) => p.done <= p.known)).toBe(true);
    expect(seen.at(-1)).toEqual({ done: total, known: total });
    const knowns = seen.map((p) => p.known);
    expect(knowns).toEqual([...knowns].sort((a, b) => a - b));
  });

  it('hands the reader at most `window` configuration reads at once, and reads them all', async () => {
    const real = readOnlyClient(client);
    let open = 0;
    let most = 0;
    const reader: LiveReader = {
      ...real,
      getguideconfig: async (request) => {
        // The account's default welcome is read apart from the guides' configurations.
        const guide = request !== undefined && 'guide_account' in request ? 1 : 0;
        open += guide;
        most = Math.max(most, open);
        try {
          return await real.getguideconfig(request);
        } finally {
          open -= guide;
        }
      },
    };
    const live = await readLiveState(reader, READ_EVERYTHING, { window: 2 });
    expect(most).toBe(2);
    expect(live.guides.filter((g) => g.config !== undefined)).toHaveLength(7);
  });

  it('fails with the error of a failed read, and leaves no read unobserved', async () => {
    const real = readOnlyClient(client);
    const reader: LiveReader = {
      ...real,
      getguideconfig: async (request) => {
        await real.getguideconfig(request);
        throw new Error(`config of ${JSON.stringify(request)} lost`);
      },
    };
    // Several configs fail at once; the first to be awaited is the one reported, and none of the
    // others surfaces as an unhandled rejection (vitest fails the run on one).
    await expect(readLiveState(reader, READ_EVERYTHING)).rejects.toThrow(/^config of .* lost$/);
  });
});
