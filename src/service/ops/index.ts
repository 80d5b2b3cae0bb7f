import { OPERATIONS, type OperationName } from '../../wire/operations.js';
import type { OpContext } from '../context.js';
import type { Body } from '../fields.js';
import * as chat from './chat.js';
import * as config from './config.js';
import * as groups from './groups.js';
import * as guides from './guides.js';
import * as tasks from './mass-send.js';

/** Handles one call inside its transaction; returns the answer's fields besides errcode/errmsg. */
export type OperationHandler = (ctx: OpContext, body: Body) => object;

/** Every operation of the wire page; the type makes a missing one a compile error. */
export const OPERATION_HANDLERS: Readonly<Record<OperationName, OperationHandler>> = {
  addguideacct: guides.addguideacct,
  updateguideacct: guides.updateguideacct,
  getguideacct: guides.getguideacct,
  delguideacct: guides.delguideacct,
  getguideacctlist: guides.getguideacctlist,
  guidecreateqrcode: chat.guidecreateqrcode,
  getguidebuyerchatrecord: chat.getguidebuyerchatrecord,
  pushshowwxapathmenu: chat.pushshowwxapathmenu,
  setguideconfig: config.setguideconfig,
  getguideconfig: config.getguideconfig,
  setguideacctconfig: config.setguideacctconfig,
  getguideacctconfig: config.getguideacctconfig,
  newguidegroup: groups.newguidegroup,
  getguidegrouplist: groups.getguidegrouplist,
  getgroupinfo: groups.getgroupinfo,
  addguide2guidegroup: groups.addguide2guidegroup,
  delguide2guidegroup: groups.delguide2guidegroup,
  getgroupbyguide: groups.getgroupbyguide,
  delguidegroup: groups.delguidegroup,
  addguidemassendjob: tasks.addguidemassendjob,
  getguidemassendjob: tasks.getguidemassendjob,
  getguidemassendjoblist: tasks.getguidemassendjoblist,
  updateguidemassendjob: tasks.updateguidemassendjob,
  cancelguidemassendjob: tasks.cancelguidemassendjob,
};

/** Reads that move tasks along with the clock (settleTasks), and so need the write lock. */
const READS_THAT_WRITE: ReadonlySet<OperationName> = new Set([
  'getguidemassendjob',
  'getguidemassendjoblist',
]);

export function lockMode(name: OperationName): 'read' | 'write' {
  return OPERATIONS[name].writes || READS_THAT_WRITE.has(name) ? 'write' : 'read';
}
