import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type ConfigFs, loadDesiredState } from '../../src/config/index.js';
import type { Diagnostic } from '../../src/core/diagnostics.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLES = nodePath.join(ROOT, 'examples');
const tmp = mkdtempSync(nodePath.join(tmpdir(), 'guidectl-config-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let counter = 0;
function writeTemp(content: string | Uint8Array, name = `file-${++counter}.yaml`): string {
  const path = nodePath.join(tmp, name);
  writeFileSync(path, content);
  return path;
}

const GUIDE =
  'version: 1\nguides:\n  - account: alice_wx\n    nickname: Alice\n    head_image_url: https://mmbiz.qpic.cn/alice/0\n';

function brief(d: Diagnostic): string {
  return `${d.severity} ${d.code} ${d.line}:${d.column}`;
}

async function diagnose(content: string | Uint8Array): Promise<string[]> {
  const { diagnostics } = await loadDesiredState([writeTemp(content)]);
  return diagnostics.map(brief);
}

describe('bad input gives a clear diagnostic, never a throw', () => {
  it('a missing name: the advice says what the name is of, a group or a task', async () => {
    const task =
      'tasks:\n  - guide: alice_wx\n    push_at: "2026-12-01T10:00:00+08:00"\n    recipients: [oC1]\n    materials: [{text: Hi}]\n';
    const group = 'groups:\n  - members: [alice_wx]\n';
    const hints = async (content: string): Promise<(string | undefined)[]> =>
      (await loadDesiredState([writeTemp(content)])).diagnostics.map((d) => d.hint);
    expect(await hints(GUIDE + task)).toEqual([
      'add the name of the task, 1 to 16 characters, unique per guide: name: Spring sale',
    ]);
    expect(await hints(GUIDE + group)).toEqual(['add the name of the group']);
  });

  it('an empty file', async () => {
    expect(await diagnose('')).toEqual(['error file-empty 1:1']);
    expect(await diagnose('\n\n   \n')).toEqual(['error file-empty 1:1']);
    expect(await diagnose('---\n')).toEqual(['error file-empty 1:1']);
  });

  it('a scalar or a list at the top', async () => {
    expect(await diagnose('hello\n')).toEqual(['error top-level-not-mapping 1:1']);
    expect(await diagnose('42\n')).toEqual(['error top-level-not-mapping 1:1']);
    expect(await diagnose('\n- a\n')).toEqual(['error top-level-not-mapping 2:1']);
  });

  it('a path that does not exist', async () => {
    const missing = nodePath.join(tmp, 'no-such-file.yaml');
    const { diagnostics, state } = await loadDesiredState([missing]);
    expect(state).toBeUndefined();
    expect(diagnostics).toMatchObject([{ code: 'path-not-found', file: missing, line: 1, column: 1 }]);
  });

  it('a path that is neither a file nor a folder', async () => {
    const { diagnostics } = await loadDesiredState(['/dev/null']);
    expect(diagnostics.map(brief)).toEqual(['error path-unreadable 1:1']);
  });

  it('a file that may not be read', async () => {
    const denied = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    const fs: ConfigFs = {
      stat: async () => ({ isFile: () => true, isDirectory: () => false, size: 10 }),
      readdir: async () => [],
      readFile: async () => {
        throw denied;
      },
    };
    const { diagnostics } = await loadDesiredState(['/secret/guides.yaml'], { fs });
    expect(diagnostics).toMatchObject([
      {
        code: 'path-unreadable',
        file: '/secret/guides.yaml',
        message: expect.stringContaining('permission denied'),
      },
    ]);
  });

  it('a 100 MB file is refused before it is read', async () => {
    const big = writeTemp('');
    truncateSync(big, 100 * 1024 * 1024); // sparse: costs no disk and no time
    const { diagnostics } = await loadDesiredState([big]);
    expect(diagnostics).toMatchObject([
      { code: 'file-too-large', line: 1, column: 1, message: 'the file is 100 MiB; the limit is 64 MiB' },
    ]);
  });

  it("a file of 12 MiB is read: one file may hold the 100,000 guides of the service's limit", async () => {
    const comment = `# ${'x'.repeat(1021)}\n`;
    const { state, diagnostics } = await loadDesiredState([
      writeTemp(`${GUIDE}${comment.repeat(12 * 1024)}`),
    ]);
    expect(diagnostics).toEqual([]);
    expect(state?.guides).toHaveLength(1);
  });

  it('a recipients_file that grew past the limit between stat and read is refused, as a desired-state file is', async () => {
    const yaml = Buffer.from(
      'version: 1\ntasks:\n  - name: Sale\n    guide: alice_wx\n    push_at: "2026-12-01T10:00:00+08:00"\n    recipients_file: vip.csv\n    materials: [{text: Hi}]\n',
    );
    const csv = Buffer.from(`openid\n${'oC1\n'.repeat(200)}`);
    // stat says 10 bytes; the read then gives 807: the file grew in between.
    const fs: ConfigFs = {
      stat: async () => ({ isFile: () => true, isDirectory: () => false, size: 10 }),
      readdir: async () => [],
      readFile: async (path) => (path.endsWith('vip.csv') ? csv : yaml),
    };
    const { diagnostics } = await loadDesiredState(['/w/tasks.yaml'], { fs, maxFileBytes: 512 });
    expect(diagnostics).toContainEqual(
      expect.objectContaining({
        code: 'recipients-file-not-found',
        line: 6,
        message: 'recipients_file "vip.csv" cannot be read: the file is 807 bytes; the limit is 512 bytes',
      }),
    );
  });

  it('the size limit can be set', async () => {
    const { diagnostics } = await loadDesiredState([writeTemp(GUIDE)], { maxFileBytes: 64 });
    expect(diagnostics.map((d) => d.code)).toEqual(['file-too-large']);
  });

  it('binary junk, with the position of the first bad byte', async () => {
    const junk = Uint8Array.from([...Buffer.from('version: 1\nguides: ['), 0xc3, 0x28, 0xff, 0xfe, 0x00]);
    expect(await diagnose(junk)).toEqual(['error file-not-text 2:10']);
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
    expect(await diagnose(png)).toEqual(['error file-not-text 1:1']);
  });

  it('NUL bytes and control characters', async () => {
    expect(await diagnose('version: 1\nguides: []\u0000\n')).toEqual(['error file-not-text 2:11']);
    expect(await diagnose('version: 1\naccount:\n  offline_auto_reply: a\u0007b\n')).toEqual([
      'error file-not-text 3:24',
    ]);
  });

  it('UTF-16 text', async () => {
    const utf16 = Uint8Array.from([0xff, 0xfe, ...Buffer.from('version: 1\n', 'utf16le')]);
    const { diagnostics } = await loadDesiredState([writeTemp(utf16)]);
    expect(diagnostics).toMatchObject([{ code: 'file-not-text', message: 'the file is encoded in UTF-16' }]);
  });

  it('Windows line endings give the same positions', async () => {
    const text = GUIDE.replace('nickname: Alice', 'nickname: Alexandra the Great').replace(/\n/g, '\r\n');
    expect(await diagnose(text)).toEqual(['error nickname-too-long 4:15']);
  });

  it('a byte-order mark is fine', async () => {
    expect(await diagnose(`\uFEFF${GUIDE}`)).toEqual([]);
  });

  it('invalid YAML, with the position', async () => {
    expect(await diagnose('version: 1\nguides: [a, b\n')).toEqual(['error yaml-syntax 3:1']);
    expect(await diagnose("version: 1\naccount: {offline_auto_reply: 'x}\n")).toEqual([
      'error yaml-syntax 3:1',
    ]);
  });

  it('a key indented one space too few is an indentation problem, shown at the key', async () => {
    const said = async (text: string) =>
      (await loadDesiredState([writeTemp(text)])).diagnostics.map(
        (d) => `${d.code} ${d.line}:${d.column}-${d.endColumn} ${d.message}; ${d.hint}`,
      );
    const guide = 'version: 1\nguides:\n  - account: alice_wx\n    nickname: Alice\n';
    expect(await said(`${guide}   head_image_url: https://example.com/a.png\n`)).toEqual([
      'yaml-indent 5:4-18 the key "head_image_url" is indented 3 spaces, a column no key above it is at, so YAML ' +
        'cannot tell which mapping it belongs to; indent it by 4 spaces, as "nickname" on line 4',
    ]);
    // Under a list inside the entry, with a blank line and a comment between: the nearest column.
    expect(await said(`${guide}    welcome:\n      - text: Hi\n\n   # late\n     more: x\n`)).toEqual([
      'yaml-indent 9:6-10 the key "more" is indented 5 spaces, a column no key above it is at, so YAML ' +
        'cannot tell which mapping it belongs to; indent it by 4 spaces, as "welcome" on line 5',
    ]);
  });

  it('a key indented deeper than a key with its value is an indentation problem, at the key', async () => {
    const said = async (text: string) =>
      (await loadDesiredState([writeTemp(text)])).diagnostics.map(
        (d) => `${d.code} ${d.line}:${d.column}-${d.endColumn} ${d.message}; ${d.hint}`,
      );
    const guide = 'version: 1\nguides:\n  - account: alice_wx\n    nickname: Alice\n';
    // One error, at the key: the yaml package's two ("nested mappings…", "implicit keys…") are at line 4.
    expect(await said(`${guide}      quick_replies: []\n`)).toEqual([
      'yaml-indent 5:7-20 the key "quick_replies" is indented 6 spaces, deeper than "nickname" on line 4, ' +
        'which has its value on its line, so YAML reads both lines as one value; indent it by 4 spaces, as "nickname" on line 4',
    ]);
  });

  it('an unquoted reference inside [ ] or { } is said to need quotes', async () => {
    const said = async (text: string) =>
      (await loadDesiredState([writeTemp(text)])).diagnostics.map(
        (d) => `${d.code} ${d.line}:${d.column}-${d.endColumn} ${d.message}; ${d.hint}`,
      );
    const refs =
      'version: 1\nenvironments:\n  a:\n    values: {w: x}\naccount:\n  sensitive_words:\n    semantics: append\n';
    expect(await said(`${refs}    words: [a, \${w}]\n`)).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a reference as the message quotes it
      'yaml-syntax 8:16-20 invalid YAML: ${w} is not quoted, and inside [ ] or { } YAML reads its "{" as the start of a mapping; quote the reference: "${w}"',
    ]);
    expect(await said(`${refs}    words: [sale\${w}]\n`)).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a reference as the message quotes it
      'yaml-syntax 8:13-21 invalid YAML: ${w} is not quoted, and inside [ ] or { } YAML reads its "{" as the start of a mapping; quote the whole value that holds it: "…${w}"',
    ]);
  });

  it('unresolved aliases', async () => {
    expect(await diagnose('version: 1\nguides: *nothing\n')).toEqual(['error yaml-syntax 2:9']);
  });

  it('a recursive alias is said to refer to the list or mapping that holds it, not to no anchor', async () => {
    for (const [text, at] of [
      ['version: 1\nx-a: &a {b: *a}\n', '2:13'],
      ['version: 1\nx-a: &a\n  b:\n    - *a\n', '4:7'],
      ['version: 1\nx-a: &a\n  b: 1\n  <<: *a\n', '4:7'],
      // An earlier anchor of the same name is not the one the alias refers to.
      ['version: 1\nx-old: &a 1\nx-a: &a {b: *a}\n', '3:13'],
    ] as const) {
      const { diagnostics } = await loadDesiredState([writeTemp(text)]);
      expect(
        diagnostics.map((d) => `${brief(d)} ${d.message}`),
        text,
      ).toEqual([
        `error yaml-syntax ${at} alias *a is inside the list or mapping &a that it refers to: recursive aliases are not allowed`,
      ]);
    }
    expect((await loadDesiredState([writeTemp('version: 1\nx-a: *a\n')])).diagnostics[0]?.message).toBe(
      'alias *a refers to no anchor &a before it',
    );
    // An anchor of the same name inside it, written before the alias, is the one it refers to.
    const inner = 'version: 1\nx-a: &a [&a 1, *a]\nx-b: &b [&b [2], *b]\n';
    expect((await loadDesiredState([writeTemp(inner)])).diagnostics).toEqual([]);
  });

  it('a megabyte of "[" is refused before the parser sees it', async () => {
    expect(await diagnose(`version: 1\nguides: ${'['.repeat(1_000_000)}\n`)).toEqual([
      'error yaml-nesting-too-deep 2:73',
    ]);
  });

  it('does not mistake brackets in text for nesting', async () => {
    const replies = Array.from({ length: 200 }, (_, i) => `      - it's [${i} ok`).join('\n');
    const text = `${GUIDE}    quick_replies:\n${replies}\n`;
    expect(await diagnose(text)).toEqual([]);
  });

  it('keys that would be special in JavaScript are just unknown keys', async () => {
    expect(await diagnose('version: 1\n__proto__: {polluted: true}\nconstructor: 1\n')).toEqual([
      'error unknown-key 2:1',
      'error unknown-key 3:1',
    ]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('a merge key is not special in YAML 1.2', async () => {
    const text = `version: 1\nbase: &base {nickname: Alice}\n${GUIDE.slice(11)}`;
    expect(await diagnose(text)).toEqual(['error unknown-key 2:1']);
  });
});

describe('messages in plain words that name the fix', () => {
  it('nickname too long', async () => {
    const text = GUIDE.replace('nickname: Alice', 'nickname: Alexandra the Great');
    const { diagnostics } = await loadDesiredState([writeTemp(text)]);
    expect(diagnostics).toEqual([
      {
        severity: 'error',
        code: 'nickname-too-long',
        message: 'nickname "Alexandra the Great" is 19 characters; the limit is 16',
        file: expect.any(String),
        line: 4,
        column: 15,
        endLine: 4,
        endColumn: 34,
      },
    ]);
  });

  it('lengths are counted in characters (code points), as WeChat counts them', async () => {
    const sixteen = `${'导购'.repeat(7)}😀🎉`;
    expect([...sixteen]).toHaveLength(16);
    expect(sixteen.length).toBe(18);
    expect(await diagnose(GUIDE.replace('Alice', sixteen))).toEqual([]);
    const seventeen = await loadDesiredState([writeTemp(GUIDE.replace('Alice', `${sixteen}!`))]);
    expect(seventeen.diagnostics[0]?.message).toContain('is 17 characters; the limit is 16');
  });

  it('did you mean, for a misspelt key, without a second error for the key it misses', async () => {
    const { diagnostics } = await loadDesiredState([writeTemp(GUIDE.replace('nickname:', 'nick_name:'))]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]?.message).toBe('unknown key "nick_name" in this guide; did you mean "nickname"?');
  });

  it('did you mean, for the wire names of the API', async () => {
    const { diagnostics } = await loadDesiredState([
      writeTemp(GUIDE.replace('head_image_url', 'guide_headimgurl')),
    ]);
    expect(diagnostics.map((d) => d.message)).toEqual([
      'unknown key "guide_headimgurl" in this guide; did you mean "head_image_url"?',
    ]);
  });

  it('no suggestion when nothing is close; the allowed keys are listed instead', async () => {
    const { diagnostics } = await loadDesiredState([writeTemp(`${GUIDE}    zzz: 1\n`)]);
    expect(diagnostics).toMatchObject([
      {
        code: 'unknown-key',
        message: 'unknown key "zzz" in this guide',
        hint: 'the keys allowed here are: account, openid, nickname, head_image_url, quick_replies, welcome, protected, only_in',
      },
    ]);
  });

  it('a number where text is wanted says to quote it, unless quoted it is still refused', async () => {
    const { diagnostics } = await loadDesiredState([writeTemp(GUIDE.replace('Alice', '12345678'))]);
    expect(diagnostics).toMatchObject([
      {
        code: 'wrong-type',
        message: '"nickname" must be text, not the number 12345678',
        hint: 'put the value in quotes: "12345678"',
      },
    ]);
    const account = await loadDesiredState([writeTemp(GUIDE.replace('alice_wx', '12345678'))]);
    expect(account.diagnostics).toMatchObject([
      {
        code: 'wrong-type',
        message: '"account" must be text, not the number 12345678',
        hint: expect.stringMatching(
          /^quoted, it is still refused: invalid WeChat ID: account "12345678" starts with "1", not a letter; .*; write the WeChat ID/,
        ),
      },
    ]);
  });

  it('a key with no value (but a list, where it means none: null-lists.test.ts)', async () => {
    const text =
      'version: 1\nguides:\n  - account: alice_wx\n    nickname:\n    head_image_url: https://x.example/a\nprune:\n';
    const { diagnostics } = await loadDesiredState([writeTemp(text)]);
    expect(diagnostics.map((d) => `${d.code} ${d.line}:${d.column} ${d.message}`)).toEqual([
      'wrong-type 4:5 "nickname" has no value; it must be text',
      'wrong-type 6:1 "prune" has no value; it must be a mapping (key: value lines)',
    ]);
  });

  it('a version that is not 1', async () => {
    const { diagnostics } = await loadDesiredState([writeTemp('version: "1"\n')]);
    expect(diagnostics.map((d) => d.message)).toEqual(['version must be the number 1, not the text "1"']);
  });

  it('a duplicate names the other place, relative to cwd', async () => {
    const dir = nodePath.join(ROOT, 'test/config/fixtures/guide-duplicate');
    const { diagnostics } = await loadDesiredState(['test/config/fixtures/guide-duplicate'], { cwd: ROOT });
    expect(diagnostics.map((d) => d.message)).toEqual([
      'guide alice_wx is also defined at test/config/fixtures/guide-duplicate/a.yaml:3:5',
      'guide openid oWx3t5e4R_6Tz0pA1b2C3d4E5f6G is also defined at line 6',
    ]);
    expect(diagnostics[0]?.related).toEqual([
      {
        file: nodePath.join(dir, 'a.yaml'),
        line: 3,
        column: 5,
        message: 'guide alice_wx first defined here',
      },
    ]);
  });

  it('reports everything at once: schema errors and rule errors of the valid parts', async () => {
    const text = [
      'version: 1',
      'groups:',
      '  - name: North',
      '  - name: North',
      'guides:',
      '  - account: alice_wx',
      '    nickname: Alexandra the Great',
      '    head_image_url: https://mmbiz.qpic.cn/alice/0',
      '  - account: bob_wx',
      '    nickname: Bob',
      '    head_image_url: https://mmbiz.qpic.cn/bob/0',
      '  - account: bob_wx',
      '    nickname: Bob',
      '    head_image_url: https://mmbiz.qpic.cn/bob/0',
      '',
    ].join('\n');
    expect(await diagnose(text)).toEqual([
      'error group-duplicate 4:11',
      'error nickname-too-long 7:15',
      'error guide-duplicate 12:14',
    ]);
  });
});

