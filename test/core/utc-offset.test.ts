import { describe, expect, it } from 'vitest';
import { parseWrittenTime } from '../../src/core/task-time.js';
import { parseDateText, parseUtcOffset } from '../../src/core/wall-time.js';
import { resolveChatWindow } from '../../src/inspect/chat-window.js';

// One rule for a UTC offset, wherever a user writes a time: a task's push_at in the YAML and
// chats --since/--until. An offset past ±18:00, or with minutes past 59, is refused by both.

/** 2026-11-24T01:00:00 UTC. */
const AT = Date.UTC(2026, 10, 24, 1, 0, 0) / 1000;

describe('UTC offsets', () => {
  it.each([
    ['Z', 0],
    ['+08:00', 480],
    ['+0800', 480],
    ['-05:30', -330],
    ['+18:00', 1080],
    ['-18:00', -1080],
  ])('%s is read the same by push_at and --since', (offset, minutes) => {
    expect(parseUtcOffset(offset)).toBe(minutes);
    const text = `2026-11-24T01:00:00${offset}`;
    expect(parseWrittenTime(text)).toEqual({ unix: AT - minutes * 60, offsetMinutes: minutes });
    expect(parseDateText(text, 'UTC')).toBe(AT - minutes * 60);
  });

  it.each(['+99:99', '+25:00', '+18:01', '-18:30', '+05:60', '+00:99'])(
    '%s is refused by push_at and --since alike',
    (offset) => {
      const text = `2026-11-24T01:00:00${offset}`;
      expect(parseUtcOffset(offset)).toBeUndefined();
      expect(parseWrittenTime(text)).toBeUndefined();
      expect(parseDateText(text, 'UTC')).toBeUndefined();
      expect(() => resolveChatWindow({ since: text }, 'UTC', AT, String)).toThrow(
        `--since "${text}" is not a date; write`,
      );
    },
  );

  it('the message of a refused date says how wide an offset may be', () => {
    expect(() => resolveChatWindow({ until: '2026-11-24T01:00:00+25:00' }, 'UTC', AT, String)).toThrow(
      'with an offset of at most ±18:00',
    );
  });
});
