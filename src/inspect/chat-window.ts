import { UsageError } from '../core/errors.js';
import { DATE_FORMS, parseDateText } from '../core/local-time.js';
import { CHAT_WINDOW_SECONDS } from './export-chats.js';

/** The window of a chat export, fixed before its first page is read. */
export interface ChatWindow {
  readonly since: number;
  readonly until: number;
  /** Things to tell the user before reading (a window reaching past what the API keeps). */
  readonly notes: readonly string[];
}

function readDate(flag: string, text: string, timeZone: string | undefined, end: boolean): number {
  const unix = parseDateText(text, timeZone, end);
  if (unix === undefined)
    throw new UsageError(`${flag} ${JSON.stringify(text)} is not a date; write ${DATE_FORMS}`);
  return unix;
}

/**
 * `--since` and `--until` as Unix seconds: a bare day counts whole (`--until 2026-11-07` takes in
 * the 7th), times without an offset are in `timeZone`. Defaults: the last 30 days, up to `now`
 * (Unix seconds) — what the API keeps. A window that ends before it begins is a usage error.
 */
export function resolveChatWindow(
  flags: { readonly since?: string; readonly until?: string },
  timeZone: string | undefined,
  now: number,
  show: (unix: number) => string,
): ChatWindow {
  const oldest = now - CHAT_WINDOW_SECONDS;
  const since = flags.since === undefined ? oldest : readDate('--since', flags.since, timeZone, false);
  const until = flags.until === undefined ? now : readDate('--until', flags.until, timeZone, true);
  if (since > until) {
    throw new UsageError(
      `--since ${show(since)} is after --until ${show(until)}; the window must begin before it ends`,
    );
  }
  const notes =
    since < oldest ? [`chat records are kept 30 days: nothing before ${show(oldest)} can be read`] : [];
  return { since, until, notes };
}
