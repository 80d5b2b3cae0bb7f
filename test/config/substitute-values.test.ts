// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${name} in plain strings is the syntax under test
import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/config/parse-yaml.js';
import {
  fillTemplate,
  findStringUses,
  lineStartsOf,
  parseTemplate,
  replaceStrings,
  sourceSpans,
} from '../../src/config/substitute-values.js';

const values = new Map([
  ['shop_app', 'wx1111111111111111'],
  ['a', 'A'],
  ['b', 'B'],
]);
const fill = (text: string): string | undefined => fillTemplate(parseTemplate(text), (n) => values.get(n));

describe('parseTemplate and fillTemplate', () => {
  it('replaces each ${name} with its value', () => {
    expect(fill('${shop_app}')).toBe('wx1111111111111111');
    expect(fill('x ${a}-${b} y ${a}')).toBe('x A-B y A');
    expect(parseTemplate('x ${a}-${b}').references).toEqual([
      { name: 'a', start: 2, end: 6 },
      { name: 'b', start: 7, end: 11 },
    ]);
  });

  it('$${ is a literal ${, and any other $ is itself', () => {
    expect(fill('$${a}')).toBe('${a}');
    expect(fill('cost: $5, $$5, $')).toBe('cost: $5, $$5, $');
    expect(fill('$$${a}')).toBe('$${a}');
    expect(fill('$${a} and ${a}')).toBe('${a} and A');
    expect(parseTemplate('$${a}').references).toEqual([]);
  });

  it('a missing value makes no string', () => {
    expect(fill('${nope}')).toBeUndefined();
    expect(fill('${a}${nope}')).toBeUndefined();
  });

  it('a ${ that starts no reference is a problem, with its text and offsets', () => {
    expect(parseTemplate('a ${not closed').problems).toEqual([{ start: 2, end: 14, text: '${not closed' }]);
    expect(parseTemplate('${two words}').problems).toEqual([{ start: 0, end: 12, text: '${two words}' }]);
    expect(parseTemplate('${}').problems).toEqual([{ start: 0, end: 3, text: '${}' }]);
    expect(parseTemplate('${1a}').problems).toHaveLength(1);
    expect(parseTemplate('${a}').problems).toEqual([]);
  });
});

describe('findStringUses', () => {
  it('finds the strings with ${ in document order, not in version, environments, x- keys or only_in', () => {
    const root = {
      version: 1,
      environments: { staging: { values: { a: '${x}' } } },
      'x-common': { nickname: '${a}' },
      guides: [
        { account: 'alice_wx', nickname: '${a}', only_in: ['${a}'], quick_replies: ['hi', '$${b}'] },
        { account: 'bob_wx', nickname: 'Bob' },
      ],
      account: { offline_auto_reply: 'back at ${b}' },
    };
    expect(findStringUses(root).map((u) => u.path)).toEqual([
      ['guides', 0, 'nickname'],
      ['guides', 0, 'quick_replies', 1],
      ['account', 'offline_auto_reply'],
    ]);
  });

  it('a mapping shared by aliases is found at each place it is used', () => {
    const shared = { text: 'Hi ${a}' };
    const root = { version: 1, guides: [{ welcome: [shared] }, { welcome: [shared] }] };
    expect(findStringUses(root).map((u) => u.path.join('.'))).toEqual([
      'guides.0.welcome.0.text',
      'guides.1.welcome.0.text',
    ]);
  });
});

