/**
 * Every operation of the guide API, by its wire name (`POST /cgi-bin/guide/<name>`).
 * `writes` is true for operations that change state: plan mode must never be given a client that
 * can make them, and the service records them separately.
 */
export const OPERATIONS = {
  addguideacct: { writes: true },
  updateguideacct: { writes: true },
  getguideacct: { writes: false },
  delguideacct: { writes: true },
  getguideacctlist: { writes: false },
  guidecreateqrcode: { writes: true },
  getguidebuyerchatrecord: { writes: false },
  pushshowwxapathmenu: { writes: true },
  setguideconfig: { writes: true },
  getguideconfig: { writes: false },
  setguideacctconfig: { writes: true },
  getguideacctconfig: { writes: false },
  newguidegroup: { writes: true },
  getguidegrouplist: { writes: false },
  getgroupinfo: { writes: false },
  addguide2guidegroup: { writes: true },
  delguide2guidegroup: { writes: true },
  getgroupbyguide: { writes: false },
  delguidegroup: { writes: true },
  addguidemassendjob: { writes: true },
  getguidemassendjob: { writes: false },
  getguidemassendjoblist: { writes: false },
  updateguidemassendjob: { writes: true },
  cancelguidemassendjob: { writes: true },
} as const satisfies Record<string, { writes: boolean }>;

/** The closed set of operation names. */
export type OperationName = keyof typeof OPERATIONS;

export const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];

export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(OPERATIONS, name);
}

/** Where the real API answers (`https://api.weixin.qq.com`); every path is below it. */
export const DEFAULT_BASE_URL = 'https://api.weixin.qq.com';

/** Path of an operation below the base URL, without the query string. */
export function operationPath(name: OperationName): string {
  return `/cgi-bin/guide/${name}`;
}

/**
 * Calls of the account outside `/cgi-bin/guide/`, by the name guidectl gives them, with their
 * paths. `quota/get` reads the daily quota of one guide operation (76021 for a path the target
 * keeps no quota for). None writes: each may be given to plan mode.
 */
export const ACCOUNT_CALLS = {
  'quota/get': { path: '/cgi-bin/openapi/quota/get', writes: false },
} as const satisfies Record<string, { path: string; writes: false }>;

export type AccountCallName = keyof typeof ACCOUNT_CALLS;

/** What the client calls: a guide operation, or an account call. */
export type WireCallName = OperationName | AccountCallName;

/** Path of a call below the base URL, without the query string. */
export function callPath(name: WireCallName): string {
  return isOperationName(name) ? operationPath(name) : ACCOUNT_CALLS[name].path;
}

/** Whether a call changes state (an account call never does). */
export function callWrites(name: WireCallName): boolean {
  return isOperationName(name) ? OPERATIONS[name].writes : ACCOUNT_CALLS[name].writes;
}