describe('all problems in one run, where an entry broke the schema', () => {
  it('every missing key of a mapping, not only the first', async () => {
    const { diagnostics } = await loadDesiredState([
      writeTemp('version: 1\nguides:\n  - account: alice_wx\n'),
    ]);
    expect(diagnostics.map((d) => `${d.code} ${d.line}:${d.column} ${d.message}`).sort()).toEqual([
      'missing-key 3:5 this guide has no "head_image_url"',
      'missing-key 3:5 this guide has no "nickname"',
    ]);
  });

  it('an entry whose key fields passed takes part in the checks across entries', async () => {
    const text = [
      'version: 1',
      'guides:',
      '  - account: alice_wx',
      '    nickname: Alice',
      '    head_image_url: https://x.example/a',
      '  - account: alice_wx',
      '    nickname: Alexandra the Great',
      '    head_image_url: https://x.example/a',
      'groups:',
      '  - name: North',
      '    members: [carol_wx]',
      '    protected: 1',
      'tasks:',
      '  - name: t1',
      '    guide: alice_wx',
      '    push_at: "2026-12-01T10:00:00+08:00"',
      '    recipients: [o1]',
      '    recipients_file: ../outside.csv',
      `    materials: [{text: ${'x'.repeat(301)}}]`,
      '    remark: 5',
      '',
    ].join('\n');
    expect(await diagnose(text)).toEqual([
      'error guide-duplicate 6:14',
      'error nickname-too-long 7:15',
      'warning member-unknown 11:15',
      'error wrong-type 12:16',
      'error task-recipients-both 18:5',
      'error task-text-too-long 19:24',
      'error wrong-type 20:13',
    ]);
  });

  it('a task without its guide, or with a name or guide that did not pass, has the checks of its own values', async () => {
    const text = [
      'version: 1',
      'guides:',
      '  - account: alice_wx',
      '    nickname: Alice',
      '    head_image_url: https://x.example/a',
      'tasks:',
      '  - name: no guide',
      '    push_at: "2026-02-30T10:00:00+08:00"',
      `    materials: [{text: ${'x'.repeat(301)}}]`,
      '  - name: both guides',
      '    guide: alice_wx',
      '    guide_openid: oAlice',
      '    push_at: "2026-12-01T10:00:00+08:00"',
      '    recipients: [o1, o1]',
      '    recipients_file: r.csv',
      '    materials: [{text: Hi}]',
      '  - name: ""',
      '    guide: 1bob',
      '    push_at: "2026-12-01T10:00:00+08:00"',
      '    recipients: [o2, o2]',
      '    materials: [{text: Hi}]',
      '',
    ].join('\n');
    expect(await diagnose(text)).toEqual([
      'error task-guide-missing 7:5',
      'error task-recipients-missing 7:5',
      'error push-at-invalid 8:14',
      'error task-text-too-long 9:24',
      'error task-guide-both 10:5',
      'warning recipient-duplicate 14:22',
      'error task-recipients-both 15:5',
      'error task-name-empty 17:11',
      'error guide-account-invalid 18:12',
      'warning recipient-duplicate 20:22',
    ]);
  });

  it('a guide whose account did not pass may be the member: no member-unknown then', async () => {
    const text = [
      'version: 1',
      'guides:',
      '  - account: 1carol',
      '    nickname: Carol',
      '    head_image_url: https://x.example/c',
      'groups:',
      '  - name: North',
      '    members: [carol_wx]',
      '',
    ].join('\n');
    expect(await diagnose(text)).toEqual(['error guide-account-invalid 3:14']);
  });
});

