import type { Clock } from '../core/clock.js';

/**
 * The service's clock: a base clock plus an offset that the simulation (or a test) moves forward
 * or sets. Everything time-based in the service reads this clock.
 */
export class ServiceClock implements Clock {
  private offsetMs: number;

  constructor(
    private readonly base: Clock,
    offsetMs = 0,
    private readonly onChange: (offsetMs: number) => void = () => {},
  ) {
    this.offsetMs = offsetMs;
  }

  now(): number {
    return this.base.now() + this.offsetMs;
  }

  /** Moves time forward by `seconds` (never backwards). */
  advance(seconds: number): void {
    if (!(seconds >= 0)) throw new RangeError('time only moves forward');
    this.offsetMs += seconds * 1000;
    this.onChange(this.offsetMs);
  }

  /** Sets the current time to `unixSeconds`. */
  set(unixSeconds: number): void {
    this.offsetMs = unixSeconds * 1000 - this.base.now();
    this.onChange(this.offsetMs);
  }
}
