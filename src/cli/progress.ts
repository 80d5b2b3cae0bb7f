import type { CliIo } from './io.js';

export interface Progress {
  update(done: number, total: number, note?: string): void;
  /** Clears the progress line, if one was drawn. */
  finish(): void;
}

const SHOW_AFTER_MS = 2_000;
const REDRAW_EVERY_MS = 100;

/**
 * A one-line counter on stderr for long work: drawn only on a terminal, only once the work has
 * taken more than a couple of seconds, and redrawn at most ten times a second.
 */
export function createProgress(io: CliIo, label: string): Progress {
  const now = io.now ?? Date.now;
  const started = now();
  let drawn = false;
  let lastDraw = 0;
  return {
    update(done, total, note) {
      if (!io.stderr.isTTY) return;
      const t = now();
      if (t - started < SHOW_AFTER_MS || t - lastDraw < REDRAW_EVERY_MS) return;
      lastDraw = t;
      drawn = true;
      io.stderr.write(`\r\u001b[2K${label}: ${done}/${total} calls${note === undefined ? '' : ` ${note}`}`);
    },
    finish() {
      if (drawn) io.stderr.write('\r\u001b[2K');
      drawn = false;
    },
  };
}
