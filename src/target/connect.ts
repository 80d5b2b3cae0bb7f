import type { GuideClient } from '../client/index.js';
import type { DeclaredEnvironment } from '../core/environments.js';
import type { TargetNow } from '../core/target-identity.js';
import { resolveEnvironmentTarget } from './environment.js';
import { targetNow } from './identity.js';
import { openTarget, type TargetClientOptions, type TargetHost, type TargetLock } from './open.js';
import { resolveTarget, type Target, type TargetFlags } from './resolve.js';

/** What a command asks of its target: how it was chosen, how its client behaves, its lock. */
export interface TargetRequest {
  /** `--base-url`, `--local-db`: refused with `environment`, whose target the files name. */
  readonly flags: TargetFlags;
  /** The environment of the files (`--env NAME`); absent: the flags and the process environment choose. */
  readonly environment?: DeclaredEnvironment;
  readonly client: TargetClientOptions;
  /** For commands that write: the embedded local database's lock (see `TargetLock`). */
  readonly lock?: TargetLock;
  /**
   * Called with the target once it is resolved and before it is opened (no local database made,
   * no lock taken, no connection): a check that throws refuses the command with nothing touched.
   */
  readonly beforeOpen?: (target: Target, now: TargetNow) => void;
}

/**
 * Chooses the target (`resolveTarget`, or `resolveEnvironmentTarget` for an environment of the
 * files), tells what it is (`targetNow`, once), checks it (`beforeOpen`), opens it with `host`
 * (`openTarget`), runs `fn` with its client, and always closes it.
 */
export async function withTarget<T>(
  host: TargetHost,
  request: TargetRequest,
  fn: (client: GuideClient, target: Target, now: TargetNow) => Promise<T>,
): Promise<T> {
  const { flags, environment } = request;
  const target =
    environment === undefined
      ? resolveTarget(host.env, flags, host.cwd)
      : resolveEnvironmentTarget(host.env, environment, flags, host.cwd);
  const now = await targetNow(target, host.cwd);
  request.beforeOpen?.(target, now);
  // The lock is taken on the database's real path, found once here (the identity's), before its
  // folder is made: a path left as given then (its folder not there yet, so the file is no link)
  // names, through the links on its way, the same lock file as its real path once it is made.
  const { lock } = request;
  const realPath = now.identity.kind === 'embedded' ? now.identity.database : undefined;
  const open = await openTarget(
    target,
    host,
    request.client,
    lock && realPath ? { ...lock, realPath } : lock,
  );
  try {
    return await fn(open.client, target, now);
  } finally {
    await open.close();
  }
}