describe('replaceStrings', () => {
  it('copies only the mappings and lists on the way, and leaves the original alone', () => {
    const untouched = { account: 'bob_wx', nickname: 'Bob' };
    const alice = { account: 'alice_wx', nickname: '${a}', quick_replies: ['x'] };
    const root = { version: 1, guides: [alice, untouched] };
    const copy = replaceStrings(root, [{ path: ['guides', 0, 'nickname'], value: 'A' }]);
    expect(copy).toEqual({
      version: 1,
      guides: [{ account: 'alice_wx', nickname: 'A', quick_replies: ['x'] }, untouched],
    });
    expect(alice.nickname).toBe('${a}');
    const guides = copy['guides'];
    if (!Array.isArray(guides)) throw new Error('guides is a list');
    expect(guides[1]).toBe(untouched);
    expect(guides[0].quick_replies).toBe(alice.quick_replies);
  });

  it('two replacements under one mapping share its copy; __proto__ stays an ordinary key', () => {
    const root = JSON.parse('{"guides":[{"nickname":"${a}","__proto__":"${b}"}]}');
    const copy = replaceStrings(root, [
      { path: ['guides', 0, 'nickname'], value: 'A' },
      { path: ['guides', 0, '__proto__'], value: 'B' },
    ]);
    expect(JSON.stringify(copy)).toBe('{"guides":[{"nickname":"A","__proto__":"B"}]}');
  });
});

describe('sourceSpans', () => {
  const show = (s: { line: number; column: number; endLine: number; endColumn: number }): string =>
    `${s.line}:${s.column}-${s.endLine}:${s.endColumn}`;
  const both = (text: string, path: (string | number)[]): { references: string[]; problems: string[] } => {
    const { parsed } = parseYaml('f.yaml', text);
    if (parsed === undefined) throw new Error('parses');
    const use = findStringUses(parsed.value as Record<string, unknown>).find(
      (u) => u.path.join('.') === path.join('.'),
    );
    if (use === undefined) throw new Error('found');
    const spans = sourceSpans(text, lineStartsOf(text), parsed.locate(path), use);
    return { references: spans.references.map(show), problems: spans.problems.map(show) };
  };
  const spansIn = (text: string, path: (string | number)[]): string[] => both(text, path).references;

  it('points at each ${…} in plain and quoted text', () => {
    const text = 'version: 1\nguides:\n  - nickname: x ${a} ${b}\n    head_image_url: "u${a}"\n';
    expect(spansIn(text, ['guides', 0, 'nickname'])).toEqual(['3:17-3:21', '3:22-3:26']);
    expect(spansIn(text, ['guides', 0, 'head_image_url'])).toEqual(['4:23-4:27']);
  });

  it('in a flow mapping and in a block scalar over several lines', () => {
    const text = [
      'version: 1',
      'guides:',
      '  - welcome:',
      '      - miniprogram: {appid: "${a}", title: t, path: p, media_id: "${b}"}',
      '    quick_replies:',
      '      - |',
      '        first line',
      '        then ${b}',
      '',
    ].join('\n');
    expect(spansIn(text, ['guides', 0, 'welcome', 0, 'miniprogram', 'media_id'])).toEqual(['4:68-4:72']);
    expect(spansIn(text, ['guides', 0, 'quick_replies', 0])).toEqual(['8:14-8:18']);
  });

  it('at the start of the string when the source does not show the reference (an escape made it)', () => {
    const text = 'version: 1\nguides:\n  - nickname: "\\x24{a}"\n';
    expect(spansIn(text, ['guides', 0, 'nickname'])).toEqual(['3:15-3:24']);
  });

  it('gives the references and the malformed ${ of one string together, each where it is written', () => {
    const text = 'version: 1\nguides:\n  - nickname: ${a} ${two words} ${b} ${open\n';
    expect(both(text, ['guides', 0, 'nickname'])).toEqual({
      references: ['3:15-3:19', '3:33-3:37'],
      problems: ['3:20-3:32', '3:38-3:44'],
    });
  });

  it('places each kind at the whole string when the source does not show it as the value does', () => {
    const text = 'version: 1\nguides:\n  - nickname: "\\x24{a} ${bad name}"\n';
    expect(both(text, ['guides', 0, 'nickname'])).toEqual({
      references: ['3:15-3:36'],
      problems: ['3:24-3:35'],
    });
  });
});
