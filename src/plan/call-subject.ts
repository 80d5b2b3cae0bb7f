import { describeGuideId, describeTask, guideIdFrom } from '../core/desired.js';
import {
  type CallBody,
  type CallSubject,
  type GroupRef,
  isGroupRef,
  type JsonValue,
  type PlannedOperation,
} from '../core/plan.js';

const ACCOUNT: CallSubject = { kind: 'account', address: 'account' };

/**
 * The subject of a call (see {@link CallSubject}): whom its operation acts on, read from the body
 * the planner wrote for it. `groupName` gives the name of a live group the body names by id.
 * The one place a call's subject is made: the planner fills each call's subject with it, and a
 * saved plan's subjects are computed again with it rather than trusted, so the two cannot
 * disagree; renderers read `subject` and never a body. Undefined when
 * the body lacks what its operation needs (only a saved plan edited by hand can). `taskName` names a
 * live task by its id, as {@link describeTask} does.
 */
export function callSubject(
  operation: PlannedOperation,
  body: CallBody,
  groupName: (id: string) => string | undefined,
  taskName: (id: string) => string | undefined = () => undefined,
): CallSubject | undefined {
  switch (operation) {
    case 'newguidegroup': {
      const name = body['group_name'];
      return typeof name === 'string' ? { kind: 'group', address: name } : undefined;
    }
    case 'addguideacct':
    case 'updateguideacct':
    case 'delguideacct':
      return guideSubject(body);
    case 'setguideconfig':
      // Without a guide, setguideconfig sets the account's default welcome.
      return 'guide_account' in body || 'guide_openid' in body ? guideSubject(body) : ACCOUNT;
    case 'setguideacctconfig':
      return ACCOUNT;
    case 'addguide2guidegroup':
    case 'delguide2guidegroup': {
      const account = body['guide_account'];
      const name = nameOf(body['group_id'], groupName);
      if (typeof account !== 'string' || name === undefined) return undefined;
      return { kind: 'membership', address: `${account} in ${JSON.stringify(name)}` };
    }
    case 'delguidegroup': {
      const id = body['group_id'];
      if (typeof id !== 'string') return undefined;
      const name = groupName(id);
      return name === undefined ? undefined : { kind: 'group', address: `${name} (id ${id})` };
    }
    case 'addguidemassendjob': {
      const guide = guideIdFrom(body['guide_account'], body['guide_openid']);
      const name = body['task_name'];
      if (guide === undefined || typeof name !== 'string') return undefined;
      return { kind: 'task', address: describeTask(guide, name) };
    }
    case 'updateguidemassendjob':
    case 'cancelguidemassendjob': {
      const id = body['task_id'];
      const name = typeof id === 'string' ? taskName(id) : undefined;
      return name === undefined ? undefined : { kind: 'task', address: `${name} (id ${String(id)})` };
    }
    default: {
      const unreachable: never = operation;
      return unreachable;
    }
  }
}

function guideSubject(body: CallBody): CallSubject | undefined {
  const account = body['guide_account'];
  const openid = body['guide_openid'];
  if (typeof account === 'string')
    return { kind: 'guide', address: describeGuideId({ kind: 'account', account }) };
  if (typeof openid === 'string')
    return { kind: 'guide', address: describeGuideId({ kind: 'openid', openid }) };
  return undefined;
}

/** The name of the group a `group_id` names: a group this plan creates, or a live one by id. */
function nameOf(
  value: JsonValue | GroupRef | undefined,
  groupName: (id: string) => string | undefined,
): string | undefined {
  if (isGroupRef(value)) return value.$group;
  return typeof value === 'string' ? groupName(value) : undefined;
}
