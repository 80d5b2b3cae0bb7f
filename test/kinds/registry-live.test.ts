import { describe, expect, it } from 'vitest';
import { KINDS, type Kind, LIVE_ORDER } from '../../src/kinds/registry.js';

const EVERY_KIND = Object.keys(KINDS) as Kind[];

/** The kind whose part of the live state holds `kind`'s, for digest and export: itself when its own. */
function ownerOf(kind: Kind, member: 'digest' | 'export'): Kind {
  const part = KINDS[kind][member];
  return 'partOf' in part ? part.partOf : kind;
}

describe('the registry of live parts', () => {
  it('orders every kind once in LIVE_ORDER', () => {
    expect([...LIVE_ORDER].sort()).toEqual([...EVERY_KIND].sort());
  });

  it('puts each kind whose part is inside another kind right after that kind', () => {
    const owners = LIVE_ORDER.map((kind) => ownerOf(kind, 'digest'));
    // The owners run in blocks, each led by the owner itself: its part, then those it holds.
    for (const [i, kind] of LIVE_ORDER.entries()) {
      if (owners[i] === kind) continue;
      expect(owners[i - 1], kind).toBe(owners[i]);
    }
    expect(new Set(owners).size).toBe(owners.filter((owner, i) => owner !== owners[i - 1]).length);
  });

  it('gives a kind its own export section exactly when it has its own digest part, and holds a part only in a kind of its own', () => {
    for (const kind of EVERY_KIND) {
      expect(ownerOf(kind, 'export'), kind).toBe(ownerOf(kind, 'digest'));
      expect(ownerOf(ownerOf(kind, 'digest'), 'digest'), kind).toBe(ownerOf(kind, 'digest'));
      const read = KINDS[kind].read;
      if ('partOf' in read) expect('partOf' in KINDS[read.partOf].read, kind).toBe(false);
    }
  });

  it('names a different resource for each kind with a digest part of its own', () => {
    const resources = EVERY_KIND.flatMap((kind) => {
      const digest = KINDS[kind].digest;
      return 'partOf' in digest ? [] : [digest.resource];
    });
    expect(resources.sort()).toEqual(['account', 'group', 'guide', 'task']);
  });
});
