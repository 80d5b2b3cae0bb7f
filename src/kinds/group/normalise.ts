import type { DesiredGroup, SourceRef } from '../../core/desired.js';
import type { WrittenGroup } from '../../core/written.js';
import { type DesiredParts, entrySourceOf, type NormaliseFile, sourceOf } from '../config-port.js';

/** The group kind's normalising of one file: its groups in the environment, and those it protects. */
export function normaliseGroupSection({ parsed, written, exists }: NormaliseFile, into: DesiredParts): void {
  (written.groups ?? []).forEach((group, index) => {
    if (!exists(group)) return;
    into.groups.push(normaliseGroup(group, sourceOf(parsed, ['groups', index])));
    if (group.protected === true)
      into.protectGroup(group.name, entrySourceOf(parsed, ['groups', index, 'protected'], 'key'));
  });
}

/** A group as written, once checked: its members without repeats. */
export function normaliseGroup(written: WrittenGroup, source: SourceRef): DesiredGroup {
  return {
    name: written.name,
    ...(written.members === undefined ? {} : { members: [...new Set(written.members)] }),
    source,
  };
}
