import { describe, expect, it } from 'vitest';
import { openFileLimit, parseOpenFileLimit } from '../../src/service/open-file-limit.js';

describe('openFileLimit', () => {
  it('reads a soft limit as the kernel and ulimit write it', () => {
    expect(parseOpenFileLimit('1024')).toBe(1024);
    expect(parseOpenFileLimit('unlimited')).toBe(1_000_000);
    expect(parseOpenFileLimit('')).toBeUndefined();
    expect(parseOpenFileLimit('12a')).toBeUndefined();
  });

  it("gives this process's limit as a whole number", () => {
    const limit = openFileLimit();
    expect(Number.isSafeInteger(limit)).toBe(true);
    expect(limit).toBeGreaterThan(0);
  });
});
