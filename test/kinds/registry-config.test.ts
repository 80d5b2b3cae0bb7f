import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/config/parse-yaml.js';
import { Reporter } from '../../src/core/reporter.js';
import { RuleContext } from '../../src/kinds/config-port.js';
import { KINDS, type Kind, RULE_ORDER } from '../../src/kinds/registry.js';

// What config/ and the desired digest ask of every kind, through the registry.

const LAYER_PARTS = ['check', 'normalise', 'desiredDigest'] as const;

describe('the kinds in config and the desired digest', () => {
  it('run their rules in an order that holds every kind once', () => {
    expect([...RULE_ORDER].sort()).toEqual(Object.keys(KINDS).sort());
    expect(new Set(RULE_ORDER).size).toBe(RULE_ORDER.length);
  });

  it('check the guides before the kinds that read who the guides are', () => {
    // Each kind's rules run alone on a context that knows no guides: those that read them throw.
    const parsed = parseYaml('g.yaml', 'groups:\n  - name: North\n    members: [alice_wx]\n').parsed;
    if (parsed === undefined) throw new Error('g.yaml does not parse');
    const parts = {
      guides: [],
      groups: [{ index: 0, value: { name: 'North', members: ['alice_wx'] } }],
      tasks: [{ index: 0, value: { name: 'Sale', guide: 'alice_wx', recipients: ['o1'] } }],
    };
    const readers: Kind[] = [];
    for (const kind of RULE_ORDER) {
      const check = KINDS[kind].check;
      if (typeof check !== 'function') continue;
      try {
        check([{ parsed, parts }], new RuleContext(true), new Reporter((file) => file));
      } catch (error) {
        if (!(error instanceof Error) || !error.message.includes('guides were read before')) throw error;
        readers.push(kind);
      }
    }
    expect(readers.sort()).toEqual(['group', 'task']);
    for (const reader of readers)
      expect(RULE_ORDER.indexOf(reader)).toBeGreaterThan(RULE_ORDER.indexOf('guide'));
  });

  it('say of a kind with no part of its own which kind does it, and that kind has its own', () => {
    for (const part of LAYER_PARTS) {
      for (const [kind, module] of Object.entries(KINDS)) {
        const member = module[part];
        if (typeof member === 'function') continue;
        expect(member.partOf, `${kind}.${part}`).not.toBe(kind);
        expect(typeof KINDS[member.partOf][part], `${kind}.${part} is part of ${member.partOf}'s`).toBe(
          'function',
        );
      }
    }
  });
});