describe('push_at', () => {
  const taskWith = (pushAt: string): string =>
    `${GUIDE}tasks:\n  - name: t\n    guide: alice_wx\n    push_at: ${pushAt}\n    recipients: [o1]\n    materials: [{text: Hi}]\n`;
  const pushAtOf = async (pushAt: string) =>
    (await loadDesiredState([writeTemp(taskWith(pushAt))])).state?.tasks?.[0];

  it('takes what toISOString writes (.000), and offsets written +0800', async () => {
    const unix = Date.UTC(2026, 11, 1, 2, 0, 0) / 1000;
    expect(await pushAtOf('2026-12-01T02:00:00.000Z')).toMatchObject({ pushAt: unix, offsetMinutes: 0 });
    expect(await pushAtOf('2026-12-01T10:00:00+0800')).toMatchObject({ pushAt: unix, offsetMinutes: 480 });
  });

  it('says what is wrong and what to write: a fraction of a second, an offset of hours, no offset, a space for the T', async () => {
    const said = async (pushAt: string) =>
      (await loadDesiredState([writeTemp(taskWith(pushAt))])).diagnostics.map(
        (d) => `${d.code}: ${d.message}; ${d.hint}`,
      );
    expect(await said('2026-12-01T02:00:00.250Z')).toEqual([
      'push-at-invalid: push_at "2026-12-01T02:00:00.250Z" has a fraction of a second (.250); the API takes whole seconds; write 2026-12-01T02:00:00Z, or the second you mean',
    ]);
    expect(await said('2026-12-01T10:00:00+08')).toEqual([
      'push-at-invalid: push_at "2026-12-01T10:00:00+08" has an offset of hours only; write the offset with its minutes: 2026-12-01T10:00:00+08:00',
    ]);
    expect(await said('2026-12-01T10:00:00')).toEqual([
      'push-at-invalid: push_at "2026-12-01T10:00:00" has no UTC offset, so the moment it names is not known; add the offset of the time: 2026-12-01T10:00:00+08:00 for China, or Z for UTC',
    ]);
    expect(await said('"2026-12-01 10:00+08:00"')).toEqual([
      'push-at-invalid: push_at "2026-12-01 10:00+08:00" has a space between the date and the time; ISO 8601 puts a T there; write 2026-12-01T10:00+08:00',
    ]);
  });
});

