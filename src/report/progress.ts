import { formatCount } from '../core/count.js';

/** Where long work stands, as a progress line shows it. */
export interface ProgressState {
  readonly done: number;
  readonly total: number;
  readonly elapsedMs: number;
  /** Calls sent again at least once. */
  readonly retried: number;
  readonly failed: number;
}

function elapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/** `Applying: 1,200/6,020 calls, 30s elapsed, 3 retried, 1 failed` (retries and failures only when there are some). */
export function renderProgressLine(label: string, p: ProgressState): string {
  return (
    `${label}: ${formatCount(p.done)}/${formatCount(p.total)} calls, ${elapsed(p.elapsedMs)} elapsed` +
    (p.retried > 0 ? `, ${formatCount(p.retried)} retried` : '') +
    (p.failed > 0 ? `, ${formatCount(p.failed)} failed` : '')
  );
}
