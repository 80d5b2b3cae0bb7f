/**
 * The source of time for everything that depends on it. Implementations must be monotonic enough
 * for expiry checks: `now()` never goes backwards during one process unless a test moves it.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Whole Unix seconds, the unit of every time on the wire. */
export function unixSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
