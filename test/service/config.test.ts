import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { guideBody, startTestService, type TestService } from '../helpers/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.sim('reset');
  await t.ok('addguideacct', guideBody('alice_wx', 'Alice'));
});

const alice = { guide_account: 'alice_wx' };
const card = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    appid: 'wx1234567890abcdef',
    title: 'New arrivals',
    path: 'pages/new/index',
    media_id: 'MEDIA_1',
    ...over,
  });

async function replies(): Promise<unknown[]> {
  const config = await t.ok('getguideconfig', alice);
  return (config['guide_fast_reply_list'] as Array<{ content: string }>).map((r) => r.content);
}

describe('quick replies', () => {
  it('appends on every add and reads back in order with updatetime', async () => {
    await t.ok('setguideconfig', {
      ...alice,
      is_delete: false,
      guide_fast_reply_list: [{ content: 'a' }, { content: 'b' }],
    });
    await t.ok('setguideconfig', { ...alice, is_delete: false, guide_fast_reply_list: [{ content: 'c' }] });
    expect(await replies()).toEqual(['a', 'b', 'c']);
    const config = await t.ok('getguideconfig', alice);
    const first = (config['guide_fast_reply_list'] as Array<Record<string, unknown>>)[0];
    expect(typeof first?.['updatetime']).toBe('number');
  });

  it('deletes only all together, whatever the list names', async () => {
    await t.ok('setguideconfig', {
      ...alice,
      is_delete: false,
      guide_fast_reply_list: [{ content: 'a' }, { content: 'b' }],
    });
    await t.ok('setguideconfig', {
      ...alice,
      is_delete: true,
      guide_fast_reply_list: [{ content: 'not-there' }],
    });
    expect(await replies()).toEqual([]);
  });

  it('needs a guide', async () => {
    const answer = await t.call('setguideconfig', {
      is_delete: false,
      guide_fast_reply_list: [{ content: 'a' }],
    });
    expect(answer.json['errcode']).toBe(40101);
    expect(answer.json['errmsg']).toContain('guide_account');
  });

  it('checks entries and is_delete', async () => {
    const noContent = await t.call('setguideconfig', {
      ...alice,
      is_delete: false,
      guide_fast_reply_list: [{}],
    });
    expect(noContent.json['errcode']).toBe(40101);
    const badType = await t.call('setguideconfig', {
      ...alice,
      is_delete: 'no',
      guide_fast_reply_list: [{ content: 'a' }],
    });
    expect(badType.json['errcode']).toBe(40097);
    expect(badType.json['errmsg']).toContain('is_delete');
    const nothing = await t.call('setguideconfig', { ...alice, is_delete: false });
    expect(nothing.json['errcode']).toBe(40101);
    const ghost = await t.call('setguideconfig', {
      guide_account: 'ghost_wx',
      is_delete: false,
      guide_fast_reply_list: [{ content: 'a' }],
    });
    expect(ghost.json['errcode']).toBe(9300804);
  });
});

