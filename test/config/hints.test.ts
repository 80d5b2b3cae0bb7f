import { describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/config/index.js';
import { ALICE_ALONE } from '../helpers/cli.js';
import { tempFiles } from '../helpers/temp-files.js';

// A value that breaks the schema gets a hint that says what to write instead.

const { write } = tempFiles('hints');

const hintsOf = async (text: string): Promise<string[]> =>
  (await loadDesiredState([write(text)])).diagnostics.map(
    (d) => `${d.code}: ${d.message}; ${d.hint ?? '(no hint)'}`,
  );

describe('a value of the wrong type says what to write', () => {
  it.each([
    [
      'version: 1\ngroups:\n  - name: g\n    members: alice_wx\n',
      'write a list, even of one: members: [alice_wx]',
    ],
    [
      'version: 1\nguides:\n  a: 1\n',
      'start each entry on its own line with "- " under "guides:" (- account: alice_wx)',
    ],
    ['version: 1\ngroups: 1\n', 'start each entry on its own line with "- " under "groups:" (- name: North)'],
    [
      'version: 1\naccount:\n  sensitive_words: [a, b]\n',
      'write the words under "words:", with "semantics: append"',
    ],
    ['version: 1\nsafety:\n  max_deletes:\n    guides: "5"\n', 'remove the quotes: write 5'],
    [`${ALICE_ALONE}    protected: "true"\n`, 'remove the quotes: write true'],
    [`${ALICE_ALONE}    quick_replies: [~]\n`, 'remove the empty item of the list'],
    [`${ALICE_ALONE}    quick_replies:\n      -\n      - hi\n`, 'remove the empty item of the list'],
  ])('%j', async (text, hint) => {
    const [said, ...rest] = await hintsOf(text);
    expect(rest).toEqual([]);
    expect(said).toContain(hint);
    expect(said).not.toContain('write a value after the colon');
  });

  it('max_delete_share takes "25%" as the flag does', async () => {
    const { diagnostics, state } = await loadDesiredState([
      write('version: 1\nsafety:\n  max_delete_share: 25%\n'),
    ]);
    expect(diagnostics).toEqual([]);
    expect(state?.safety?.maxDeleteShare).toBe(0.25);
    expect(await hintsOf('version: 1\nsafety:\n  max_delete_share: 150%\n')).toEqual([
      'safety-limit-invalid: safety.max_delete_share is "150%"; it must be a share from 0 to 1, or a percentage from 0% to 100%; write 0.25 or "25%" for 25% of the live count (the default)',
    ]);
  });

  it('a task material is called a material, not a welcome message', async () => {
    const task =
      'tasks:\n  - name: t\n    guide: alice_wx\n    push_at: "2026-12-01T10:00:00Z"\n    recipients: [o1]\n    materials: [{}, {text: ""}]\n';
    const said = await hintsOf(ALICE_ALONE + task);
    expect(said).toEqual([
      'welcome-form-missing: this material is empty; it needs one of "text", "image" or "miniprogram"; for example: - text: "Welcome!"',
      'welcome-text-empty: the text of this material is empty; (no hint)',
    ]);
  });
});
