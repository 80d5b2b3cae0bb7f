import type { ChatRecord } from '../core/account-records.js';
import { countOf } from '../core/count.js';
import { isoLocalTime } from '../core/wall-time.js';
import { escapeControlsKeepingLines, showJson } from './escape.js';

/** How `guidectl chats` writes records: one JSON object a line, or CSV with a header line. */
export type ChatFormat = 'jsonl' | 'csv';

export interface ChatRenderOptions {
  /** The zone of `time` (an IANA name, `TZ`); the system's when undefined. */
  readonly timeZone: string | undefined;
  /** Escape control characters (CSV on a terminal); a file gets the content exactly. */
  readonly escapeControls?: boolean;
}

const CSV_COLUMNS = [
  'time',
  'create_time',
  'guide_account',
  'guide_openid',
  'openid',
  'direction',
  'type',
  'content',
];

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a double quote, a line break or
 * leading/trailing space, each `"` doubled. The value itself is kept: a spreadsheet may still read
 * a leading `=` as a formula.
 */
export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

const TYPES: Readonly<Record<number, string>> = { 1: 'text', 3: 'image', 49: 'miniprogram' };
const DIRECTIONS: Readonly<Record<number, string>> = { 1: 'guide_to_customer', 2: 'customer_to_guide' };

/** The text that starts the output, before any record: the CSV header line, nothing for JSONL. */
export function chatHeader(format: ChatFormat): string {
  return format === 'csv' ? `${CSV_COLUMNS.join(',')}\n` : '';
}

/**
 * The renderer of one export, page by page: the first page's text starts with the header, so
 * that nothing is written before the first call has succeeded.
 */
export function chatPageRenderer(
  format: ChatFormat,
  options: ChatRenderOptions,
): (records: readonly ChatRecord[]) => string {
  let header = chatHeader(format);
  return (records) => {
    const text = header + renderChatRecords(records, format, options);
    header = '';
    return text;
  };
}

/** Records as lines of `format`, each ending in `\n` (a CSV field may hold line breaks of its own). */
export function renderChatRecords(
  records: readonly ChatRecord[],
  format: ChatFormat,
  options: ChatRenderOptions,
): string {
  let out = '';
  for (const r of records) out += format === 'csv' ? csvLine(r, options) : jsonLine(r, options);
  return out;
}

function csvLine(r: ChatRecord, options: ChatRenderOptions): string {
  const cells = [
    isoLocalTime(r.time, options.timeZone),
    String(r.time),
    r.guide.kind === 'account' ? r.guide.account : '',
    r.guide.kind === 'openid' ? r.guide.openid : '',
    r.customer,
    DIRECTIONS[r.direction] ?? String(r.direction),
    TYPES[r.contentType] ?? String(r.contentType),
    r.content,
  ];
  const shown = options.escapeControls === true ? cells.map(escapeControlsKeepingLines) : cells;
  return `${shown.map(csvField).join(',')}\n`;
}

/**
 * A record as one JSON line: the wire's keys and codes (`create_time`, `guide_account` or
 * `guide_openid`, `openid`, `direction`, `content_type`, `content`) and `time` in the local zone.
 * Safe on a terminal as it is: JSON escapes every control character (see `showJson`).
 */
function jsonLine(r: ChatRecord, options: ChatRenderOptions): string {
  return `${showJson({
    time: isoLocalTime(r.time, options.timeZone),
    create_time: r.time,
    ...(r.guide.kind === 'account' ? { guide_account: r.guide.account } : { guide_openid: r.guide.openid }),
    openid: r.customer,
    direction: r.direction,
    content_type: r.contentType,
    content: r.content,
  })}\n`;
}

/**
 * The closing lines of `guidectl chats` on stderr, and whether the export is whole: with `file`
 * (as the user wrote it), the count written; when the count of records moved while they were read,
 * why the output cannot be trusted and what to do.
 */
export function chatExportOutcome(
  result: { readonly written: number; readonly total: number; readonly totalChanged?: number },
  file: string | undefined,
): { readonly whole: boolean; readonly text: string } {
  if (result.totalChanged !== undefined) {
    const unwritten = file === undefined ? '' : ` (${file} was not written)`;
    return {
      whole: false,
      text: `guidectl: the records changed while they were read (${result.total}, then ${result.totalChanged}): messages passed the 30-day limit, so one may be missing or repeated; run again, with --since later than the oldest messages${unwritten}\n`,
    };
  }
  return {
    whole: true,
    text: file === undefined ? '' : `guidectl: wrote ${file}: ${countOf(result.written, 'chat record')}\n`,
  };
}
