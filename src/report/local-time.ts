import { type WallTime, wallTimeOf } from '../core/wall-time.js';

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
