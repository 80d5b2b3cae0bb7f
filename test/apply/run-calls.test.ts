import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCalls, writeAwareStopper } from '../../src/apply/index.js';
import { createGuideClient, type GuideClient } from '../../src/client/index.js';
import type { CallsEvent } from '../../src/core/apply-run.js';
import { FAST_RETRY } from '../client/helpers.js';
import { desiredGroup, desiredGuide, desiredState, planOf } from '../helpers/plan-builder.js';
import { startTestService, type TestService } from '../helpers/service.js';

// runCalls against the guide service on 127.0.0.1: what it tells of each call as it runs (the
// progress line and `apply --json-stream` are made of these events), and how a stop reaches it.

let t: TestService;
let client: GuideClient;

beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.sim('reset');
  await t.sim('faults', { faults: '' });
  client = createGuideClient({ baseUrl: t.url, auth: t.service.credentials, retry: FAST_RETRY });
});
afterEach(() => client.close());

const SHOP = desiredState({
  guides: [desiredGuide('alice_wx', { quickReplies: ['Hello'] }), desiredGuide('bob_wx')],
  groups: [desiredGroup('North', ['alice_wx', 'bob_wx'])],
});

describe('runCalls', () => {
  it('tells each call once as it starts and once as it ends, by its index in the plan', async () => {
    const plan = planOf(SHOP);
    const events: CallsEvent[] = [];
    const result = await runCalls(client, plan, {
      parallelism: 4,
      continueOnError: false,
      stopSignal: new AbortController().signal,
      onEvent: (e) => events.push(e),
    });
    const indexes = plan.calls.map((_, i) => i);
    const of = (type: string): number[] =>
      events.flatMap((e) => (e.type === type && 'index' in e ? [e.index] : [])).sort((a, b) => a - b);
    expect(of('start')).toEqual(indexes);
    expect(of('done')).toEqual(indexes);
    expect(events.filter((e) => !['start', 'done'].includes(e.type))).toEqual([]);
    for (const i of indexes) {
      const start = events.findIndex((e) => e.type === 'start' && e.index === i);
      const done = events.findIndex((e) => e.type === 'done' && e.index === i);
      expect(start).toBeLessThan(done);
      expect(events[start]).toMatchObject({ operation: plan.calls[i]?.operation });
    }
    expect(result.outcomes.every((o) => o.status === 'done')).toBe(true);
  });

  it('tells the retries of a call under the index of the call they belong to', async () => {
    await t.sim('faults', { faults: 'system_error=0.5,seed=3' });
    const plan = planOf(SHOP);
    const events: CallsEvent[] = [];
    const result = await runCalls(client, plan, {
      parallelism: 1,
      continueOnError: false,
      stopSignal: new AbortController().signal,
      onEvent: (e) => events.push(e),
    });
    expect(result.outcomes.every((o) => o.status === 'done')).toBe(true);
    const retries = events.filter((e) => e.type === 'retry');
    expect(retries.length).toBeGreaterThan(0);
    for (const retry of retries) {
      // With one call at a time, a retry comes between its own call's start and end.
      const at = events.indexOf(retry);
      const lastStart = events.slice(0, at).findLast((e) => e.type === 'start');
      expect(lastStart).toMatchObject({ index: retry.index });
      expect(retry).toMatchObject({ reason: expect.stringContaining('-1') });
    }
  });

  it('after a stop, starts nothing new, tells how many calls were in flight, and lists the rest as not started', async () => {
    const plan = planOf(SHOP);
    const stop = new AbortController();
    const events: CallsEvent[] = [];
    const result = await runCalls(client, plan, {
      parallelism: 1,
      continueOnError: false,
      stopSignal: stop.signal,
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'done' && e.index === 0) stop.abort();
      },
    });
    expect(events.find((e) => e.type === 'stop')).toEqual({ type: 'stop', inFlight: 0 });
    const notStarted = events
      .filter((e) => e.type === 'not-started')
      .map((e) => ('index' in e ? e.index : -1));
    expect(notStarted.length).toBeGreaterThan(0);
    expect(result.outcomes.filter((o) => o.status === 'not-started').map((o) => o.index)).toEqual(notStarted);
    expect(events.filter((e) => e.type === 'start')).toHaveLength(plan.calls.length - notStarted.length);
  });
});

describe('writeAwareStopper', () => {
  it('passes a stop to the client at once while reading, after the writes while writing, and an abandon always', () => {
    const stop = new AbortController();
    const abandon = new AbortController();
    const reading = writeAwareStopper(stop.signal, abandon.signal);
    stop.abort('stop');
    expect(reading.signal.aborted).toBe(true);

    const stop2 = new AbortController();
    const writing = writeAwareStopper(stop2.signal, abandon.signal);
    writing.writing(true);
    stop2.abort('stop');
    expect(writing.signal.aborted).toBe(false);
    writing.writing(false);
    expect(writing.signal.aborted).toBe(true);

    const stop3 = new AbortController();
    const abandon3 = new AbortController();
    const abandoned = writeAwareStopper(stop3.signal, abandon3.signal);
    abandoned.writing(true);
    abandon3.abort('abandon');
    expect(abandoned.signal.aborted).toBe(true);
    expect(abandoned.signal.reason).toBe('abandon');
  });
});
