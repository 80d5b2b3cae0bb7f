import { createHash } from 'node:crypto';
import { parseBaseUrl } from '../client/base-url.js';
import type { TargetIdentity } from '../core/target-identity.js';
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

/** Which account `target` is, as far as it tells (see `TargetIdentity`); never a secret. */
export function identifyTarget(target: Target): TargetIdentity {
  if (target.kind === 'embedded') return { kind: 'embedded', database: target.dbFile };
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
export function targetNow(
  target: Target,
  cwd: string,
): { readonly description: string; readonly identity: TargetIdentity } {
  return { description: describeTarget(target, cwd), identity: identifyTarget(target) };
}