describe('normalised desired state', () => {
  it('small-store: every feature', async () => {
    const { state, diagnostics } = await loadDesiredState(['examples/small-store.yaml'], { cwd: ROOT });
    expect(diagnostics).toEqual([]);
    const file = nodePath.join(EXAMPLES, 'small-store.yaml');
    expect(state).toEqual({
      account: {
        offlineAutoReply:
          'We are offline now and back at 9:00. Leave a message and we will reply first thing.',
        sensitiveWords: { semantics: 'append', words: ['cheap', 'refund', '退款'] },
        defaultWelcome: [
          { type: 'text', text: 'Welcome to Harbour Street Store! A guide will be with you shortly.' },
        ],
        source: { file, line: 8, column: 1 },
      },
      groups: [
        {
          name: 'Harbour Street Store',
          members: ['alice_wx', 'bob_wx'],
          source: { file, line: 18, column: 5 },
        },
      ],
      guides: [
        {
          id: { kind: 'account', account: 'alice_wx' },
          nickname: 'Alice',
          headImageUrl: 'https://mmbiz.qpic.cn/mmbiz_jpg/alice/0',
          quickReplies: [
            'Hello! How can I help you today?',
            'Let me check that for you.',
            'Our opening hours are 9:00 to 21:00.',
          ],
          welcome: [
            { type: 'text', text: 'Hi, I am Alice. Ask me anything about our new season.' },
            { type: 'image', mediaId: '4Tz9xJmQbK2nV7pLrS8wYc3dFh6gEa1u' },
          ],
          source: { file, line: 22, column: 5 },
        },
        {
          id: { kind: 'account', account: 'bob_wx' },
          nickname: 'Bob',
          headImageUrl: 'https://mmbiz.qpic.cn/mmbiz_jpg/bob/0',
          welcome: [
            {
              type: 'miniprogram',
              appid: 'wx1234567890abcdef',
              title: 'New arrivals this week',
              path: 'pages/new/index?from=guide',
              mediaId: '9QwErTyUiOp_AsDfGhJkL-ZxCvBnM12',
            },
          ],
          source: { file, line: 33, column: 5 },
        },
        {
          id: { kind: 'openid', openid: 'oWx3t5e4R_6Tz0pA1b2C3d4E5f6G' },
          nickname: '王小明',
          headImageUrl: 'https://mmbiz.qpic.cn/mmbiz_jpg/wang/0',
          quickReplies: [],
          source: { file, line: 44, column: 5 },
        },
      ],
      prune: { guides: false, groups: true },
    });
  });

  it('absent means unmanaged; [] and null mean none', async () => {
    const text = `version: 1\naccount:\n  offline_auto_reply: null\n  default_welcome: []\ngroups:\n  - name: Empty\n    members: []\n  - name: Unmanaged\n${GUIDE.slice(11)}    welcome: []\n`;
    const { state } = await loadDesiredState([writeTemp(text)]);
    expect(state?.account).toMatchObject({ offlineAutoReply: null, defaultWelcome: [] });
    expect(state?.account).not.toHaveProperty('sensitiveWords');
    expect(state?.groups[0]).toMatchObject({ name: 'Empty', members: [] });
    expect(state?.groups[1]).not.toHaveProperty('members');
    expect(state?.guides[0]).toMatchObject({ welcome: [] });
    expect(state?.guides[0]).not.toHaveProperty('quickReplies');
    expect(state?.prune).toEqual({ guides: false, groups: false });
  });

  it('no account key: the account is not managed', async () => {
    const { state } = await loadDesiredState([writeTemp(GUIDE)]);
    expect(state).not.toHaveProperty('account');
  });

  it('aliases may share values, and are expanded', async () => {
    const guides = Array.from(
      { length: 500 },
      (_, i) =>
        `  - account: guide_${i}\n    nickname: G${i}\n    head_image_url: https://x.example/${i}\n    quick_replies: *replies`,
    ).join('\n');
    const text = `version: 1\nx-replies: &replies ["Hello!", "One moment."]\nguides:\n${guides}\n`;
    const { diagnostics } = await loadDesiredState([writeTemp(text)]);
    // The anchor's holder is an `x-` key, which is ignored; the 500 aliases are fine.
    expect(diagnostics.map(brief)).toEqual([]);
    const ok = text.replace('x-replies: &replies ["Hello!", "One moment."]\nguides:\n', 'guides:\n');
    const shared = ok.replace(
      '  - account: guide_0\n    nickname: G0\n    head_image_url: https://x.example/0\n    quick_replies: *replies',
      '  - account: guide_0\n    nickname: G0\n    head_image_url: https://x.example/0\n    quick_replies: &replies ["Hello!", "One moment."]',
    );
    const result = await loadDesiredState([writeTemp(shared)]);
    expect(result.diagnostics).toEqual([]);
    expect(result.state?.guides[499]?.quickReplies).toEqual(['Hello!', 'One moment.']);
  });
});

