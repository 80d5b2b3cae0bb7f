import { createHash } from 'node:crypto';
import { parseBaseUrl } from '../client/base-url.js';
import { realPathOf } from '../core/real-path.js';
import type { TargetIdentity, TargetNow } from '../core/target-identity.js';
import { describeTarget } from './environment.js';
import type { Target } from './resolve.js';

/** The digest of an appid a saved plan records: its account, without the appid itself. */
function appidDigest(appid: string): string {
  return createHash('sha256').update(`guidectl-appid\n${appid}`, 'utf8').digest('hex').slice(0, 16);
}

/**
 * A base URL as an account's identity: scheme and host in lower case, no default port, no
 * trailing `/` (`HTTPS://API.example.com:443/` and `https://api.example.com` are one API).
 */
function normaliseBaseUrl(baseUrl: string): string {
  const parsed = parseBaseUrl(baseUrl);
  if (!('url' in parsed)) return baseUrl;
  const { url } = parsed;
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Which account `target` is, as far as it tells (see `TargetIdentity`); never a secret. A local
 * database is its real path (`realPathOf`, as for its lock): the same file reached through a link
 * (a linked checkout, a `.guidectl` linked to a shared folder) is the same account.
 */
export async function identifyTarget(target: Target): Promise<TargetIdentity> {
  if (target.kind === 'embedded') {
    const database = target.dbFile === ':memory:' ? target.dbFile : await realPathOf(target.dbFile);
    return { kind: 'embedded', database };
  }
  const { auth } = target;
  return {
    kind: 'remote',
    baseUrl: normaliseBaseUrl(target.baseUrl),
    ...('appid' in auth ? { appidDigest: appidDigest(auth.appid) } : {}),
  };
}

/**
 * The target in words for messages (`describeTarget`, paths relative to `cwd`) and which account
 * it is (`identifyTarget`): what a saved plan records of its target and is checked against.
 */
export async function targetNow(target: Target, cwd: string): Promise<TargetNow> {
  return { description: describeTarget(target, cwd), identity: await identifyTarget(target) };
}
