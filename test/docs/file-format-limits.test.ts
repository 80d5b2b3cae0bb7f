import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as rules from '../../src/core/guide-rules.js';
import { DEFAULT_MAX_DELETE_SHARE, DEFAULT_MAX_DELETES } from '../../src/core/safety.js';

// docs/file-format.md repeats the limits of the values for its readers: each must be the limit
// the code holds (core/guide-rules.ts, which the schema and the service use).

const PAGE = readFileSync(new URL('../../docs/file-format.md', import.meta.url), 'utf8');

/** A number as the page writes it: `1,000`. */
const n = (value: number): string => value.toLocaleString('en-US');
/** A range of characters as the page writes it: `1–16`. */
const range = (min: number, max: number): string => `${n(min)}–${n(max)}`;

/** Each line of the page that states a limit, by what it must say: one check may cover several lines. */
const STATED: readonly (readonly [RegExp, string])[] = [
  [/offline_auto_reply.*# (\S+) characters/, range(1, rules.OFFLINE_REPLY_MAX_CHARS)],
  [/`account\.offline_auto_reply` .*\| (\S+) characters/, range(1, rules.OFFLINE_REPLY_MAX_CHARS)],
  [/^\| offline reply \| (\S+) characters/, range(1, rules.OFFLINE_REPLY_MAX_CHARS)],
  [/default_welcome: .*at most (\S+);/, n(rules.MAX_WELCOME_MESSAGES)],
  [/`account\.default_welcome` .*at most (\S+) \|/, n(rules.MAX_WELCOME_MESSAGES)],
  [/^ {4}welcome: .*# at most (\S+),/, n(rules.MAX_WELCOME_MESSAGES)],
  [/`guides\[\]\.welcome` .*at most (\S+) \|/, n(rules.MAX_WELCOME_MESSAGES)],
  [/^\| welcome messages \| at most (\S+) \|/, n(rules.MAX_WELCOME_MESSAGES)],
  [/- name: Shanghai Flagship +# (\S+) characters/, range(1, rules.GROUP_NAME_MAX_CHARS)],
  [/`groups\[\]\.name` .*\| (\S+) characters/, range(1, rules.GROUP_NAME_MAX_CHARS)],
  [/^\| group name \| (\S+) characters/, range(1, rules.GROUP_NAME_MAX_CHARS)],
  [/nickname: Alice +# (\S+) characters/, range(1, rules.NICKNAME_MAX_CHARS)],
  [/`guides\[\]\.nickname` .*\| (\S+) characters/, range(1, rules.NICKNAME_MAX_CHARS)],
  [/^\| nickname \| (\S+) characters/, range(1, rules.NICKNAME_MAX_CHARS)],
  [/- name: Spring sale +# (\S+) characters/, range(1, rules.TASK_NAME_MAX_CHARS)],
  [/remark: .*# at most (\S+) characters/, n(rules.TASK_REMARK_MAX_CHARS)],
  [/materials: +# (\S+):/, range(1, rules.MAX_TASK_MATERIALS)],
  [/max_deletes: \{guides: (\d+), groups: \1, memberships: \1, tasks: \1\}/, n(DEFAULT_MAX_DELETES)],
  [/`account\.sensitive_words\.words` .*at most (\S+) \|/, n(rules.MAX_SENSITIVE_WORDS)],
  [/^\| sensitive words \| at most (\S+) \|/, n(rules.MAX_SENSITIVE_WORDS)],
  [
    /`guides\[\]\.account` .*\| (\S+) characters/,
    range(rules.WECHAT_ID_MIN_CHARS, rules.WECHAT_ID_MAX_CHARS),
  ],
  [
    /^\| account, member \| WeChat ID: (\S+) characters/,
    range(rules.WECHAT_ID_MIN_CHARS, rules.WECHAT_ID_MAX_CHARS),
  ],
  [/`guides\[\]\.quick_replies` .*at most (\S+) \|/, n(rules.MAX_QUICK_REPLIES)],
  [/^\| quick replies \| at most (\S+) a guide/, n(rules.MAX_QUICK_REPLIES)],
  [/`safety\.max_deletes\.KIND` .*\| default (\S+);/, n(DEFAULT_MAX_DELETES)],
  [/`safety\.max_delete_share` .*\| default (\S+) \|/, String(DEFAULT_MAX_DELETE_SHARE)],
  [/^A card's `appid` is `wx` and (\d+) lowercase hex digits/, n(rules.APPID_HEX_DIGITS)],
  [/^\| appid \| `wx` and (\d+) lowercase hex digits/, n(rules.APPID_HEX_DIGITS)],
  [/^Its `title` has (\S+) characters/, range(1, rules.CARD_TITLE_MAX_CHARS)],
  [/^\| card title \| (\S+) characters/, range(1, rules.CARD_TITLE_MAX_CHARS)],
  [/^\| task text material \| at most (\S+) bytes/, n(rules.MATERIAL_WORD_MAX_BYTES)],
  [/^\| `head_image_url` \| http\(s\), at most (\S+) characters/, n(rules.HEAD_IMAGE_URL_MAX_CHARS)],
  [/^\| media id \| (\S+) letters/, range(1, rules.MEDIA_ID_MAX_CHARS)],
  [/^\| openid \| (\S+) letters/, range(1, rules.OPENID_MAX_CHARS)],
  [/^One request may carry at most (\d+) MiB/, String(rules.MAX_REQUEST_BODY_BYTES / 1024 / 1024)],
];

/** A line that states a number as a limit: a range, "at most", a default, a count of digits or bytes. */
const LIMIT = /\d–\d|at most \d|default \d|\d+ (?:lowercase|bytes)|\d+ MiB|\{guides: \d/;

describe('docs/file-format.md', () => {
  const lines = PAGE.split('\n');

  it('states each limit as the code holds it', () => {
    for (const [pattern, expected] of STATED) {
      const found = lines.flatMap((line) => pattern.exec(line)?.[1] ?? []);
      expect(found.length, String(pattern)).toBeGreaterThan(0);
      for (const stated of found) expect(stated, String(pattern)).toBe(expected);
    }
  });

  it('has no limit that this test does not hold to the code', () => {
    const unchecked = lines.filter(
      (line) => LIMIT.test(line) && !STATED.some(([pattern]) => pattern.test(line)),
    );
    expect(unchecked).toEqual([]);
  });
});
