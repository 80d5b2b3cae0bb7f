import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/config/parse-yaml.js';
import type { LocatedFile } from '../../src/core/positions.js';
import { Reporter } from '../../src/core/reporter.js';
import { checkSensitiveWords } from '../../src/kinds/account/rules.js';
import { checkGroups } from '../../src/kinds/group/rules.js';
import { checkGuides, type KnownGuides } from '../../src/kinds/guide/rules.js';
import { checkMembers } from '../../src/kinds/membership/rules.js';

// The kinds' value rules on their own, without the schema or the files around them.

const located = (file: string, text: string): LocatedFile => {
  const { parsed } = parseYaml(file, text);
  if (parsed === undefined) throw new Error(`${file} does not parse`);
  return parsed;
};
const said = (out: Reporter) => out.diagnostics.map((d) => `${d.line}:${d.column} ${d.code}: ${d.message}`);

describe('the guide rules', () => {
  it('find a guide defined twice, across files, and an address of the shape that is no URL', () => {
    const north = located('north.yaml', 'guides:\n  - account: alice_wx\n  - openid: o1\n');
    const south = located(
      'south.yaml',
      'guides:\n  - account: alice_wx\n    head_image_url: https://exa[mple/a\n',
    );
    const out = new Reporter((file) => `./${file}`);
    const known = checkGuides(
      [
        {
          parsed: north,
          parts: {
            guides: [
              { index: 0, value: { account: 'alice_wx' } },
              { index: 1, value: { openid: 'o1' } },
            ],
          },
        },
        {
          parsed: south,
          parts: {
            guides: [{ index: 0, value: { account: 'alice_wx', head_image_url: 'https://exa[mple/a' } }],
          },
        },
      ],
      out,
    );
    expect(said(out)).toEqual([
      '2:14 guide-duplicate: guide alice_wx is also defined at ./north.yaml:2:5',
      '3:21 head-image-url-invalid: head_image_url "https://exa[mple/a" must be an http(s) URL',
    ]);
    expect([...known.byAccount]).toEqual(['alice_wx']);
    expect([...known.byOpenid.keys()]).toEqual(['o1']);
  });
});

describe('the group and membership rules', () => {
  const known: KnownGuides = {
    byAccount: new Set(['alice_wx']),
    byOpenid: new Map([
      ['o_bob', { parsed: located('g.yaml', 'guides:\n  - openid: o_bob\n'), path: ['guides', 0] }],
    ]),
  };
  const text = 'groups:\n  - name: North\n    members: [alice_wx, alice_wx, o_bob, 1carol, dave_wx]\n';

  it('say each member problem once, the first that applies', () => {
    const parsed = located('g.yaml', text);
    const out = new Reporter((file) => file);
    const group = { name: 'North', members: ['alice_wx', 'alice_wx', 'o_bob', '1carol', 'dave_wx'] };
    checkMembers(parsed, 0, group, known, true, out);
    expect(out.diagnostics.map((d) => d.code)).toEqual([
      'member-duplicate',
      'member-openid-only',
      'member-invalid',
      'member-unknown',
    ]);
  });

  it('leave unknown members alone when some files could not be checked', () => {
    const parsed = located('g.yaml', text);
    const out = new Reporter((file) => file);
    checkMembers(parsed, 0, { name: 'North', members: ['dave_wx'] }, known, false, out);
    expect(out.diagnostics).toEqual([]);
  });

  it('find a group defined twice', () => {
    const parsed = located('g.yaml', 'groups:\n  - name: North\n  - name: North\n');
    const out = new Reporter((file) => file);
    const groups = [
      { index: 0, value: { name: 'North' } },
      { index: 1, value: { name: 'North' } },
    ];
    checkGroups([{ parsed, parts: { groups } }], known, true, out);
    expect(said(out)).toEqual(['3:11 group-duplicate: group "North" is also defined at line 2']);
  });
});

describe('the account rules', () => {
  it('find a sensitive word listed twice', () => {
    const parsed = located(
      'a.yaml',
      'account:\n  sensitive_words:\n    semantics: append\n    words: [a, b, a]\n',
    );
    const out = new Reporter((file) => file);
    checkSensitiveWords(
      [{ parsed, parts: { account: { sensitive_words: { words: ['a', 'b', 'a'] } } } }],
      out,
    );
    expect(said(out)).toEqual([
      '4:19 sensitive-word-duplicate: sensitive word "a" is listed twice (first at column 13)',
    ]);
  });
});
