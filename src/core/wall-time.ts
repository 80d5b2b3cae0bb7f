/**
 * Wall-clock time in a time zone, for what people read and type: the zone is an IANA name (`TZ`,
 * e.g. `Asia/Shanghai`) or undefined for the system's own. No `Date.now()` here: callers pass
 * the instant.
 */

/** A moment as a clock on the wall shows it, and that zone's offset from UTC at that moment. */
export interface WallTime {
  readonly year: number;
  /** 1–12. */
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  /** Seconds east of UTC (Shanghai: 28800). */
  readonly offsetSeconds: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * The zone as Intl takes it: a POSIX `:Area/City` loses its colon; a name Intl does not know
 * (or none) is the system's zone, as Node itself treats an unknown TZ.
 */
function formatFor(timeZone: string | undefined): Intl.DateTimeFormat {
  const key = timeZone ?? '';
  let format = formats.get(key);
  if (format === undefined) {
    const options: Intl.DateTimeFormatOptions = {
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    };
    const zone = timeZone?.replace(/^:/, '');
    try {
      format = new Intl.DateTimeFormat(
        'en-US',
        zone === undefined || zone === '' ? options : { ...options, timeZone: zone },
      );
    } catch {
      format = new Intl.DateTimeFormat('en-US', options);
    }
    formats.set(key, format);
  }
  return format;
}

/** The wall time in `timeZone` of the Unix second `unix`. */
export function wallTimeOf(unix: number, timeZone: string | undefined): WallTime {
  const parts: Record<string, number> = {};
  for (const part of formatFor(timeZone).formatToParts(new Date(unix * 1000))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const year = parts['year'] ?? 1970;
  const month = parts['month'] ?? 1;
  const day = parts['day'] ?? 1;
  const hour = parts['hour'] ?? 0;
  const minute = parts['minute'] ?? 0;
  const second = parts['second'] ?? 0;
  const asUtc = Date.UTC(year, month - 1, day, hour, minute, second) / 1000;
  return { year, month, day, hour, minute, second, offsetSeconds: asUtc - Math.floor(unix) };
}

/**
 * The Unix second at which a wall clock in `timeZone` shows this time. In an overlap (clocks moved
 * back) the earlier one; in a gap (clocks moved forward) the time is read with the offset before
 * the change.
 */
function unixOfWallTime(wall: Omit<WallTime, 'offsetSeconds'>, timeZone: string | undefined): number {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second) / 1000;
  // The offsets in force a day either side: a zone changes its offset at most once in two days.
  const before = wallTimeOf(asUtc - 86_400, timeZone).offsetSeconds;
  const after = wallTimeOf(asUtc + 86_400, timeZone).offsetSeconds;
  const shown = [asUtc - before, asUtc - after].filter(
    (t) => wallTimeOf(t, timeZone).offsetSeconds === asUtc - t,
  );
  return shown.length === 0 ? asUtc - before : Math.min(...shown);
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** How a date may be written, for messages. */
export const DATE_FORMS =
  '2026-11-01 (a whole day), 2026-11-01T09:30 or 2026-11-01T09:30:15 (local time), 2026-11-01T09:30:00+08:00 or …Z (with an offset of at most ±18:00), or @1762000000 (Unix seconds)';

/** The widest UTC offset a time may be written with, in minutes: ±18:00, as ISO 8601 tools accept. */
const MAX_OFFSET_MINUTES = 18 * 60;

/**
 * An offset from UTC as written after a time (`Z`, `+08:00`, `-0530`), in minutes east of UTC.
 * Undefined when it is none, its minutes pass 59, or it is wider than ±18:00: the one rule for
 * every time a user writes (a task's `push_at`, `chats --since`).
 */
export function parseUtcOffset(text: string): number | undefined {
  if (text === 'Z') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(text);
  if (m === null) return undefined;
  const [hours, minutes] = [Number(m[2]), Number(m[3])];
  const total = hours * 60 + minutes;
  if (minutes > 59 || total > MAX_OFFSET_MINUTES) return undefined;
  return m[1] === '-' ? -total : total;
}

/**
 * A date as a person types it (see {@link DATE_FORMS}) as Unix seconds; a bare day is its first
 * second, or with `end` its last. Undefined when the text is not one of the forms or names no
 * real moment (month 13, February 30, 24:00).
 */
export function parseDateText(text: string, timeZone: string | undefined, end = false): number | undefined {
  const unix = /^@(\d{1,12})$/.exec(text.trim());
  if (unix !== null) return Number(unix[1]);
  const m = DATE_TIME.exec(text.trim());
  if (m === null) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const timed = m[4] !== undefined;
  const hour = timed ? Number(m[4]) : end ? 23 : 0;
  const minute = timed ? Number(m[5]) : end ? 59 : 0;
  const second = m[6] !== undefined ? Number(m[6]) : timed || !end ? 0 : 59;
  const check = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    check.getUTCHours() !== hour ||
    check.getUTCMinutes() !== minute ||
    check.getUTCSeconds() !== second
  )
    return undefined;
  if (m[7] === undefined) return unixOfWallTime({ year, month, day, hour, minute, second }, timeZone);
  const offset = parseUtcOffset(m[7]);
  return offset === undefined ? undefined : check.getTime() / 1000 - offset * 60;
}

const two = (n: number): string => String(n).padStart(2, '0');

function offsetText(wall: WallTime): string {
  const minutes = Math.abs(wall.offsetSeconds) / 60;
  return `${wall.offsetSeconds < 0 ? '-' : '+'}${two(Math.floor(minutes / 60))}:${two(minutes % 60)}`;
}

/** ISO 8601 with the zone's offset, for files and machines: `2026-12-01T10:00:00+08:00`. */
export function isoLocalTime(unix: number, timeZone: string | undefined): string {
  const w = wallTimeOf(unix, timeZone);
  return `${w.year}-${two(w.month)}-${two(w.day)}T${two(w.hour)}:${two(w.minute)}:${two(w.second)}${offsetText(w)}`;
}

/** For people: `2026-12-01 10:00 +08:00`, the seconds only when there are some. */
export function shortLocalTime(unix: number, timeZone: string | undefined): string {
  const w = wallTimeOf(unix, timeZone);
  const seconds = w.second === 0 ? '' : `:${two(w.second)}`;
  return `${w.year}-${two(w.month)}-${two(w.day)} ${two(w.hour)}:${two(w.minute)}${seconds} ${offsetText(w)}`;
}
