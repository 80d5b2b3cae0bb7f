// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${name} in plain strings is the syntax under test
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type ConfigFs, loadDesiredState } from '../../src/config/index.js';
import { UNKNOWN_MEDIA_ID } from '../../src/core/guide-rules.js';
import type { LiveState, LiveTask } from '../../src/core/live.js';
import { planChanges } from '../../src/plan/index.js';
import { exportWrittenNotice, renderExport } from '../../src/report/export.js';
import { liveGroup, liveGuide, liveState } from '../helpers/plan-builder.js';
import { UNSAFE } from '../helpers/unsafe-text.js';

// renderExport on live states built in code: what the file holds, what it warns of, and that the
// file, read back by the config loader, plans to no changes against the account it came from.

/** Strings that YAML would read as something else when written bare. */
const TRICKY = ['yes', 'null', '007', '- dash', '# hash', ' lead', 'a: b', 'Ünï 🎉', `it's "q"`, '~', '1e3'];

const live: LiveState = liveState({
  guides: [
    liveGuide('zed_wx', {
      nickname: 'null',
      config: { quickReplies: TRICKY, welcome: [{ type: 'text', text: 'Hello\nthere' }] },
    }),
    liveGuide('openid oAbc_123', { nickname: '007' }),
    liveGuide('amy_wx', { nickname: 'yes', config: { quickReplies: [], welcome: [] } }),
  ],
  groups: [
    liveGroup('1860131524965138433', 'North', ['zed_wx', 'amy_wx']),
    liveGroup('1860131524965138434', 'true', []),
  ],
  account: {
    offlineAutoReply: '# back soon',
    sensitiveWords: ['scam', 'cheap', '0x1F'],
    defaultWelcome: [{ type: 'image', mediaId: 'MEDIA_1' }],
  },
});

/** The config loader over one in-memory file. */
function memoryFs(text: string): ConfigFs {
  const bytes = new TextEncoder().encode(text);
  return {
    stat: async () => ({ isFile: () => true, isDirectory: () => false, size: bytes.length }),
    readdir: async () => [],
    readFile: async () => bytes,
  };
}

