import { describe, expect, it } from 'vitest';
import { escapeControls, showJson } from '../../src/report/escape.js';
import { type CliRun, runCli, useServiceTarget } from '../helpers/cli.js';
import { UNSAFE } from '../helpers/unsafe-text.js';

// A desired-state file (or the account) may hold control characters in any text. None may reach the
// terminal raw: a file must not be able to erase lines, ring the bell, or forge a plan line.

function expectSafe(run: CliRun): void {
  for (const [name, text] of [
    ['stdout', run.stdout],
    ['stderr', run.stderr],
  ] as const) {
    const found = UNSAFE.exec(text);
    expect(
      found === null,
      `${name} holds U+${found?.[0].codePointAt(0)?.toString(16)}: ${JSON.stringify(text)}`,
    ).toBe(true);
  }
}

const target = useServiceTarget({ reset: true });
const ws = () => target.ws;
const cli = target.cli;

// YAML double-quoted escapes: \e ESC, \a BEL, \r CR, \n LF, \x9b CSI (C1), \u202E and \u2066 bidi.
const EVIL = `version: 1
account:
  sensitive_words:
    semantics: append
    words: ["bad\\e[2Jword", "ring\\a", "over\\rPlan: 0 to add", "rtl\\u202Eword"]
  offline_auto_reply: "off\\e]0;title\\aline"
groups:
  - name: "Grp\\e[31mRed\\x9b"
    members: [evil_wx]
guides:
  - account: evil_wx
    nickname: "Ev\\e[2Jil"
    head_image_url: https://img.example/e
    quick_replies: ["hi\\e[1A\\e[2K", "line\\nPlan: 0 to add, 0 to change", "x\\u2066y"]
    welcome:
      - text: "w\\x85\\u202Ex"
`;

describe('control characters in the files never reach the terminal', () => {
  it('plan, plan --markdown, apply and the plan of a change show them escaped', async () => {
    await ws().write('evil.yaml', EVIL);
    const plan = await cli(['plan', 'evil.yaml']);
    expect(plan.code, plan.stderr).toBe(0);
    expectSafe(plan);
    expect(plan.stdout).toContain('+ "bad\\u001b[2Jword"');
    expect(plan.stdout).toContain('+ "over\\rPlan: 0 to add"');
    expect(plan.stdout).toContain('+ "hi\\u001b[1A\\u001b[2K"');
    expect(plan.stdout).toContain('+ "line\\nPlan: 0 to add, 0 to change"');
    expect(plan.stdout).toContain('+ group "Grp\\u001b[31mRed\\u009b"');
    expect(plan.stdout).toContain('+ "rtl\\u202eword"');
    expect(plan.stdout.match(/^Plan: /gm)).toHaveLength(1);

    const markdown = await cli(['plan', 'evil.yaml', '--markdown']);
    expectSafe(markdown);

    const apply = await cli(['apply', 'evil.yaml', '--auto-approve']);
    expectSafe(apply);

    await ws().write(
      'evil.yaml',
      EVIL.replace('"hi\\e[1A\\e[2K", ', '').replace(
        'off\\e]0;title\\aline',
        `${'long text '.repeat(12)}\\r\\e[2Kforged\\nsecond line`,
      ),
    );
    const change = await cli(['plan', 'evil.yaml']);
    expectSafe(change);
    expect(change.stdout).toContain('- "hi\\u001b[1A\\u001b[2K"');
  });

  it('validate escapes them in messages and in the quoted source line, with the carets measured on that', async () => {
    await ws().write(
      'v.yaml',
      'version: 1\nguides:\n  - account: alice_wx\n    nickname: Alexandra\u202ethe Great\n    head_image_url: "ftp://x\\e[2J"\n',
    );
    const run = await runCli(['validate', 'v.yaml'], { cwd: ws().dir });
    expect(run.code).toBe(1);
    expectSafe(run);
    expect(run.stdout).toContain('  4 |     nickname: Alexandra\\u202ethe Great\n');
    expect(run.stdout).toContain('    |               ^^^^^^^^^^^^^^^^^^^^^^^^\n');
  });

  it('errors that quote what the user typed escape it', async () => {
    const run = await cli(['api', 'get\u001b[2Jguide']);
    expect(run.code).toBe(1);
    expectSafe(run);
    expect(run.stderr).toContain('unknown operation "get\\u001b[2Jguide"');
  });
});

