import { describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/config/index.js';
import { runCli, useWorkspace } from '../helpers/cli.js';

// A number is shown as the file writes it: `007` is read as 7, `0x1F` as 31, a 20-digit id rounded,
// and a hint that quotes what JavaScript reads would have the user change a store number or an id.

const GUIDE = `version: 1
environments:
  dev:
    values:
      big: 123456789012345678901234567890
guides:
  - account: alice_wx
    nickname: 007
    head_image_url: https://example.com/a.png
    quick_replies: [1.50, 0x1F, 12345678901234567890]
`;

describe('validate: numbers as written', () => {
  const ws = useWorkspace();
  const validate = async (name: string, text: string) => {
    await ws().write(name, text);
    return runCli(['validate', '--json', name], { cwd: ws().dir });
  };
  const summary = (stdout: string) =>
    (JSON.parse(stdout) as { line: number; column: number; message: string; hint?: string }[]).map(
      (d) => `${d.line}:${d.column} ${d.message} | ${d.hint ?? ''}`,
    );

  // The fast block reader and the yaml package (an anchor makes it decline) give the same text.
  it.each([
    ['block reader', GUIDE],
    ['yaml package', GUIDE.replace('version: 1\n', 'version: 1\nx-anchor: &a 1\n')],
  ])('"put the value in quotes" quotes the text written (%s)', async (_reader, text) => {
    const shift = text === GUIDE ? 0 : 1;
    const { code, stdout } = await validate('n.yaml', text);
    expect(code).toBe(1);
    expect(summary(stdout)).toEqual([
      `${5 + shift}:12 "big" must be text, not the number 123456789012345678901234567890 | put the value in quotes: "123456789012345678901234567890"`,
      `${8 + shift}:15 "nickname" must be text, not the number 007 | put the value in quotes: "007"`,
      `${10 + shift}:21 a quick reply must be text, not the number 1.50 | put the value in quotes: "1.50"`,
      `${10 + shift}:27 a quick reply must be text, not the number 0x1F | put the value in quotes: "0x1F"`,
      `${10 + shift}:33 a quick reply must be text, not the number 12345678901234567890 | put the value in quotes: "12345678901234567890"`,
    ]);
  });

  it('following the hints keeps the values written', async () => {
    const quoted = GUIDE.replace(/environments:[\s\S]*?guides:/, 'guides:')
      .replace('007', '"007"')
      .replace('[1.50, 0x1F, 12345678901234567890]', '["1.50", "0x1F", "12345678901234567890"]');
    const path = await ws().write('q.yaml', quoted);
    const { state, diagnostics } = await loadDesiredState([path]);
    expect(diagnostics).toEqual([]);
    expect(state?.guides[0]).toMatchObject({
      nickname: '007',
      quickReplies: ['1.50', '0x1F', '12345678901234567890'],
    });
  });

  it('an aliased number is shown as its anchor writes it', async () => {
    const text =
      'version: 1\nx-n: &n 0o17\nguides:\n  - account: alice_wx\n    nickname: *n\n    head_image_url: https://example.com/a.png\n';
    const { stdout } = await validate('a.yaml', text);
    expect(summary(stdout)).toEqual([
      '5:15 "nickname" must be text, not the number 0o17 | put the value in quotes: "0o17"',
    ]);
  });

  it('the version, a list and a safety limit: the number written, not 1e+26, Infinity or 1.5', async () => {
    const version = await validate('v.yaml', 'version: 99999999999999999999999999\n');
    expect(summary(version.stdout)).toEqual([
      '1:10 version 99999999999999999999999999 is not supported; this guidectl reads version 1 | the file is newer than this guidectl: upgrade guidectl',
    ]);
    const guides = await validate('g.yaml', 'version: 1\nguides: 1e400\n');
    expect(summary(guides.stdout)).toEqual([
      '2:9 "guides" must be a list, not the number 1e400 | start each entry on its own line with "- " under "guides:" (- account: alice_wx), or write [] for none',
    ]);
    const share = await validate('s.yaml', 'version: 1\nsafety:\n  max_delete_share: 1.50\n');
    expect(summary(share.stdout)).toEqual([
      '3:21 safety.max_delete_share is 1.50; it must be a share from 0 to 1 | write 0.25 for 25% of the live count (the default)',
    ]);
  });
});
