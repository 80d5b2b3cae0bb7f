/**
 * A task's push time as a user writes it: ISO 8601 with a UTC offset (`2026-12-01T10:00:00+08:00`,
 * or `Z`), and back, in that offset, so that messages speak the file's time zone. Pure.
 */

import { parseUtcOffset } from './wall-time.js';

/** A push time: Unix seconds, and the offset from UTC (in minutes) it was written with. */
export interface WrittenTime {
  readonly unix: number;
  readonly offsetMinutes: number;
}

/**
 * ISO 8601 with an offset: seconds optional, a fraction of a second only of zeros (what
 * `toISOString` writes, `.000`: the API takes whole seconds), the offset `Z`, `+08:00` or `+0800`
 * (as `parseUtcOffset` takes it for --since too). The schema's pattern for push_at says the same.
 */
const ISO_WITH_OFFSET = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.0+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Parses ISO 8601 with an offset; undefined when it is not one, or names no real date and time. */
export function parseWrittenTime(text: string): WrittenTime | undefined {
  const m = ISO_WITH_OFFSET.exec(text);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? '0'));
  const offsetMinutes = parseUtcOffset(m[7] ?? '');
  if (offsetMinutes === undefined) return undefined;
  if (year === undefined || month === undefined || day === undefined) return undefined;
  if (hour === undefined || minute === undefined || second === undefined) return undefined;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second);
  const back = new Date(utc);
  // Date.UTC rolls 2026-02-30 over to March: such a date does not exist.
  if (
    back.getUTCMonth() !== month - 1 ||
    back.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  )
    return undefined;
  return { unix: utc / 1000 - offsetMinutes * 60, offsetMinutes };
}

/** Unix seconds as ISO 8601 in the given offset: `2026-12-01T10:00:00+08:00` (`Z` for UTC). */
export function formatWrittenTime(unix: number, offsetMinutes: number): string {
  const local = new Date((unix + offsetMinutes * 60) * 1000).toISOString().slice(0, 19);
  if (offsetMinutes === 0) return `${local}Z`;
  const abs = Math.abs(offsetMinutes);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${local}${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
