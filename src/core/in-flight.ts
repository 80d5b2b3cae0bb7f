/**
 * The requests under way at something that closes (the guide service, an in-process transport),
 * so that closing waits for them. Invariant: once `close` was called, `enter` lets nothing in, from
 * that very moment: a closer that goes on once the count is zero (the service closes its store)
 * can never have a request start under it — as one did when "closed" was a flag set only after
 * the wait, one microtask too late.
 */
export class InFlight {
  private count = 0;
  private drained: Promise<void> | undefined;
  private onDrained: (() => void) | undefined;

  /** Counts one more request under way; false, counting nothing, once closing. */
  enter(): boolean {
    if (this.drained !== undefined) return false;
    this.count += 1;
    return true;
  }

  /** How many requests are under way. */
  get size(): number {
    return this.count;
  }

  /** Counts one request (let in by `enter`) ended. */
  leave(): void {
    this.count -= 1;
    if (this.count === 0) this.onDrained?.();
  }

  /** Lets no more requests in, and resolves once none is under way. Safe to call again. */
  close(): Promise<void> {
    this.drained ??=
      this.count === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            this.onDrained = resolve;
          });
    return this.drained;
  }
}
