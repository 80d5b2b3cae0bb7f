import { ERRCODE } from '../../wire/errcodes.js';
import { type Id64, id64ToJson } from '../../wire/ids.js';
import { decodeAnswer } from '../../wire/messages.js';
import {
  type ConfirmRead,
  groupResource,
  idOf,
  type LostAnswerPolicy,
  OK,
  stringAt,
  type WriteEffects,
} from '../kind.js';

/** The effects of a group's writes: making a group and deleting one. */

async function groupIdsNamed(read: ConfirmRead, name: unknown): Promise<Id64[]> {
  const list = decodeAnswer('getguidegrouplist', await read('getguidegrouplist', {}));
  return list.group_list.filter((g) => g.name === name).map((g) => g.id);
}

/** Names are not unique, so a repeat makes a copy: done when exactly one new group has the name. */
const newLost: LostAnswerPolicy = {
  kind: 'confirm',
  snapshot: (read, body) => groupIdsNamed(read, body['group_name']),
  async confirm(read, body, snapshot, claims) {
    const before = new Set(Array.isArray(snapshot) ? snapshot : []);
    const fresh = (await groupIdsNamed(read, body['group_name'])).filter(
      (id) => !before.has(id) && !claims.has(id),
    );
    const [only] = fresh;
    if (fresh.length === 1 && only !== undefined) {
      claims.add(only);
      return {
        outcome: 'applied',
        answer: { ...OK, group_id: id64ToJson(only) },
        detail: `group ${only} exists`,
      };
    }
    if (fresh.length === 0) return { outcome: 'not-applied', detail: 'no new group of that name' };
    return { outcome: 'unknown', detail: `${fresh.length} new groups of that name appeared meanwhile` };
  },
};

/** A repeat is refused: done when the group is gone. */
const deleteLost: LostAnswerPolicy = {
  kind: 'resend',
  afterRefusal: {
    errcodes: [ERRCODE.invalidArgs],
    async confirm(read, body) {
      const id = idOf(body, 'group_id');
      if (id === undefined) return undefined;
      const list = decodeAnswer('getguidegrouplist', await read('getguidegrouplist', {}));
      return list.group_list.some((g) => g.id === id) ? undefined : OK;
    },
  },
};

export const GROUP_WRITES: WriteEffects<'newguidegroup' | 'delguidegroup'> = {
  newguidegroup: {
    operation: 'newguidegroup',
    subject(body) {
      const name = body['group_name'];
      return typeof name === 'string' ? { kind: 'group', address: name } : undefined;
    },
    touches: (body) => groupResource(stringAt(body, 'group_name') ?? ''),
    creates: 'groups',
    apply(model, { body, createsGroup }) {
      model.addGroup(stringAt(body, 'group_name') ?? '', createsGroup);
    },
    lostAnswer: newLost,
    knownBefore: (model, { body }) =>
      model.groups.filter((g) => g.name === body['group_name']).map((g) => g.id),
  },
  delguidegroup: {
    operation: 'delguidegroup',
    // A live group is named with its id, since copies share a name.
    subject(body, names) {
      const id = body['group_id'];
      if (typeof id !== 'string') return undefined;
      const name = names.groupName(id);
      return name === undefined ? undefined : { kind: 'group', address: `${name} (id ${id})` };
    },
    // Each live copy of a name is its own resource.
    touches: (body) => `group-id:${String(body['group_id'])}`,
    deletes: 'groups',
    apply(model, { body }) {
      const group = model.groupNamed(body);
      if (group !== undefined) model.deleteGroup(group);
    },
    lostAnswer: deleteLost,
  },
};

/** The group writes by what they do: the planner makes its calls through these. */
export const { newguidegroup: CREATE_GROUP, delguidegroup: DELETE_GROUP } = GROUP_WRITES;
