import type { DesiredGroup, SourceRef } from '../../core/desired.js';
import type { WrittenGroup } from '../../core/written.js';

/** A group as written, once checked: its members without repeats. */
export function normaliseGroup(written: WrittenGroup, source: SourceRef): DesiredGroup {
  return {
    name: written.name,
    ...(written.members === undefined ? {} : { members: [...new Set(written.members)] }),
    source,
  };
}