describe('welcome messages', () => {
  it('sets two, and every set replaces both', async () => {
    await t.ok('setguideconfig', {
      ...alice,
      is_delete: false,
      guide_auto_reply: { msgtype: 1, content: 'Hi' },
      guide_auto_reply_plus: { msgtype: '2', content: 'MEDIA_ID' },
    });
    let config = await t.ok('getguideconfig', alice);
    expect(config['guide_auto_reply']).toMatchObject({ msgtype: 1, content: 'Hi' });
    expect(config['guide_auto_reply_plus']).toMatchObject({ msgtype: 2, content: 'MEDIA_ID' });
    await t.ok('setguideconfig', {
      ...alice,
      is_delete: false,
      guide_auto_reply: { msgtype: 1, content: 'Only' },
    });
    config = await t.ok('getguideconfig', alice);
    expect(config['guide_auto_reply']).toMatchObject({ msgtype: 1, content: 'Only' });
    expect(config).not.toHaveProperty('guide_auto_reply_plus');
  });

  it('deletes both with {"msgtype": 1}', async () => {
    await t.ok('setguideconfig', {
      ...alice,
      is_delete: false,
      guide_auto_reply: { msgtype: 1, content: 'Hi' },
      guide_auto_reply_plus: { msgtype: 1, content: 'Again' },
    });
    await t.ok('setguideconfig', { ...alice, is_delete: true, guide_auto_reply: { msgtype: 1 } });
    const config = await t.ok('getguideconfig', alice);
    expect(config).not.toHaveProperty('guide_auto_reply');
    expect(config).not.toHaveProperty('guide_auto_reply_plus');
  });

  it('reads a card back without media_id and with pic_url', async () => {
    await t.ok('setguideconfig', {
      ...alice,
      is_delete: false,
      guide_auto_reply: { msgtype: 3, content: card() },
    });
    const config = await t.ok('getguideconfig', alice);
    const reply = config['guide_auto_reply'] as { msgtype: number; content: string };
    expect(reply.msgtype).toBe(3);
    const read = JSON.parse(reply.content) as Record<string, unknown>;
    expect(read).toMatchObject({
      appid: 'wx1234567890abcdef',
      title: 'New arrivals',
      path: 'pages/new/index',
    });
    expect(read).not.toHaveProperty('media_id');
    expect(String(read['pic_url'])).toContain('MEDIA_1');
  });

  it('checks msgtype and content of each kind', async () => {
    const set = (reply: unknown) =>
      t.call('setguideconfig', { ...alice, is_delete: false, guide_auto_reply: reply });
    expect((await set({ msgtype: 1, content: '' })).json['errcode']).toBe(40101);
    expect((await set({ msgtype: 4, content: 'x' })).json['errcode']).toBe(40097);
    expect((await set({ msgtype: 2, content: 'not a media id!' })).json['errcode']).toBe(9300819);
    expect((await set({ msgtype: 3, content: 'not json' })).json['errcode']).toBe(40097);
    expect((await set({ msgtype: 3, content: card({ title: undefined }) })).json['errmsg']).toContain(
      'title',
    );
    expect((await set({ msgtype: 3, content: card({ title: 'x'.repeat(36) }) })).json['errcode']).toBe(40097);
    await t.ok('setguideconfig', {
      ...alice,
      is_delete: false,
      guide_auto_reply: { msgtype: 3, content: card({ title: 'x'.repeat(35) }) },
    });
    expect((await set({ msgtype: 3, content: card({ appid: 'nope' }) })).json['errcode']).toBe(40166);
    await t.sim('miniprogram', { appid: 'wxaaaaaaaaaaaaaaaa', kind: 'miniprogram', linked: false });
    expect((await set({ msgtype: 3, content: card({ appid: 'wxaaaaaaaaaaaaaaaa' }) })).json['errcode']).toBe(
      40168,
    );
    const plusOnly = await t.call('setguideconfig', {
      ...alice,
      is_delete: false,
      guide_auto_reply_plus: { msgtype: 1, content: 'x' },
    });
    expect(plusOnly.json['errcode']).toBe(40101);
    expect(plusOnly.json['errmsg']).toContain('guide_auto_reply');
  });

  it('keeps the account-wide default apart from the guides', async () => {
    await t.ok('setguideconfig', {
      is_delete: false,
      guide_auto_reply: { msgtype: 1, content: 'Store welcome' },
    });
    const account = await t.ok('getguideconfig', {});
    expect(account['guide_auto_reply']).toMatchObject({ content: 'Store welcome' });
    expect(account['guide_fast_reply_list']).toEqual([]);
    expect(await t.ok('getguideconfig', alice)).not.toHaveProperty('guide_auto_reply');
    await t.ok('setguideconfig', { is_delete: true, guide_auto_reply: { msgtype: 1 } });
    expect(await t.ok('getguideconfig', {})).not.toHaveProperty('guide_auto_reply');
  });
});

