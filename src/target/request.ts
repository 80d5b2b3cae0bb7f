import { type ClientEvent, isThrottledTokenWait } from '../client/index.js';
import type { DeclaredEnvironment } from '../core/environments.js';
import { ifDefined } from '../core/records.js';
import type { TargetNow } from '../core/target-identity.js';
import type { TargetRequest } from './connect.js';
import type { TargetClientOptions, TargetLock } from './open.js';
import type { Target } from './resolve.js';

/**
 * The target flags of a command, as parsed: `--base-url`, `--local-db`, `--parallelism`, the
 * timing flags in seconds (the client's defaults for those not given) and `--verbose`.
 */
export interface TargetFlagValues {
  readonly baseUrl?: string;
  readonly localDb?: string;
  readonly parallelism: number;
  /**
   * `--max-parallelism`: the most calls in flight adaptive concurrency may reach (the client's
   * default when not given).
   */
  readonly maxParallelism?: number;
  /**
   * Whether the limit of calls in flight adapts to the service (see the client's `adaptive`): the
   * CLI's default, which `--no-adapt` turns off; off when not given.
   */
  readonly adapt?: boolean;
  readonly timeout?: number;
  readonly settleTimeout?: number;
  readonly settleWindow?: number;
  readonly readRetry?: number;
  readonly verbose: boolean;
}

/** What a command asks of its target besides its flags. */
export interface TargetSettings {
  /** Aborts the client's calls. */
  readonly signal: AbortSignal;
  /** For commands that write: the embedded local database's lock. */
  readonly lock?: TargetLock;
  /**
   * Off unless asked for: plan and apply read everything again after their calls, so an append
   * needs no read before it to be confirmed.
   */
  readonly readBeforeAppends?: boolean;
  /** The environment of the files (`--env NAME`): its target is the one the files name. */
  readonly environment?: DeclaredEnvironment;
  /** A check of the target resolved, before it is opened (see `TargetRequest.beforeOpen`). */
  readonly beforeOpen?: (target: Target, now: TargetNow) => void;
  /**
   * Told, to log it, each event with `--verbose` (the exchanges with the API among them), and
   * without it each wait of the token throttle (`isThrottledTokenWait`).
   */
  readonly log?: (event: ClientEvent) => void;
}

/** What the client reports (retries, calls), for progress lines and event streams. */
export interface ClientEvents {
  /** Adds a listener; returns the function that removes it. */
  listen(fn: (event: ClientEvent) => void): () => void;
}

/**
 * The request for the target that the flags and settings ask for, and the client's events for
 * any number of listeners (the client itself tells one).
 */
export function targetRequestOf(
  flags: TargetFlagValues,
  settings: TargetSettings,
): { readonly request: TargetRequest; readonly events: ClientEvents } {
  const listeners = new Set<(event: ClientEvent) => void>();
  const { environment, lock, beforeOpen, log } = settings;
  const request: TargetRequest = {
    flags: {
      ...ifDefined('baseUrl', flags.baseUrl),
      ...ifDefined('localDb', flags.localDb),
    },
    ...ifDefined('environment', environment),
    client: {
      parallelism: flags.parallelism,
      ...(flags.adapt === true ? { adaptive: true } : {}),
      ...(flags.adapt === true && flags.maxParallelism !== undefined
        ? { maxParallelism: flags.maxParallelism }
        : {}),
      ...timingOptions(flags),
      signal: settings.signal,
      readBeforeAppends: settings.readBeforeAppends ?? false,
      // Only --verbose prints the exchanges; without it, building them is waste.
      httpEvents: flags.verbose,
      onEvent: (event) => {
        // A wait of the token throttle is told without --verbose too: it can last a minute.
        if (flags.verbose || isThrottledTokenWait(event)) log?.(event);
        for (const listener of listeners) listener(event);
      },
    },
    ...ifDefined('lock', lock),
    ...ifDefined('beforeOpen', beforeOpen),
  };
  const events: ClientEvents = {
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return { request, events };
}

/** The client options the timing flags set (the client's defaults for those not given). */
function timingOptions(
  flags: Pick<TargetFlagValues, 'timeout' | 'settleTimeout' | 'settleWindow' | 'readRetry'>,
): Pick<TargetClientOptions, 'timeoutMs' | 'settleMs' | 'settleWindowMs' | 'retry'> {
  const ms = (s: number): number => Math.round(s * 1000);
  return {
    ...(flags.timeout === undefined ? {} : { timeoutMs: ms(flags.timeout) }),
    ...(flags.settleTimeout === undefined ? {} : { settleMs: ms(flags.settleTimeout) }),
    ...(flags.settleWindow === undefined ? {} : { settleWindowMs: ms(flags.settleWindow) }),
    ...(flags.readRetry === undefined ? {} : { retry: { readBudgetMs: ms(flags.readRetry) } }),
  };
}
