import { describe, expect, it } from 'vitest';
import type { ChatRecord, TaskSummary } from '../../src/core/account-records.js';
import { isoLocalTime, parseDateText, shortLocalTime } from '../../src/core/wall-time.js';
import { resolveChatWindow } from '../../src/inspect/chat-window.js';
import { type ChatReader, exportChats } from '../../src/inspect/export-chats.js';
import { chatExportOutcome, chatHeader, csvField, renderChatRecords } from '../../src/report/chats.js';
import { renderTaskTable, tasksToJson } from '../../src/report/tasks.js';
import { stringifyJson } from '../../src/wire/json.js';

const NY = 'America/New_York';
/** 2026-11-01 05:30 UTC: 01:30 EDT, the first of the two 01:30s of the night clocks go back. */
const FALL_BACK = Date.UTC(2026, 10, 1, 5, 30) / 1000;

const record = (over: Partial<ChatRecord> = {}): ChatRecord => ({
  guide: { kind: 'account', account: 'alice_wx' },
  customer: 'oAnn',
  time: FALL_BACK,
  content: 'hello',
  contentType: 1,
  direction: 2,
  ...over,
});

describe('CSV fields', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\r', '"cr\r"'],
    [' padded', '" padded"'],
    ['', ''],
    ['=1+1', '=1+1'],
  ])('%j → %j', (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });
});

describe('chat records', () => {
  it('as CSV: local time with the offset of its day, names for codes, the content exact', () => {
    const text =
      chatHeader('csv') +
      renderChatRecords(
        [
          record({ content: 'a, "b"\nc' }),
          record({
            time: FALL_BACK + 3600,
            guide: { kind: 'openid', openid: 'oG' },
            contentType: 49,
            direction: 1,
          }),
          record({ contentType: 7, direction: 9, content: '\u001b[2J' }),
        ],
        'csv',
        { timeZone: NY },
      );
    expect(text).toBe(
      'time,create_time,guide_account,guide_openid,openid,direction,type,content\n' +
        `2026-11-01T01:30:00-04:00,${FALL_BACK},alice_wx,,oAnn,customer_to_guide,text,"a, ""b""\nc"\n` +
        `2026-11-01T01:30:00-05:00,${FALL_BACK + 3600},,oG,oAnn,guide_to_customer,miniprogram,hello\n` +
        `2026-11-01T01:30:00-04:00,${FALL_BACK},alice_wx,,oAnn,9,7,\u001b[2J\n`,
    );
  });

  it('as CSV on a terminal: control characters escaped, line breaks kept', () => {
    const text = renderChatRecords([record({ content: 'x\u001b[2J\ny\u202e' })], 'csv', {
      timeZone: 'UTC',
      escapeControls: true,
    });
    expect(text).toBe(
      `2026-11-01T05:30:00+00:00,${FALL_BACK},alice_wx,,oAnn,customer_to_guide,text,"x\\u001b[2J\ny\\u202e"\n`,
    );
  });

  it('as JSON lines: one object a line, safe on a terminal, the same value when parsed', () => {
    const content = 'line\nbreak \u009b \u2028 "q"';
    const text = renderChatRecords(
      [record({ content }), record({ guide: { kind: 'openid', openid: 'oG' } })],
      'jsonl',
      {
        timeZone: 'Asia/Shanghai',
      },
    );
    const lines = text.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).not.toMatch(/[\u0080-\u009f\u2028]/);
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      time: '2026-11-01T13:30:00+08:00',
      create_time: FALL_BACK,
      guide_account: 'alice_wx',
      openid: 'oAnn',
      direction: 2,
      content_type: 1,
      content,
    });
    expect(JSON.parse(lines[1] ?? '')).toMatchObject({ guide_openid: 'oG' });
    expect(chatHeader('jsonl')).toBe('');
  });
});

const task = (over: Partial<TaskSummary> = {}): TaskSummary => ({
  id: '1860131524965138433',
  guide: { kind: 'account', account: 'alice_wx' },
  name: 'Spring sale',
  remark: '',
  pushAt: Date.UTC(2026, 11, 1, 2, 0) / 1000,
  state: 'pending',
  recipients: 1200,
  materials: 2,
  ...over,
});

describe('task tables', () => {
  it('shows the push time in the zone given, counts grouped, names escaped, sorted by push time', () => {
    const table = renderTaskTable(
      [task(), task({ id: '7', name: 'Bad\u001b[31m', pushAt: task().pushAt - 30, state: 'completed' })],
      'Asia/Shanghai',
    );
    expect(table).toBe(
      'NAME           GUIDE     PUSH TIME                   RECIPIENTS  STATUS     TASK ID\n' +
        'Bad\\u001b[31m  alice_wx  2026-12-01 09:59:30 +08:00       1,200  completed  7\n' +
        'Spring sale    alice_wx  2026-12-01 10:00 +08:00          1,200  pending    1860131524965138433\n' +
        '2 tasks\n',
    );
    expect(renderTaskTable([task()], NY)).toContain('2026-11-30 21:00 -05:00');
    expect(renderTaskTable([], NY)).toBe('No tasks.\n');
  });

  it('as JSON: versioned, the id a bare number with every digit', () => {
    const json = stringifyJson(tasksToJson([task({ guide: { kind: 'openid', openid: 'oG' } })], 'UTC'));
    expect(json).toBe(
      '{"format_version":1,"tasks":[{"task_id":1860131524965138433,"guide_openid":"oG","name":"Spring sale","remark":"",' +
        `"push_time":${task().pushAt},"push_at":"2026-12-01T02:00:00+00:00","status":"pending","recipients":1200,"materials":2}]}`,
    );
  });
});