describe('folders are merged', () => {
  it('retail-chain: files in name order, lists concatenated', async () => {
    const { state, diagnostics, files } = await loadDesiredState(['examples/retail-chain'], { cwd: ROOT });
    expect(diagnostics).toEqual([]);
    expect(files.map((f) => nodePath.basename(f.file))).toEqual([
      'chain.yaml',
      'east.yaml',
      'north.yaml',
      'south.yaml',
      'west.yaml',
    ]);
    expect(state?.guides).toHaveLength(50);
    expect(state?.groups.map((g) => g.name)).toEqual([
      'Store Leads',
      'VIP Concierge',
      'Shanghai Flagship',
      'Hangzhou West Lake',
      'Nanjing Xinjiekou',
      'Beijing Wangfujing',
      'Beijing Sanlitun',
      'Tianjin Binjiang',
      'Guangzhou Tianhe',
      'Shenzhen Futian',
      'Xiamen Zhongshan Road',
      'Chengdu Chunxi Road',
      'Chongqing Jiefangbei',
    ]);
    expect(state?.prune).toEqual({ guides: true, groups: false });
    expect(state?.account?.source.file).toBe(nodePath.join(EXAMPLES, 'retail-chain', 'chain.yaml'));
    // Every member is a guide of the folder.
    const accounts = new Set(state?.guides.map((g) => (g.id.kind === 'account' ? g.id.account : '')));
    for (const group of state?.groups ?? [])
      for (const m of group.members ?? []) expect(accounts).toContain(m);
  });

  it('a file given twice, or inside a folder also given, is read once', async () => {
    const { diagnostics, files } = await loadDesiredState(
      ['examples/retail-chain', 'examples/retail-chain/east.yaml', './examples/retail-chain/east.yaml'],
      { cwd: ROOT },
    );
    expect(diagnostics).toEqual([]);
    expect(files).toHaveLength(5);
  });

  it('account and prune in two places: each error names the first place', async () => {
    const { diagnostics } = await loadDesiredState(['examples/retail-chain', 'examples/small-store.yaml'], {
      cwd: ROOT,
    });
    expect(diagnostics.map((d) => `${d.code}: ${d.message}`)).toEqual([
      'account-duplicate: "account" is also set at examples/retail-chain/chain.yaml:14:1',
      'prune-duplicate: "prune" is also set at examples/retail-chain/chain.yaml:39:1',
    ]);
  });

  it('a member defined in a broken file is not reported as unknown', async () => {
    const dir = nodePath.join(tmp, 'partly-broken');
    mkdirSync(dir);
    writeFileSync(
      nodePath.join(dir, 'a.yaml'),
      'version: 1\ngroups:\n  - name: North\n    members: [alice_wx]\n',
    );
    writeFileSync(nodePath.join(dir, 'b.yaml'), `${GUIDE}    colour: blue\n`);
    const { diagnostics } = await loadDesiredState([dir]);
    expect(diagnostics.map((d) => d.code)).toEqual(['unknown-key']);
  });

  it('hidden files, other extensions and subfolders are not read', async () => {
    const dir = nodePath.join(tmp, 'mixed');
    mkdirSync(nodePath.join(dir, 'sub.yaml'), { recursive: true });
    writeFileSync(nodePath.join(dir, 'guides.YML'), GUIDE);
    writeFileSync(nodePath.join(dir, '.guides.yaml.swp'), 'junk');
    writeFileSync(nodePath.join(dir, '.backup.yaml'), 'junk: [');
    writeFileSync(nodePath.join(dir, 'README.md'), '# notes');
    const { diagnostics, files } = await loadDesiredState([dir]);
    expect(diagnostics).toEqual([]);
    expect(files.map((f) => nodePath.basename(f.file))).toEqual(['guides.YML']);
  });
});

