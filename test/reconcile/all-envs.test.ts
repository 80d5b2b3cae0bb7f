import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { applyEnvironmentsInOrder } from '../../src/reconcile/index.js';

describe('applyEnvironmentsInOrder', () => {
  it('records a known failure and stops, or goes on with continueOnError', async () => {
    const failing = async (name: string): Promise<boolean> => {
      if (name === 'b') throw new UsageError('no credentials for b');
      return true;
    };
    expect(await applyEnvironmentsInOrder(['a', 'b', 'c'], failing, false)).toEqual([
      { name: 'a', status: 'applied' },
      { name: 'b', status: 'failed', message: 'no credentials for b' },
      { name: 'c', status: 'skipped' },
    ]);
    expect((await applyEnvironmentsInOrder(['a', 'b', 'c'], failing, true)).map((r) => r.status)).toEqual([
      'applied',
      'failed',
      'applied',
    ]);
  });

  it('lets a bug through with its stack trace instead of reporting it as an environment that failed', async () => {
    const bug = new TypeError('x is undefined');
    await expect(
      applyEnvironmentsInOrder(
        ['a'],
        async () => {
          throw bug;
        },
        true,
      ),
    ).rejects.toBe(bug);
  });
});