describe('the one helper', () => {
  it('escapes C0, DEL, C1, separators and bidi controls; leaves other text alone', () => {
    expect(escapeControls('a\u001b[2Jb\r\n\t\u0007\u007f\u0085\u009b\u2028\u202e\u2066\ufeffz 退款 😀')).toBe(
      'a\\u001b[2Jb\\r\\n\\t\\u0007\\u007f\\u0085\\u009b\\u2028\\u202e\\u2066\\ufeffz 退款 😀',
    );
    expect(showJson({ text: 'x\u009b\u202e\u001b' })).toBe('{"text":"x\\u009b\\u202e\\u001b"}');
  });
});

describe('what prints as nothing in a plan', () => {
  it('quotes list entries and escapes zero-width and format characters, in text and markdown', async () => {
    // Applied, then planned against a file that differs only by a trailing space and a U+200B: the
    // plan used to show "- Hello / + Hello", two lines that look the same.
    const file = (replies: string, words: string): string =>
      `version: 1\naccount:\n  sensitive_words:\n    semantics: append\n    words: ${words}\nguides:\n  - account: alice_wx\n    nickname: Alice\n    head_image_url: https://img.example/a\n    quick_replies: ${replies}\n`;
    await ws().write('a.yaml', file('["Hello ", "B\\u200bye"]', '["w\\u2060x", "y\\ufeff"]'));
    expect((await cli(['apply', 'a.yaml', '--auto-approve'])).code).toBe(0);
    await ws().write('a.yaml', file('["Hello", "Bye"]', '["wx", "y"]'));
    // Both live words leave the set, which the words guard counts: allowed here, as the test is about escaping.
    const plan = await cli(['plan', 'a.yaml', '--allow-delete', 'words=2']);
    expect(plan.code, plan.stderr).toBe(0);
    expectSafe(plan);
    for (const line of [
      '- "Hello "',
      '- "B\\u200bye"',
      '+ "Hello"',
      '+ "Bye"',
      '- "w\\u2060x"',
      '- "y\\ufeff"',
    ])
      expect(plan.stdout).toContain(line);
    const markdown = await cli(['plan', 'a.yaml', '--markdown', '--allow-delete', 'words=2']);
    expectSafe(markdown);
    expect(markdown.stdout).toContain('-         "B\\u200bye"');
    expect(markdown.stdout).toContain('-         "Hello "');
  });

  it('quotes the lines of a long text shown as a line diff, so that a trailing space shows', async () => {
    const long = 'We are offline now and will answer every message when we are back at nine. ';
    const file = (offline: string): string =>
      `version: 1
account:
  offline_auto_reply: ${JSON.stringify(offline)}
`;
    await ws().write('o.yaml', file(`${long}\nSee you `));
    expect((await cli(['apply', 'o.yaml', '--auto-approve'])).code).toBe(0);
    await ws().write('o.yaml', file(`${long}\nSee you`));
    const plan = await cli(['plan', 'o.yaml']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('- "See you "');
    expect(plan.stdout).toContain('+ "See you"');
    expect(plan.stdout).toContain(`  ${JSON.stringify(long)}`);
  });
});

describe('the one helper, on format characters', () => {
  it('escapes every format character, a lone surrogate, and a format character beyond U+FFFF as its halves', () => {
    expect(escapeControls('a\u200bb\u200c\u200d\u2060\u00ad\ud800z')).toBe(
      'a\\u200bb\\u200c\\u200d\\u2060\\u00ad\\ud800z',
    );
    expect(escapeControls('tag\u{e0041}')).toBe('tag\\udb40\\udc41');
  });
});