describe('YAML merge keys and x- keys', () => {
  it('merges as YAML 1.1 does: written keys win, then the first mapping of a merge list', async () => {
    const text = [
      'version: 1',
      'x-common: &common',
      '  nickname: Store guide',
      '  head_image_url: https://mmbiz.qpic.cn/store/0',
      '  quick_replies: [Hello]',
      'x-north: &north',
      '  head_image_url: https://mmbiz.qpic.cn/north/0',
      'guides:',
      '  - account: alice_wx',
      '    <<: *common',
      '  - <<: [*north, *common]',
      '    account: bob_wxx',
      '    nickname: Bob',
      '',
    ].join('\n');
    const { diagnostics, state } = await loadDesiredState([writeTemp(text)]);
    expect(diagnostics).toEqual([]);
    expect(state?.guides.map((g) => [g.id, g.nickname, g.headImageUrl, g.quickReplies])).toEqual([
      [{ kind: 'account', account: 'alice_wx' }, 'Store guide', 'https://mmbiz.qpic.cn/store/0', ['Hello']],
      [{ kind: 'account', account: 'bob_wxx' }, 'Bob', 'https://mmbiz.qpic.cn/north/0', ['Hello']],
    ]);
  });

  it('a quoted "<<" is an ordinary key, and only top-level keys starting with x- are ignored', async () => {
    const text = `version: 1\nx-notes: anything\nguides:\n  - account: alice_wx\n    nickname: Alice\n    head_image_url: https://x.example/a\n    "<<": {}\n    x-note: hi\n`;
    expect(await diagnose(text)).toEqual(['error unknown-key 7:5', 'error unknown-key 8:5']);
  });
});

