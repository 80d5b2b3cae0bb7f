import { renderProgressLine } from '../report/progress.js';
import type { ClientEvents } from '../target/index.js';
import type { CliIo } from './io.js';

/** The state of long work, shown on stderr while it lasts. */
export interface Progress {
  /** Calls answered so far, of those known. */
  update(done: number, total: number): void;
  /** Counts a call sent again (by the client's call id: each call counts once). */
  retried(callId: number): void;
  /** Counts a failed call. */
  failed(): void;
  /** Prints a line of its own (a failure), clearing the progress line first on a terminal. */
  note(line: string): void;
  /** Stops the timer and clears the progress line, if one was drawn. */
  finish(): void;
}

/** On a terminal: shown once the work has taken this long, and redrawn at most so often. */
const SHOW_AFTER_MS = 2_000;
const REDRAW_EVERY_MS = 100;
const TICK_TTY_MS = 1_000;
/** Without a terminal (CI logs): one plain line this often, so a long apply is never silent. */
export const PLAIN_EVERY_MS = 10_000;

function defaultEvery(ms: number, fn: () => void): () => void {
  const timer = setInterval(fn, ms);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Progress of long work on stderr (`renderProgressLine`). On a terminal, one line redrawn in place
 * once the work has taken a couple of seconds; without one, a plain line every ten seconds (as Terraform's "Still creating… [10s elapsed]"), nothing
 * before: short work prints nothing. With `events`, the client's retries are counted until `finish`.
 */
export function createProgress(io: CliIo, label: string, events?: ClientEvents): Progress {
  const now = io.now ?? Date.now;
  const tty = io.stderr.isTTY;
  const started = now();
  let done = 0;
  let total = 0;
  let failures = 0;
  const retries = new Set<number>();
  let drawn = false;
  let finished = false;
  let lastDraw = Number.NEGATIVE_INFINITY;

  const line = (t: number): string =>
    renderProgressLine(label, {
      done,
      total,
      elapsedMs: t - started,
      retried: retries.size,
      failed: failures,
    });
  const draw = (force: boolean): void => {
    const t = now();
    if (finished || t - started < SHOW_AFTER_MS || (!force && t - lastDraw < REDRAW_EVERY_MS)) return;
    lastDraw = t;
    drawn = true;
    io.stderr.write(`\r\u001b[2K${line(t)}`);
  };
  const clear = (): void => {
    if (drawn) io.stderr.write('\r\u001b[2K');
    drawn = false;
  };
  const unlisten = events?.listen((event) => {
    if (event.type === 'retry') retries.add(event.callId);
  });
  const stopTimer = (io.every ?? defaultEvery)(tty ? TICK_TTY_MS : PLAIN_EVERY_MS, () => {
    if (finished) return;
    if (tty) draw(true);
    else io.stderr.write(`${line(now())}\n`);
  });
  return {
    update(d, t) {
      done = d;
      total = t;
      if (tty) draw(false);
    },
    retried(callId) {
      retries.add(callId);
    },
    failed() {
      failures++;
    },
    note(text) {
      clear();
      io.stderr.write(text);
    },
    finish() {
      finished = true;
      unlisten?.();
      stopTimer();
      clear();
    },
  };
}
