import { describe, expect, it } from 'vitest';
import { renderProgressLine } from '../../src/report/progress.js';

describe('renderProgressLine', () => {
  it('counts calls and time, and retries and failures only when there are some', () => {
    const state = { done: 1_200, total: 6_020, elapsedMs: 30_900, retried: 0, failed: 0 };
    expect(renderProgressLine('Applying', state)).toBe('Applying: 1,200/6,020 calls, 30s elapsed');
    expect(renderProgressLine('Reading', { ...state, elapsedMs: 125_000, retried: 3, failed: 1 })).toBe(
      'Reading: 1,200/6,020 calls, 2m05s elapsed, 3 retried, 1 failed',
    );
  });
});
