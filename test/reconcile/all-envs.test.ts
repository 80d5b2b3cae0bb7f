import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { applyEnvironmentsInOrder } from '../../src/reconcile/index.js';

describe('applyEnvironmentsInOrder', () => {
  it('records a known failure and stops, or goes on with continueOnError', async () => {
    const failing = async (name: string): Promise<boolean> => {
      if (name === 'b') throw new UsageError('no credentials for b');
      return true;
    };
    expect(await applyEnvironmentsInOrder(['a', 'b', 'c'], failing, { continueOnError: false })).toEqual([
      { name: 'a', status: 'applied' },
      { name: 'b', status: 'failed', message: 'no credentials for b' },
      { name: 'c', status: 'skipped' },
    ]);
    const goingOn = await applyEnvironmentsInOrder(['a', 'b', 'c'], failing, { continueOnError: true });
    expect(goingOn.map((r) => r.status)).toEqual(['applied', 'failed', 'applied']);
  });

  it('an environment whose plan had no changes is unchanged, not applied', async () => {
    const results = await applyEnvironmentsInOrder(
      ['a', 'b'],
      async (name) => (name === 'a' ? 'unchanged' : true),
      { continueOnError: false },
    );
    expect(results).toEqual([
      { name: 'a', status: 'unchanged' },
      { name: 'b', status: 'applied' },
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
        { continueOnError: true },
      ),
    ).rejects.toBe(bug);
  });

  describe('the stop signal (Ctrl-C) starts no further environment, even with continueOnError', () => {
    /** Applies `a`; the stop signal comes while `b` runs, which then ends as `cut` makes it. */
    async function interruptAtB(cut: () => boolean) {
      const stop = new AbortController();
      const started: string[] = [];
      const results = await applyEnvironmentsInOrder(
        ['a', 'b', 'c', 'd'],
        async (name) => {
          started.push(name);
          if (name !== 'b') return true;
          stop.abort();
          return cut();
        },
        { continueOnError: true, signal: stop.signal },
      );
      return { started, results };
    }

    it('the one cut is `interrupted`, the rest `skipped` and never started', async () => {
      const { started, results } = await interruptAtB(() => false);
      expect(started).toEqual(['a', 'b']);
      expect(results).toEqual([
        { name: 'a', status: 'applied' },
        { name: 'b', status: 'interrupted' },
        { name: 'c', status: 'skipped', message: 'not started: interrupted' },
        { name: 'd', status: 'skipped', message: 'not started: interrupted' },
      ]);
    });

    it('a failure thrown once stopped (the read cut) is `interrupted`, with its message', async () => {
      const { started, results } = await interruptAtB(() => {
        throw new UsageError('interrupted while reading the live state');
      });
      expect(started).toEqual(['a', 'b']);
      expect(results[1]).toEqual({
        name: 'b',
        status: 'interrupted',
        message: 'interrupted while reading the live state',
      });
      expect(results.slice(2).map((r) => r.status)).toEqual(['skipped', 'skipped']);
    });

    it('one that finished in spite of the signal is `applied`; the next still does not start', async () => {
      const { started, results } = await interruptAtB(() => true);
      expect(started).toEqual(['a', 'b']);
      expect(results.map((r) => r.status)).toEqual(['applied', 'applied', 'skipped', 'skipped']);
    });

    it('stopped before the first: none starts', async () => {
      const stop = new AbortController();
      stop.abort();
      const started: string[] = [];
      const results = await applyEnvironmentsInOrder(
        ['a', 'b'],
        async (name) => {
          started.push(name);
          return true;
        },
        { continueOnError: true, signal: stop.signal },
      );
      expect(started).toEqual([]);
      expect(results.map((r) => r.status)).toEqual(['skipped', 'skipped']);
    });
  });
});