describe('bad input that costs too much', () => {
  it('a mapping of 5,000 keys: the first 100 diagnostics, then one that counts the rest', async () => {
    const keys = Array.from({ length: 5_000 }, (_, i) => `  key_${i}: 1\n`).join('');
    const { diagnostics } = await loadDesiredState([writeTemp(`version: 1\naccount:\n${keys}`)]);
    expect(diagnostics).toHaveLength(101);
    expect(diagnostics.slice(0, 100).every((d) => d.code === 'unknown-key')).toBe(true);
    expect(diagnostics[0]).toMatchObject({ line: 3, column: 3, message: expect.stringContaining('"key_0"') });
    expect(diagnostics[100]).toMatchObject({
      code: 'too-many-problems',
      severity: 'error',
      line: 103,
      column: 3,
      message: 'and 4,900 more errors not shown, from here on; only the first 100 are listed',
    });
  });

  it('a duplicate key is found in one pass, and the rest of the file is still checked', async () => {
    const keys = Array.from({ length: 20_000 }, (_, i) => `  k${i}: 1\n`).join('');
    const text = `version: 1\nx-big:\n${keys}  k7: 2\nguides:\n  - account: 1alice\n    nickname: Alice\n    head_image_url: https://x.example/a\n`;
    const { diagnostics } = await loadDesiredState([writeTemp(text)]);
    expect(diagnostics.map(brief)).toEqual([
      'error yaml-duplicate-key 20003:3',
      'error guide-account-invalid 20005:14',
    ]);
    expect(diagnostics[0]?.message).toBe(
      'key "k7" appears twice in the same mapping (first at line 10); the first is used',
    );
  });
});

describe('beforeParse', () => {
  it('is told once the bytes of the files read, before they are parsed', async () => {
    const folder = nodePath.join(tmp, 'sized');
    mkdirSync(folder);
    writeFileSync(nodePath.join(folder, 'a.yaml'), GUIDE);
    writeFileSync(nodePath.join(folder, 'b.yaml'), 'version: 1\n# café\n');
    writeFileSync(nodePath.join(folder, 'notes.txt'), 'not read');
    const told: number[] = [];
    const result = await loadDesiredState([folder, nodePath.join(tmp, 'missing.yaml')], {
      beforeParse: (bytes) => told.push(bytes),
    });
    expect(told).toEqual([Buffer.byteLength(GUIDE) + Buffer.byteLength('version: 1\n# café\n')]);
    expect(result.files.map((f) => nodePath.basename(f.file))).toEqual(['a.yaml', 'b.yaml']);
  });
});
