import { describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/config/index.js';
import { ACCOUNT_MESSAGES } from '../../src/kinds/account/rules.js';
import { ACCOUNT_SCHEMA } from '../../src/kinds/account/schema.js';
import { GROUP_MESSAGES } from '../../src/kinds/group/rules.js';
import { GROUP_SCHEMA } from '../../src/kinds/group/schema.js';
import { GUIDE_MESSAGES } from '../../src/kinds/guide/rules.js';
import { GUIDE_SCHEMA } from '../../src/kinds/guide/schema.js';
import { GUIDE_CONFIG_MESSAGES } from '../../src/kinds/guide-config/rules.js';
import { GUIDE_CONFIG_SCHEMA } from '../../src/kinds/guide-config/schema.js';
import { MEMBERSHIP_MESSAGES } from '../../src/kinds/membership/rules.js';
import { MEMBERSHIP_SCHEMA } from '../../src/kinds/membership/schema.js';
import { tempFiles } from '../helpers/temp-files.js';

// One text per rule: the schema and the rules after it say the same words for the same problem.

const { write } = tempFiles('rule-texts');

const guideWith = (url: string): string =>
  `version: 1\nguides:\n  - account: alice_wx\n    nickname: Alice\n    head_image_url: "${url}"\n`;

const saidAbout = async (text: string, code: string): Promise<{ message: string; hint?: string }> => {
  const found = (await loadDesiredState([write(text)])).diagnostics.filter((d) => d.code === code);
  expect(found).toHaveLength(1);
  const [d] = found;
  return { message: d?.message ?? '', ...(d?.hint === undefined ? {} : { hint: d.hint }) };
};

describe('head-image-url-invalid', () => {
  it('has one hint, whether the schema (the shape) or the rules (a URL that does not parse) find it', async () => {
    // No scheme: the schema's pattern refuses it.
    const bySchema = await saidAbout(guideWith('mmbiz.qpic.cn/a'), 'head-image-url-invalid');
    // The shape of one, but no URL: the rules refuse it.
    const byRules = await saidAbout(guideWith('https://exa[mple/a'), 'head-image-url-invalid');
    expect(bySchema.message).toBe('head_image_url "mmbiz.qpic.cn/a" must be an http(s) URL');
    expect(byRules.message).toBe('head_image_url "https://exa[mple/a" must be an http(s) URL');
    expect(bySchema.hint).toBe('write the full address of the picture, such as https://mmbiz.qpic.cn/…');
    expect(byRules.hint).toBe(bySchema.hint);
  });
});

describe('member-invalid', () => {
  it('has one text, whether the schema or the rules find it', async () => {
    const group = (member: string): string =>
      `version: 1\ngroups:\n  - name: g\n    members: ["${member}"]\n`;
    // Not an openid's shape either: the schema refuses it.
    const bySchema = await saidAbout(group('al ice'), 'member-invalid');
    // An openid's shape, not a WeChat ID: the rules refuse it.
    const byRules = await saidAbout(group('1alice'), 'member-invalid');
    expect(bySchema.message).toBe(
      'invalid WeChat ID: member "al ice" contains a space; a WeChat ID has 6 to 20 characters: a letter first, then letters, digits, "_" or "-"',
    );
    expect(byRules.message).toBe(
      'invalid WeChat ID: member "1alice" starts with "1", not a letter; a WeChat ID has 6 to 20 characters: a letter first, then letters, digits, "_" or "-"',
    );
    expect(byRules.hint).toBe(bySchema.hint);
  });
});

describe("each kind's schema messages", () => {
  it('name constraints of its own schema fragment', () => {
    const pairs = [
      [GUIDE_MESSAGES, GUIDE_SCHEMA],
      [GUIDE_CONFIG_MESSAGES, GUIDE_CONFIG_SCHEMA],
      [GROUP_MESSAGES, GROUP_SCHEMA],
      [MEMBERSHIP_MESSAGES, MEMBERSHIP_SCHEMA],
      [ACCOUNT_MESSAGES, ACCOUNT_SCHEMA],
    ] as const;
    for (const [messages, fragment] of pairs) {
      for (const key of Object.keys(messages)) {
        const [def = '', keyword = ''] = key.split('/');
        const constraint = fragment[def];
        const written = JSON.stringify(constraint ?? null);
        expect(constraint, key).toBeDefined();
        expect(written, key).toContain(`"${keyword}"`);
      }
    }
  });
});
