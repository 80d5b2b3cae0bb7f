import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/config/index.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'guidectl-safety-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function load(files: Record<string, string>) {
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return loadDesiredState([dir]);
}

const guide = (account: string, extra = '') =>
  `  - account: ${account}\n    nickname: ${account}\n    head_image_url: https://x.example/${account}\n${extra}`;

describe('protect and safety in the files', () => {
  it('merges protected: true and the protect lists of every file, each once, sorted, with where it was said', async () => {
    const { state, diagnostics } = await load({
      'a.yaml': `version: 1\nprotect:\n  guides: [zed_wx, bob_wx]\n  groups: [North]\nguides:\n${guide('bob_wx', '    protected: true\n')}`,
      'b.yaml': `version: 1\nprotect:\n  guide_openids: [oAbc]\n  guides: [bob_wx]\ngroups:\n  - name: South\n    protected: true\n  - name: East\n    protected: false\n`,
    });
    expect(diagnostics).toEqual([]);
    const a = join(dir, 'a.yaml');
    const b = join(dir, 'b.yaml');
    expect(state?.protect).toEqual({
      guides: [
        {
          id: { kind: 'account', account: 'bob_wx' },
          source: { file: a, line: 3, column: 20, endLine: 3, endColumn: 26 },
        },
        {
          id: { kind: 'account', account: 'zed_wx' },
          source: { file: a, line: 3, column: 12, endLine: 3, endColumn: 18 },
        },
        {
          id: { kind: 'openid', openid: 'oAbc' },
          source: { file: b, line: 3, column: 19, endLine: 3, endColumn: 23 },
        },
      ],
      groups: [
        { name: 'North', source: { file: a, line: 4, column: 12, endLine: 4, endColumn: 17 } },
        { name: 'South', source: { file: b, line: 7, column: 5, endLine: 7, endColumn: 14 } },
      ],
    });
  });

  it('reads the safety section; no protection and no safety leave both out', async () => {
    const { state } = await load({
      'a.yaml': 'version: 1\nsafety:\n  max_deletes: {guides: 20, memberships: 0}\n  max_delete_share: 0.5\n',
    });
    expect(state?.safety).toEqual({
      maxDeletes: { guides: 20, memberships: 0 },
      maxDeleteShare: 0.5,
      source: { file: join(dir, 'a.yaml'), line: 2, column: 1 },
    });
    expect(state).not.toHaveProperty('protect');
    const plain = await load({ 'a.yaml': `version: 1\nguides:\n${guide('bob_wx')}` });
    expect(plain.state).not.toHaveProperty('safety');
    expect(plain.state).not.toHaveProperty('protect');
  });

  it('reads the limit of every kind: tasks and the list entries too', async () => {
    const { state } = await load({
      'a.yaml':
        'version: 1\nsafety:\n  max_deletes: {tasks: 3, words: 300, quick_replies: 5, welcome_messages: 2, offline_replies: 0}\n',
    });
    expect(state?.safety?.maxDeletes).toEqual({
      tasks: 3,
      words: 300,
      quick_replies: 5,
      welcome_messages: 2,
      offline_replies: 0,
    });
  });

  it('checks types and names with the usual diagnostics', async () => {
    const { diagnostics } = await load({
      'a.yaml':
        'version: 1\nsafety:\n  max_deletes: {guides: 1.5, group: 2}\n  max_delete_share: [0.3]\nprotect:\n  guides: [not an account]\n',
    });
    expect(diagnostics.map((d) => `${d.code} ${d.line}:${d.column} ${d.message}`)).toEqual([
      'wrong-type 3:25 "guides" must be a whole number, not the number 1.5',
      'unknown-key 3:30 unknown key "group" in "max_deletes"; did you mean "groups"?',
      'wrong-type 4:21 "max_delete_share" must be a number or text, not a list',
      'guide-account-invalid 6:12 invalid WeChat ID: account "not an account" contains a space; a WeChat ID has 6 to 20 characters: a letter first, then letters, digits, "_" or "-"',
    ]);
  });
});
