import { UsageError } from '../core/errors.js';
import { DATE_FORMS, parseDateText } from '../core/wall-time.js';
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
 * (Unix seconds) — what the API keeps; with `--until` alone, the 30 days up to it, from the oldest
 * record kept when that is later. A window that ends before it begins is a usage error, naming
 * only the flags given (an end not given is now).
 */
export function resolveChatWindow(
  flags: { readonly since?: string; readonly until?: string },
  timeZone: string | undefined,
  now: number,
  show: (unix: number) => string,
): ChatWindow {
  const oldest = now - CHAT_WINDOW_SECONDS;
  const given = flags.since === undefined ? undefined : readDate('--since', flags.since, timeZone, false);
  const until = flags.until === undefined ? now : readDate('--until', flags.until, timeZone, true);
  const since =
    given ?? (until < oldest ? until - CHAT_WINDOW_SECONDS : Math.max(oldest, until - CHAT_WINDOW_SECONDS));
  if (since > until) {
    const end = flags.until === undefined ? `now (${show(until)})` : `--until ${show(until)}`;
    throw new UsageError(`--since ${show(since)} is after ${end}; the window must begin before it ends`);
  }
  const kept = `chat records are kept 30 days: nothing before ${show(oldest)} can be read`;
  const notes =
    until < oldest
      ? [`${kept}, and the window ends at ${show(until)}: there is nothing to read`]
      : since < oldest
        ? [kept]
        : [];
  return { since, until, notes };
}