describe('renderExport', () => {
  const { text, warnings } = renderExport(live, { schemaPath: './schema.json' });

  it('writes every guide by account (then openid), every group by name with its members sorted, and the account', () => {
    const file = parse(text) as Record<string, unknown>;
    expect(file['version']).toBe(1);
    expect(file['prune']).toBeUndefined();
    expect(file['account']).toEqual({
      offline_auto_reply: '# back soon',
      sensitive_words: { semantics: 'append', words: ['0x1F', 'cheap', 'scam'] },
      default_welcome: [{ image: 'MEDIA_1' }],
    });
    expect(file['groups']).toEqual([
      { name: 'North', members: ['amy_wx', 'zed_wx'] },
      { name: 'true', members: [] },
    ]);
    expect(file['guides']).toEqual([
      {
        account: 'amy_wx',
        nickname: 'yes',
        head_image_url: 'https://img.example/amy_wx',
        quick_replies: [],
        welcome: [],
      },
      {
        account: 'zed_wx',
        nickname: 'null',
        head_image_url: 'https://img.example/zed_wx',
        quick_replies: TRICKY,
        welcome: [{ text: 'Hello\nthere' }],
      },
      // A guide whose configuration was not read is written without it (left alone).
      { openid: 'oAbc_123', nickname: '007', head_image_url: 'https://img.example/oAbc_123' },
    ]);
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=./schema.json');
    expect(warnings).toEqual([]);
  });

  it('is read back by the config loader as a state that plans to no changes against the account', async () => {
    const loaded = await loadDesiredState(['export.yaml'], { fs: memoryFs(text) });
    expect(loaded.diagnostics).toEqual([]);
    if (loaded.state === undefined) throw new Error('not loaded');
    const { plan, diagnostics } = planChanges(loaded.state, live);
    expect(diagnostics).toEqual([]);
    expect(plan?.calls).toEqual([]);
  });

  it('writes each ${ of a live text as $${, so that the file reads back as the same texts, without a warning', async () => {
    // A file is read with ${name} substituted (or warned of, without environments) and $${ as a
    // literal ${: live texts holding either must be written so that they read back unchanged.
    const NOW = 1_796_000_000;
    const texts = ['Pay in ${currency}', 'Use $${code} to save', '$5 or $$5', '${unclosed', 'a $${ b ${ c'];
    const dollars: LiveState = {
      ...liveState({
        guides: [liveGuide('amy_wx', { nickname: '${nick}', config: { quickReplies: texts, welcome: [] } })],
        groups: [liveGroup('1860131524965138433', '${group}', ['amy_wx'])],
        account: { offlineAutoReply: 'Back at ${time}', sensitiveWords: ['${w}'], defaultWelcome: [] },
      }),
      tasks: [
        {
          id: '9007199254740993',
          guide: { kind: 'account', account: 'amy_wx' },
          name: 'Sale ${n}',
          remark: '$${r}',
          pushAt: NOW + 3600,
          status: 'pending',
          recipients: ['oA'],
          materials: [{ type: 'text', text: 'Only ${price}' }],
        },
      ],
      readAt: NOW,
    };
    const exported = renderExport(dollars);
    expect(exported.warnings).toEqual([]);
    expect(exported.text).toContain('      - Pay in $${currency}\n      - Use $$${code} to save\n');
    const loaded = await loadDesiredState(['export.yaml'], { fs: memoryFs(exported.text) });
    expect(loaded.diagnostics).toEqual([]);
    if (loaded.state === undefined) throw new Error('not loaded');
    const { plan, diagnostics } = planChanges(loaded.state, dollars);
    expect(diagnostics).toEqual([]);
    expect(plan?.calls).toEqual([]);
    expect(plan?.unmanaged).toEqual([]);
  });

  it('as an environment file, writes the values as references in tasks too, and every other ${ as $${', () => {
    const NOW = 1_796_000_000;
    const greeting = 'Welcome to the flagship store';
    const withTask: LiveState = {
      ...liveState({ guides: [liveGuide('amy_wx')] }),
      tasks: [
        {
          id: '9007199254740993',
          guide: { kind: 'account', account: 'amy_wx' },
          name: 'Sale',
          remark: '',
          pushAt: NOW + 3600,
          status: 'pending',
          recipients: ['oA'],
          materials: [{ type: 'text', text: `${greeting}: only \${price}` }],
        },
      ],
      readAt: NOW,
    };
    const environment = {
      name: 'production',
      values: new Map([['greeting', greeting]]),
      cardMediaIds: new Map<string, string>(),
    };
    const file = parse(renderExport(withTask, { environment }).text) as { tasks: { materials: unknown[] }[] };
    expect(file.tasks[0]?.materials).toEqual([{ text: '${greeting}: only $${price}' }]);
  });

  it('warns of what it cannot export exactly: a card (its media id), an unknown message, groups sharing a name', () => {
    const odd = liveState({
      guides: [
        liveGuide('amy_wx', {
          config: {
            quickReplies: [],
            welcome: [
              { type: 'miniprogram', appid: 'wx0123456789abcdef', title: 'Shop', path: 'pages/index' },
              { type: 'unknown', msgtype: 9, content: '?' },
            ],
          },
        }),
      ],
      groups: [
        liveGroup('1860131524965138433', 'Twin', ['amy_wx']),
        liveGroup('1860131524965138434', 'Twin', []),
        liveGroup('1860131524965138435', 'Solo', []),
      ],
    });
    const exported = renderExport(odd);
    // In the order of the file: account, groups, guides.
    expect(exported.warnings).toEqual([
      'groups id 1860131524965138433, id 1860131524965138434 share the name "Twin", which a file cannot give twice: all were left out, so a plan of the file leaves them alone; to manage them, add the group to the file (a plan then keeps one, moves the members of the others onto it and deletes the others)',
      `guide amy_wx: a mini-program card's media_id cannot be read back; ${UNKNOWN_MEDIA_ID} stands in its place; validate, plan and apply refuse the file until it is replaced with the media id of the card's cover`,
      'guide amy_wx: a welcome message of msgtype 9 is not understood and was left out',
    ]);
    const file = parse(exported.text) as { guides: { welcome: unknown[] }[]; groups: unknown[] };
    expect(file.guides[0]?.welcome).toEqual([
      {
        miniprogram: {
          appid: 'wx0123456789abcdef',
          title: 'Shop',
          path: 'pages/index',
          media_id: UNKNOWN_MEDIA_ID,
        },
      },
    ]);
    expect(file.groups).toEqual([{ name: 'Solo', members: [] }]);
    // Counted as written: the groups sharing a name are not.
    expect(exported.counts).toEqual({ guides: 1, groups: 1, tasks: 0 });
    expect(exportWrittenNotice('out.yaml', exported.counts)).toBe(
      'guidectl: wrote out.yaml: 1 guide, 1 group\n',
    );
  });

  it('writes every control character, line separator and bidi override escaped: export prints to a terminal', () => {
    // C0 (YAML escapes those by itself), C1 (U+009B is a CSI: "\u009b2J" clears some screens), DEL,
    // the line separator, a bidi override, the byte-order mark, a tab.
    const evil = 'Eve\u001b[2J\r\u0007\u009b2J\u0085\u007f\u2028\u202e\ufeff\tx';
    const replies = [evil, 'plain', 'two\nlines'];
    const exported = renderExport(
      liveState({
        guides: [liveGuide('eve_wx', { nickname: evil, config: { quickReplies: replies, welcome: [] } })],
      }),
    );
    expect(exported.text).not.toMatch(UNSAFE);
    const file = parse(exported.text) as { guides: { nickname: string; quick_replies: string[] }[] };
    expect(file.guides[0]).toMatchObject({ nickname: evil, quick_replies: replies });
    // Strings without such characters are written as before: bare, or as a block.
    expect(exported.text).toContain('      - plain\n      - |-\n        two\n        lines\n');
  });

  it('writes the pending tasks, by guide and name, the oldest of a name; an image as the placeholder', async () => {
    const NOW = 1_796_000_000;
    const alice = { kind: 'account', account: 'amy_wx' } as const;
    const task = (id: string, name: string, over: Partial<LiveTask> = {}): LiveTask => ({
      id,
      guide: alice,
      name,
      remark: '',
      pushAt: NOW + 3600,
      status: 'pending',
      recipients: ['oA', 'oB'],
      materials: [{ type: 'text', text: 'yes' }],
      ...over,
    });
    const withTasks: LiveState = {
      ...liveState({ guides: [liveGuide('amy_wx')] }),
      tasks: [
        task('9007199254740995', 'Sale', { remark: 'null' }),
        task('12', 'Done', { status: 'completed', pushAt: NOW - 60 }),
        task('9007199254740993', 'Sale', { remark: 'second copy' }),
        task('13', 'Pic', { materials: [{ type: 'image', picUrl: 'https://x/y/0' }] }),
      ],
      readAt: NOW,
    };
    const exported = renderExport(withTasks);
    const file = parse(exported.text) as { tasks: unknown[] };
    expect(file.tasks).toEqual([
      {
        name: 'Pic',
        guide: 'amy_wx',
        push_at: '2026-11-30T01:53:20Z',
        recipients: ['oA', 'oB'],
        materials: [{ image: UNKNOWN_MEDIA_ID }],
      },
      {
        name: 'Sale',
        guide: 'amy_wx',
        remark: 'second copy',
        push_at: '2026-11-30T01:53:20Z',
        recipients: ['oA', 'oB'],
        materials: [{ text: 'yes' }],
      },
    ]);
    expect(exported.warnings).toEqual([
      `task "Pic" of amy_wx: an image's media_id cannot be read back (only its picture URL); ${UNKNOWN_MEDIA_ID} stands in its place; validate, plan and apply refuse the file until it is replaced`,
      'task "Sale" of amy_wx (id 9007199254740995) has the name of another pending task of the guide and was left out: a plan of the file keeps the one written and cancels this copy',
    ]);
    // Counted as written: the executed task and the second pending copy of a name are not.
    expect(exported.counts).toEqual({ guides: 1, groups: 0, tasks: 2 });
    expect(exportWrittenNotice('out.yaml', exported.counts)).toBe(
      'guidectl: wrote out.yaml: 1 guide, 0 groups, 2 tasks\n',
    );
    // Without the image, the file plans no change but the cancel of the second copy: a copy of a
    // task is never left live as if the account matched the files.
    const noPicture: LiveState = {
      ...withTasks,
      tasks: (withTasks.tasks ?? []).filter((t) => t.name !== 'Pic'),
    };
    const textOnly = renderExport(noPicture);
    const loaded = await loadDesiredState(['export.yaml'], { fs: memoryFs(textOnly.text) });
    if (loaded.state === undefined) throw new Error(JSON.stringify(loaded.diagnostics));
    const { plan } = planChanges(loaded.state, noPicture);
    expect(plan?.calls.map((c) => [c.operation, c.body])).toEqual([
      ['cancelguidemassendjob', { task_id: '9007199254740995' }],
    ]);
    expect(plan?.unmanaged).toEqual([]);
  });
});
