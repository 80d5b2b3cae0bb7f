import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { createProgress, PLAIN_EVERY_MS } from '../../src/cli/progress.js';
import type { ClientEvent } from '../../src/client/index.js';
import type { ClientEvents } from '../../src/target/index.js';
import { captureIo, guideEntries, useServiceTarget } from '../helpers/cli.js';

/** A clock the test moves, and a timer the test fires: no test waits for real seconds. */
function fakeTime(): {
  now: () => number;
  every: NonNullable<CliIo['every']>;
  advance: (ms: number) => void;
  tick: () => void;
  periods: number[];
} {
  let t = 1_000_000;
  const timers = new Set<() => void>();
  const periods: number[] = [];
  return {
    now: () => t,
    every: (ms, fn) => {
      periods.push(ms);
      timers.add(fn);
      return () => timers.delete(fn);
    },
    advance: (ms) => {
      t += ms;
    },
    tick: () => {
      for (const fn of [...timers]) fn();
    },
    periods,
  };
}

describe('progress without a terminal', () => {
  it('prints a plain line every ten seconds of work, nothing before', () => {
    const time = fakeTime();
    const io = captureIo({}, '/', { now: time.now, every: time.every });
    const progress = createProgress(io, 'Applying');
    expect(time.periods).toEqual([PLAIN_EVERY_MS]);
    progress.update(1_200, 6_020);
    for (const id of [1, 2, 2, 3]) progress.retried(id);
    expect(io.err()).toBe('');
    time.advance(30_000);
    time.tick();
    expect(io.err()).toBe('Applying: 1,200/6,020 calls, 30s elapsed, 3 retried\n');
    progress.failed();
    time.advance(95_000);
    time.tick();
    expect(io.err()).toContain('Applying: 1,200/6,020 calls, 2m05s elapsed, 3 retried, 1 failed\n');
    progress.finish();
    time.tick();
    expect(io.err().split('\n')).toHaveLength(3);
  });
});

describe('progress on a terminal', () => {
  it('redraws one line in place with the elapsed time and the retries, and clears it', () => {
    const time = fakeTime();
    const io = captureIo({}, '/', { now: time.now, every: time.every, tty: true });
    const progress = createProgress(io, 'Reading');
    progress.update(3, 10);
    expect(io.err()).toBe('');
    time.advance(2_500);
    progress.retried(7);
    progress.update(5, 10);
    expect(io.err()).toBe('\r\u001b[2KReading: 5/10 calls, 2s elapsed, 1 retried');
    time.advance(1_000);
    time.tick();
    expect(io.err().endsWith('\r\u001b[2KReading: 5/10 calls, 3s elapsed, 1 retried')).toBe(true);
    progress.finish();
    expect(io.err().endsWith('\r\u001b[2K')).toBe(true);
  });
});

describe("progress and the client's retries", () => {
  it('counts each call retried once, until it is finished', () => {
    const time = fakeTime();
    const io = captureIo({}, '/', { now: time.now, every: time.every });
    const listeners = new Set<(event: ClientEvent) => void>();
    const events: ClientEvents = {
      listen: (fn) => {
        listeners.add(fn);
        return () => listeners.delete(fn);
      },
    };
    const retry = (callId: number): ClientEvent => ({
      type: 'retry',
      callId,
      operation: 'getguideacctlist',
      attempt: 1,
      delayMs: 10,
      reason: 'timeout',
    });
    const progress = createProgress(io, 'Reading', events);
    for (const id of [1, 2, 2]) for (const fn of listeners) fn(retry(id));
    time.advance(10_000);
    time.tick();
    expect(io.err()).toBe('Reading: 0/0 calls, 10s elapsed, 2 retried\n');
    progress.finish();
    expect(listeners.size).toBe(0);
  });
});

describe('apply in CI (no terminal)', () => {
  const target = useServiceTarget({ faults: 'latency=20ms', reset: true });

  it('prints "Applying: …" on stderr while the calls go on', async () => {
    await target.ws.write('g.yaml', `version: 1\nguides:\n${guideEntries(6)}`);
    const time = fakeTime();
    let done = 0;
    const run = await target.cli(
      ['apply', 'g.yaml', '--auto-approve', '--json-stream', '--parallelism', '1'],
      {
        now: time.now,
        every: time.every,
        // Ten seconds pass as the third call ends.
        onStdout: (line) => {
          if (line.includes('"call_done"') && ++done === 3) {
            time.advance(10_000);
            time.tick();
          }
        },
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('Applying: 3/6 calls, 10s elapsed\n');
  });

  it('counts the calls of the plan before the first one ends, not "0/0"', async () => {
    await target.ws.write('g.yaml', `version: 1\nguides:\n${guideEntries(6)}`);
    const time = fakeTime();
    let ticked = false;
    const run = await target.cli(
      ['apply', 'g.yaml', '--auto-approve', '--json-stream', '--parallelism', '1'],
      {
        now: time.now,
        every: time.every,
        // Ten seconds pass while the first call is in flight (a slow service, a held write).
        onStdout: (line) => {
          if (line.includes('"call_start"') && !ticked) {
            ticked = true;
            time.advance(10_000);
            time.tick();
          }
        },
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('Applying: 0/6 calls, 10s elapsed\n');
    expect(run.stderr).not.toContain('0/0');
  });
});