describe('offline auto reply', () => {
  it('sets up to 300 characters, refuses 301, deletes with is_delete', async () => {
    await t.ok('setguideacctconfig', { is_delete: false, guide_auto_reply: { content: '字'.repeat(300) } });
    expect((await t.ok('getguideacctconfig', {}))['guide_auto_reply']).toEqual({ content: '字'.repeat(300) });
    const long = await t.call('setguideacctconfig', {
      is_delete: false,
      guide_auto_reply: { content: '字'.repeat(301) },
    });
    expect(long.json['errcode']).toBe(40097);
    expect(long.json['errmsg']).toContain('301 characters');
    await t.ok('setguideacctconfig', { is_delete: true, guide_auto_reply: { content: 'x' } });
    expect(await t.ok('getguideacctconfig', {})).not.toHaveProperty('guide_auto_reply');
  });

  it('is deleted by "guide_auto_reply": null, with is_delete false or true (as documented)', async () => {
    for (const isDelete of [false, true]) {
      await t.ok('setguideacctconfig', { is_delete: false, guide_auto_reply: { content: 'back' } });
      await t.ok('setguideacctconfig', { is_delete: isDelete, guide_auto_reply: null });
      expect(await t.ok('getguideacctconfig', {})).not.toHaveProperty('guide_auto_reply');
    }
    // With black_keyword beside it: both act; the words as black_keyword says.
    await t.ok('setguideacctconfig', { is_delete: false, guide_auto_reply: { content: 'back' } });
    await t.ok('setguideacctconfig', {
      is_delete: false,
      guide_auto_reply: null,
      black_keyword: { values: ['n'] },
    });
    const config = await t.ok('getguideacctconfig', {});
    expect(config).not.toHaveProperty('guide_auto_reply');
    expect((config['black_keyword'] as { values: string[] }).values).toEqual(['n']);
    // Neither key: nothing to do.
    const neither = await t.call('setguideacctconfig', { is_delete: false });
    expect(neither.json['errcode']).toBe(40101);
  });

  it('"black_keyword": null deletes every word with is_delete: false, and changes nothing with true', async () => {
    await t.ok('setguideacctconfig', { is_delete: false, black_keyword: { values: ['x', 'y'] } });
    await t.ok('setguideacctconfig', { is_delete: true, black_keyword: null });
    expect(await words(t)).toEqual(['x', 'y']);
    await t.ok('setguideacctconfig', { is_delete: false, black_keyword: null });
    expect(await words(t)).toEqual([]);
  });

  it('is left alone when the key is left out', async () => {
    await t.ok('setguideacctconfig', { is_delete: false, guide_auto_reply: { content: 'kept' } });
    await t.ok('setguideacctconfig', { is_delete: false, black_keyword: { values: ['w'] } });
    expect((await t.ok('getguideacctconfig', {}))['guide_auto_reply']).toEqual({ content: 'kept' });
  });
});

async function words(s: TestService): Promise<unknown> {
  return ((await s.ok('getguideacctconfig', {}))['black_keyword'] as { values: string[] }).values;
}

describe('sensitive words', () => {
  it('append (the default): adds what is missing, null deletes all, is_delete deletes those', async () => {
    await t.ok('setguideacctconfig', { is_delete: false, black_keyword: { values: ['a', 'b'] } });
    await t.ok('setguideacctconfig', { is_delete: false, black_keyword: { values: ['b', 'c'] } });
    expect(await words(t)).toEqual(['a', 'b', 'c']);
    await t.ok('setguideacctconfig', { is_delete: true, black_keyword: { values: ['a', 'zzz'] } });
    expect(await words(t)).toEqual(['b', 'c']);
    await t.ok('setguideacctconfig', { is_delete: false, black_keyword: null });
    expect(await words(t)).toEqual([]);
  });

  it('replace: one call sets the whole list', async () => {
    const r = await startTestService({ settings: { sensitiveWords: 'replace' } });
    try {
      await r.ok('setguideacctconfig', { is_delete: false, black_keyword: { values: ['a', 'b'] } });
      await r.ok('setguideacctconfig', { is_delete: false, black_keyword: { values: ['b', 'c'] } });
      expect(await words(r)).toEqual(['b', 'c']);
      await r.ok('setguideacctconfig', { is_delete: true, black_keyword: { values: ['b'] } });
      expect(await words(r)).toEqual(['c']);
      await r.ok('setguideacctconfig', { is_delete: false, black_keyword: { values: [] } });
      expect(await words(r)).toEqual([]);
    } finally {
      await r.close();
    }
  });

  it('stops at the word count limit with 9300814 and changes nothing', async () => {
    const small = await startTestService({ settings: { maxSensitiveWords: 3 } });
    try {
      await small.ok('setguideacctconfig', { is_delete: false, black_keyword: { values: ['a', 'b', 'c'] } });
      const over = await small.call('setguideacctconfig', {
        is_delete: false,
        black_keyword: { values: ['d'] },
        guide_auto_reply: { content: 'not stored either' },
      });
      expect(over.json['errcode']).toBe(9300814);
      expect(await words(small)).toEqual(['a', 'b', 'c']);
      expect(await small.ok('getguideacctconfig', {})).not.toHaveProperty('guide_auto_reply');
    } finally {
      await small.close();
    }
  });

  it('checks the values', async () => {
    const notArray = await t.call('setguideacctconfig', { is_delete: false, black_keyword: { values: 'a' } });
    expect(notArray.json['errcode']).toBe(40097);
    const emptyWord = await t.call('setguideacctconfig', {
      is_delete: false,
      black_keyword: { values: ['ok', ''] },
    });
    expect(emptyWord.json['errmsg']).toContain('black_keyword.values[1]');
    expect((await t.call('setguideacctconfig', { is_delete: false })).json['errcode']).toBe(40101);
  });
});
