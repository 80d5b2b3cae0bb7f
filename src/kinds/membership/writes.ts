import type { CallBody, CallSubject } from '../../core/plan-data.js';
import { ERRCODE } from '../../wire/errcodes.js';
import { decodeAnswer } from '../../wire/messages.js';
import type { AccountModel, ModelGroup } from '../account-model.js';
import {
  type ConfirmRead,
  groupNameOf,
  groupResource,
  guideResource,
  idOf,
  OK,
  type SubjectNames,
  stringAt,
  text,
  type WireBody,
  type WriteEffects,
} from '../kind.js';

/** The effects of a membership's writes: putting a guide in a group and taking it out. */

/** A membership by the guide's account and the group's name (made by the plan, or live by id). */
function membershipSubject(body: CallBody, names: SubjectNames): CallSubject | undefined {
  const account = body['guide_account'];
  const name = groupNameOf(body, names);
  if (typeof account !== 'string' || name === undefined) return undefined;
  return { kind: 'membership', address: `${account} in ${JSON.stringify(name)}` };
}

/** A membership is the resource of its group name and guide account. */
function membershipResource(body: CallBody, names: SubjectNames): string {
  return `membership:${groupNameOf(body, names) ?? ''}\u0000${stringAt(body, 'guide_account') ?? ''}`;
}

async function memberOf(read: ConfirmRead, body: WireBody): Promise<boolean | undefined> {
  const group = idOf(body, 'group_id');
  const account = text(body, 'guide_account');
  if (group === undefined || account === undefined) return undefined;
  const groups = decodeAnswer('getgroupbyguide', await read('getgroupbyguide', { guide_account: account }));
  return groups.group_id_list.includes(group);
}

/** The group a body names; refused when the account has no such group, or no guide `account`. */
function memberGroup(model: AccountModel, body: CallBody, account: string): ModelGroup | undefined {
  const group = model.groupNamed(body);
  if (model.guides.ofAccount(account) === undefined) model.refuse(`no such guide: ${account}`);
  return group;
}

export const MEMBERSHIP_WRITES: WriteEffects<'addguide2guidegroup' | 'delguide2guidegroup'> = {
  addguide2guidegroup: {
    operation: 'addguide2guidegroup',
    subject: membershipSubject,
    touches: membershipResource,
    // The group and the guide, when this plan creates them.
    needs: (body, names) => [
      groupResource(groupNameOf(body, names) ?? ''),
      guideResource({ guide_account: stringAt(body, 'guide_account') ?? '' }),
    ],
    creates: 'memberships',
    apply(model, { body }) {
      const account = stringAt(body, 'guide_account') ?? '';
      const group = memberGroup(model, body, account);
      if (group === undefined) return;
      model.editMembers(group, (members) => {
        if (!members.includes(account)) {
          members.push(account);
          return members;
        }
        model.refuse(`${account} is already a member of ${group.name}`);
        return members;
      });
    },
    // A repeat is refused: done when the guide is a member.
    lostAnswer: {
      kind: 'resend',
      afterRefusal: {
        errcodes: [ERRCODE.invalidArgs],
        confirm: async (read, body) => ((await memberOf(read, body)) === true ? OK : undefined),
      },
    },
  },
  delguide2guidegroup: {
    operation: 'delguide2guidegroup',
    subject: membershipSubject,
    touches: membershipResource,
    deletes: 'memberships',
    apply(model, { body }) {
      const account = stringAt(body, 'guide_account') ?? '';
      const group = memberGroup(model, body, account);
      if (group === undefined) return;
      model.editMembers(group, (members) => {
        if (members.includes(account)) return members.filter((m) => m !== account);
        model.refuse(`${account} is not a member of ${group.name}`);
        return members;
      });
    },
    // A repeat is refused: done when the guide is not a member.
    lostAnswer: {
      kind: 'resend',
      afterRefusal: {
        errcodes: [ERRCODE.invalidArgs],
        confirm: async (read, body) => ((await memberOf(read, body)) === false ? OK : undefined),
      },
    },
  },
};

/** The membership writes by what they do: the planner makes its calls through these. */
export const { addguide2guidegroup: ADD_MEMBER, delguide2guidegroup: REMOVE_MEMBER } = MEMBERSHIP_WRITES;
