import type { DesiredState } from '../../core/desired.js';
import type { Id64 } from '../../wire/ids.js';
import type { ReadPort } from '../read-port.js';

/** The names of the groups whose members the files manage: the groups whose members are read. */
export function groupMembersToRead(desired: DesiredState): Set<string> {
  return new Set(desired.groups.filter((g) => g.members !== undefined).map((g) => g.name));
}

/**
 * The accounts of a group's members (membership works by account only), in the order listed.
 * Pages are read one after another until the total or an empty page.
 */
export async function readMembers(
  read: ReadPort<'getgroupinfo'>,
  groupId: Id64,
  pageSize: number,
): Promise<string[]> {
  const members: string[] = [];
  for (let page = 0; ; page++) {
    const answer = await read('getgroupinfo', { group_id: groupId, page, num: pageSize });
    for (const m of answer.guide_list) if (m.guide_account !== undefined) members.push(m.guide_account);
    if (answer.guide_list.length === 0 || members.length >= answer.total_num) return members;
  }
}
