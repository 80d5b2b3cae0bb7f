import type { LiveGroup } from '../../core/live.js';
import type { KindRead } from '../live-read.js';
import { readMembers } from '../membership/read.js';
import type { ReadPort } from '../read-port.js';

/**
 * Every group, with the members of those named in `members` (or of all). Groups that share a name
 * are always read whole: the plan reconciles them by their members.
 */
export async function readGroups(
  read: ReadPort<'getguidegrouplist' | 'getgroupinfo'>,
  members: ReadonlySet<string> | 'all',
  pageSize: number,
): Promise<LiveGroup[]> {
  const { group_list } = await read('getguidegrouplist', {});
  const named = new Map<string, number>();
  for (const group of group_list) named.set(group.name, (named.get(group.name) ?? 0) + 1);
  return Promise.all(
    group_list.map(async (group): Promise<LiveGroup> => {
      const wanted = members === 'all' || members.has(group.name) || (named.get(group.name) ?? 0) > 1;
      if (!wanted) return { id: group.id, name: group.name };
      return { id: group.id, name: group.name, members: await readMembers(read, group.id, pageSize) };
    }),
  );
}

/** The group list, read whole for the account, with the members in scope. */
export const GROUP_READ: KindRead = {
  once: async (context, draft) => {
    draft.groups = await context.start((port) =>
      readGroups(port, context.scope.groupMembers, context.pageSize),
    );
  },
};
