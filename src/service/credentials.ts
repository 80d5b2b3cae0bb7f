import { createHash, randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import { countOf } from '../core/count.js';
import { UsageError } from '../core/errors.js';
import { APPID } from '../core/guide-rules.js';
import { ifDefined } from '../core/records.js';
import type { Store } from './store.js';

/**
 * What the service keeps of its secrets: a salted scrypt hash of the app secret, and a SHA-256 of
 * each access token (random 48-byte tokens need no salt or stretching: nobody can guess one to
 * test against its hash). A copy of the database then gives no way to call the API.
 *
 * A stored secret hash reads `scrypt$<N>$<r>$<p>$<salt, base64>$<hash, base64>`.
 */
const SCRYPT = { N: 16_384, r: 8, p: 1 } as const;
const KEY_BYTES = 32;

export function hashSecret(secret: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(secret, salt, KEY_BYTES, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

interface ParsedHash {
  readonly salt: Buffer;
  readonly hash: Buffer;
  readonly cost: { N: number; r: number; p: number };
}

function parseHash(stored: string): ParsedHash | undefined {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || salt === undefined || hash === undefined) return undefined;
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if (!Object.values(cost).every((v) => Number.isSafeInteger(v) && v > 0)) return undefined;
  return { salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64'), cost };
}

/** Whether `secret` matches the stored hash, without blocking the event loop (scrypt runs off it). */
export function verifySecret(secret: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (parsed === undefined) return Promise.resolve(false);
  return new Promise((resolve, reject) => {
    scrypt(
      secret,
      parsed.salt,
      parsed.hash.length,
      { ...parsed.cost, maxmem: 64 * 1024 * 1024 },
      (error, key) => {
        if (error !== null) reject(error);
        else resolve(timingSafeEqual(key, parsed.hash));
      },
    );
  });
}

/** `verifySecret` for the start of the service, where blocking once is fine. */
export function verifySecretSync(secret: string, stored: string): boolean {
  const parsed = parseHash(stored);
  if (parsed === undefined) return false;
  const key = scryptSync(secret, parsed.salt, parsed.hash.length, {
    ...parsed.cost,
    maxmem: 64 * 1024 * 1024,
  });
  return timingSafeEqual(key, parsed.hash);
}

/** The stored form of an access token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Compares two secrets in constant time (for a secret held in memory). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** The service's app credentials: the appid and secret that token requests must present. */
export interface AppCredentials {
  readonly appid: string;
  readonly secret: string;
}

export function generateCredentials(): AppCredentials {
  return { appid: `wx${randomBytes(8).toString('hex')}`, secret: randomBytes(16).toString('hex') };
}

/**
 * Whether a secret is no secret at all: empty, or only white space. Such a secret would let
 * whoever reaches the service take a token (`secret=` in a query is easy to send by mistake), so
 * it is refused at start and at the token endpoints.
 */
export function isBlankSecret(secret: string): boolean {
  return secret.trim() === '';
}

/** The shortest secret `serve` takes: a WeChat AppSecret, as a generated one, has 32 characters. */
export const MIN_SECRET_LENGTH = 16;

/**
 * The secret `serve` was given: `--secret` (`flag`), else `GUIDECTL_SERVICE_SECRET` (`env`), else
 * none (the stored one, or one generated). A blank one, or one shorter than `MIN_SECRET_LENGTH`
 * (easily guessed), is refused, naming where it came from.
 */
export function givenSecret(flag: string | undefined, env: string | undefined): string | undefined {
  const [secret, source] = flag !== undefined ? [flag, '--secret'] : [env, 'GUIDECTL_SERVICE_SECRET'];
  if (secret === undefined) return undefined;
  const keep = `or leave ${source} out to keep the stored one (a new database generates one)`;
  if (isBlankSecret(secret)) {
    throw new UsageError(
      `${source} is empty: an empty app secret would give a token to anyone who asks. Give a secret, ${keep}`,
    );
  }
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new UsageError(
      `${source} is too short (${countOf(secret.length, 'character')}): a short secret is easily guessed. Give one of at least ${MIN_SECRET_LENGTH} characters (a WeChat AppSecret, as a generated one, has 32), ${keep}`,
    );
  }
  return secret;
}

/**
 * The appid `serve` was given (`--appid`), else none (the stored one, or one generated): `wx` and
 * 16 lower-case hex digits, as WeChat's and generated ones are. Another (an empty one, a typo) would
 * be stored, revoke the tokens of the appid before it, and fail every token request after.
 */
export function givenAppid(flag: string | undefined): string | undefined {
  if (flag === undefined || APPID.test(flag)) return flag;
  const what = flag.trim() === '' ? 'is empty' : `${JSON.stringify(flag)} is not an appid`;
  throw new UsageError(
    `--appid ${what}: give wx and 16 lower-case hex digits (wx1234567890abcdef), or leave --appid out to keep the stored one (a new database generates one)`,
  );
}

/**
 * The credentials `serve` was given, checked (`givenAppid`, `givenSecret`): only those given, for
 * the service's options; the others are the stored ones, or generated.
 */
export function givenCredentials(
  appidFlag: string | undefined,
  secretFlag: string | undefined,
  secretEnv: string | undefined,
): { appid?: string; secret?: string } {
  const appid = givenAppid(appidFlag);
  const secret = givenSecret(secretFlag, secretEnv);
  return { ...ifDefined('appid', appid), ...ifDefined('secret', secret) };
}

/** The credentials a service starts with, after `settleCredentials`. */
export interface SettledCredentials {
  readonly appid: string;
  /** Known when given, or generated now; otherwise only its hash is stored. */
  readonly secret: string | undefined;
  readonly generated: boolean;
  /** The stored secret was empty, and was replaced by the generated one (see `replaceEmpty`). */
  readonly replacedEmpty: boolean;
}

/**
 * Settles the app credentials at start: the given ones win over the stored ones, and missing ones
 * are generated (the secret is then shown once: only its hash is kept, and only in a database
 * that outlives the process; the secret of an in-memory one is known for all its life). A secret other than the
 * stored one revokes every token issued under the old one; another appid revokes the tokens of
 * the appids before it.
 */
export function settleCredentials(
  store: Store,
  given: { readonly appid?: string | undefined; readonly secret?: string | undefined },
  options: { readonly replaceEmpty?: boolean } = {},
): SettledCredentials {
  return store.transaction(() => {
    const storedAppid = store.getMeta('appid');
    const storedHash = store.getMeta('secret_hash');
    let appid = given.appid ?? storedAppid;
    let secret = given.secret;
    let generated = false;
    // The hash of an empty secret, stored by a guidectl that took `--secret ''`: token requests
    // now refuse "", but tokens taken with it may be valid for a long time yet. A service that
    // listens (`replaceEmpty`, one scrypt at start) replaces it as if none were stored, which
    // revokes them.
    const replacedEmpty =
      options.replaceEmpty === true &&
      secret === undefined &&
      storedHash !== undefined &&
      verifySecretSync('', storedHash);
    if (secret === undefined && (storedHash === undefined || replacedEmpty)) {
      const fresh = generateCredentials();
      appid ??= fresh.appid;
      secret = fresh.secret;
      generated = true;
    }
    appid ??= generateCredentials().appid;
    if (secret !== undefined && (storedHash === undefined || !verifySecretSync(secret, storedHash))) {
      // The hash serves only a later start, without the secret. A database that ends with the
      // process has none, so it is spared the scrypt work (tens of milliseconds, blocking).
      if (!store.db.memory) store.setMeta('secret_hash', hashSecret(secret));
      store.run('DELETE FROM tokens');
    }
    if (appid !== storedAppid) {
      store.setMeta('appid', appid);
      store.run('DELETE FROM tokens WHERE appid <> ?', appid);
    }
    return { appid, secret, generated, replacedEmpty };
  });
}