describe('local times', () => {
  it('formats an instant with the offset in force then', () => {
    expect(isoLocalTime(FALL_BACK, NY)).toBe('2026-11-01T01:30:00-04:00');
    expect(isoLocalTime(FALL_BACK + 3600, NY)).toBe('2026-11-01T01:30:00-05:00');
    expect(shortLocalTime(FALL_BACK + 7, 'Asia/Kolkata')).toBe('2026-11-01 11:00:07 +05:30');
    // An unknown zone is the system's, as Node treats an unknown TZ; a POSIX ":Area/City" is read.
    expect(isoLocalTime(0, ':Asia/Shanghai')).toBe('1970-01-01T08:00:00+08:00');
  });

  it('reads the forms a person types, a bare day whole, and refuses the rest', () => {
    const day = Date.UTC(2026, 10, 30, 16) / 1000;
    expect(parseDateText('2026-12-01', 'Asia/Shanghai')).toBe(day);
    expect(parseDateText('2026-12-01', 'Asia/Shanghai', true)).toBe(day + 86_399);
    expect(parseDateText('2026-12-01T09:30', 'Asia/Shanghai')).toBe(day + 9.5 * 3600);
    expect(parseDateText('2026-12-01 09:30:15', 'Asia/Shanghai')).toBe(day + 9.5 * 3600 + 15);
    expect(parseDateText('2026-12-01T09:30:00+08:00', NY)).toBe(day + 9.5 * 3600);
    expect(parseDateText('2026-12-01T01:30:00Z', NY)).toBe(day + 9.5 * 3600);
    expect(parseDateText('@1764576000', NY)).toBe(1_764_576_000);
    // The night clocks go back: 01:30 happens twice; the first is meant.
    expect(parseDateText('2026-11-01T01:30', NY)).toBe(FALL_BACK);
    for (const bad of [
      'yesterday',
      '2026-13-01',
      '2026-02-29',
      '2026-12-01T24:00',
      '12/01/2026',
      '2026-12-01T09:30+8',
      '',
    ])
      expect(parseDateText(bad, 'UTC'), bad).toBeUndefined();
  });

  it('resolves the chat window: defaults to the last 30 days, names a flag that is wrong', () => {
    const now = 1_800_000_000;
    const show = String;
    expect(resolveChatWindow({}, 'UTC', now, show)).toEqual({
      since: now - 30 * 86_400,
      until: now,
      notes: [],
    });
    expect(resolveChatWindow({ since: '@1' }, 'UTC', now, show).notes).toEqual([
      `chat records are kept 30 days: nothing before ${now - 30 * 86_400} can be read`,
    ]);
    expect(() => resolveChatWindow({ until: 'soon' }, 'UTC', now, show)).toThrow(
      /^--until "soon" is not a date; write /,
    );
    expect(() => resolveChatWindow({ since: '@20', until: '@10' }, 'UTC', now, show)).toThrow(
      '--since 20 is after --until 10; the window must begin before it ends',
    );
  });
});

describe('exportChats', () => {
  /** A reader of `total` records in pages of `size`, whose total_num is `totalAt(page)`. */
  function reader(
    total: number,
    size: number,
    totalAt: (page: number) => number = () => total,
  ): ChatReader & { pages: number[] } {
    const pages: number[] = [];
    return {
      pages,
      async getguidebuyerchatrecord(request) {
        pages.push(request.page);
        const first = request.page * size;
        const n = Math.max(0, Math.min(size, total - first));
        return {
          total_num: totalAt(request.page),
          msg_list: Array.from({ length: n }, (_, i) => ({
            guide_account: 'alice_wx',
            openid: 'oAnn',
            create_time: first + i,
            content: `m${first + i}`,
            content_type: 1 as const,
            direction: 2 as const,
          })),
        };
      },
    };
  }
  const query = { guide: { kind: 'account' as const, account: 'alice_wx' }, since: 1, until: 2 };

  it('hands each page to the sink in order, and tells progress in pages', async () => {
    const r = reader(250, 100);
    const seen: number[] = [];
    const progress: string[] = [];
    const result = await exportChats(r, query, {
      write: async (records) => {
        seen.push(records.length);
        return true;
      },
      progress: (done, known) => progress.push(`${done}/${known}`),
    });
    expect(seen).toEqual([100, 100, 50]);
    expect(progress).toEqual(['1/3', '2/3', '3/3']);
    expect(result).toEqual({ written: 250, total: 250, readerGone: false });
    expect(chatExportOutcome(result, 'a.csv')).toEqual({
      whole: true,
      text: 'guidectl: wrote a.csv: 250 chat records\n',
    });
  });

  it('stops asking for pages once the reader has gone', async () => {
    const r = reader(1000, 100);
    const result = await exportChats(r, query, { write: async () => false });
    expect(r.pages).toEqual([0]);
    expect(result).toMatchObject({ written: 0, readerGone: true });
  });

  it('notes a total that moved between pages: the output may have skipped a record', async () => {
    const result = await exportChats(
      reader(250, 100, (p) => (p === 0 ? 250 : 249)),
      query,
      { write: async () => true },
    );
    expect(result.totalChanged).toBe(249);
    const outcome = chatExportOutcome(result, undefined);
    expect(outcome.whole).toBe(false);
    expect(outcome.text).toContain('the records changed while they were read (250, then 249)');
  });
});
