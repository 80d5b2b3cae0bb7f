import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/core/diagnostics.js';
import { renderValidation } from '../../src/report/diagnostic-text.js';
import { desiredGroup, desiredGuide, desiredState } from '../helpers/plan-builder.js';

const warning: Diagnostic = {
  severity: 'warning',
  code: 'unknown-key',
  message: 'unknown key "nick"',
  file: '/work/b.yaml',
  line: 2,
  column: 3,
};

describe('renderValidation (guidectl validate)', () => {
  it('shows each diagnostic with its line, then counts the files, guides and groups', () => {
    const state = desiredState({ guides: [desiredGuide('alice_wx')], groups: [desiredGroup('North')] });
    const files = [
      { file: '/work/a.yaml', text: 'version: 1\n' },
      { file: '/work/b.yaml', text: 'version: 1\n  nick: x\n' },
    ];
    const text = renderValidation({ diagnostics: [warning], files, state }, { cwd: '/work' });
    expect(text).toContain('b.yaml:2:3: warning: unknown key "nick" [unknown-key]\n');
    expect(text).toContain('nick: x');
    expect(text.endsWith('valid with 1 warning: 2 files, 1 guide, 1 group\n')).toBe(true);
  });

  it("counts each environment's guides and groups, and a file named only by a diagnostic", () => {
    const states = new Map([
      ['staging', desiredState({ guides: [desiredGuide('alice_wx')] })],
      ['production', desiredState()],
    ]);
    const text = renderValidation({ diagnostics: [warning], files: [], environments: [], states });
    expect(
      text.endsWith(
        'valid with 1 warning: 1 file, 2 environments (staging: 1 guide, 0 groups; production: 0 guides, 0 groups)\n',
      ),
    ).toBe(true);
  });
});
