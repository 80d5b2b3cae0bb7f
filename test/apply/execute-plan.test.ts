import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ApplyEvent,
  executePlan,
  type PlanWriter,
  runCalls,
  writeAwareStopper,
} from '../../src/apply/index.js';
import { createGuideClient, type GuideClient } from '../../src/client/index.js';
import type { CallsEvent } from '../../src/core/apply-run-data.js';
import type { DesiredState } from '../../src/core/desired.js';
import type { Plan } from '../../src/core/plan-data.js';
import { READ_EVERYTHING, readLiveState, readOnlyClient } from '../../src/live/index.js';
import { planChanges } from '../../src/plan/index.js';
import { FAST_RETRY } from '../client/helpers.js';
import { desiredGroup, desiredGuide, desiredState, planOf } from '../helpers/plan-builder.js';
import { guideBody, startTestService, type TestService } from '../helpers/service.js';

// executePlan against the guide service on 127.0.0.1, with plans made by the planner: the calls
// it makes, in what order, what it reports of each, and what it leaves alone after a failure.

let t: TestService;
let client: GuideClient;

beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.sim('reset');
  t.service.resetCalls();
  client = createGuideClient({ baseUrl: t.url, auth: t.service.credentials, retry: FAST_RETRY });
});
afterEach(() => client.close());

/** A writer over the real client that records which call of the plan each request was. */
function recordingWriter(sent: number[] = []): PlanWriter & { sent: number[] } {
  return {
    sent,
    call: (operation, body, options, index) => {
      sent.push(index);
      return client.call(operation, body, options);
    },
  };
}

/** Two groups, three guides with quick replies, and their memberships: 11 calls to an empty account. */
const SHOP: DesiredState = desiredState({
  guides: [
    desiredGuide('alice_wx', { quickReplies: ['Hello', 'Opening hours?'] }),
    desiredGuide('bob_wx', { quickReplies: ['Hi'] }),
    desiredGuide('carol_wx'),
  ],
  groups: [desiredGroup('North', ['alice_wx', 'bob_wx']), desiredGroup('South', ['carol_wx', 'alice_wx'])],
});

async function readAll(): Promise<Parameters<typeof planChanges>[1]> {
  return readLiveState(readOnlyClient(client), READ_EVERYTHING);
}

describe('executePlan', () => {
  it('makes every call once; a created group gives its id to the membership calls; the account then matches', async () => {
    const plan = planOf(SHOP);
    expect(plan.calls).toHaveLength(11);
    const writer = recordingWriter();
    const result = await executePlan(plan, writer, { parallelism: 4 });
    expect(result.outcomes).toEqual(
      plan.calls.map((call, index) => ({ index, operation: call.operation, status: 'done' })),
    );
    expect([...writer.sent].sort((a, b) => a - b)).toEqual(plan.calls.map((_, i) => i));
    // The ids the result names are those of the account's groups, each holding its members.
    const groups = (await t.ok('getguidegrouplist'))['group_list'] as { id: bigint; name: string }[];
    expect(new Map(groups.map((g) => [g.name, String(g.id)]))).toEqual(result.createdGroups);
    const live = await readAll();
    expect(live.groups.map((g) => [g.name, [...(g.members ?? [])].sort()])).toEqual([
      ['North', ['alice_wx', 'bob_wx']],
      ['South', ['alice_wx', 'carol_wx']],
    ]);
    const again = planChanges(SHOP, live).plan;
    expect(again?.calls).toEqual([]);
  });

  it('starts a call only after every call it depends on is done; one at a time, in plan order', async () => {
    const plan = planOf(SHOP);
    for (const parallelism of [1, 8]) {
      await t.sim('reset');
      const events: ApplyEvent[] = [];
      const writer = recordingWriter();
      await executePlan(plan, writer, { parallelism, onEvent: (e) => events.push(e) });
      const at = (type: ApplyEvent['type'], index: number): number =>
        events.findIndex((e) => e.type === type && e.index === index);
      plan.calls.forEach((call, index) => {
        for (const d of call.dependsOn) expect(at('done', d)).toBeLessThan(at('start', index));
      });
      if (parallelism === 1) {
        expect(writer.sent).toEqual(plan.calls.map((_, i) => i));
        // Each call ends before the next starts.
        expect(events.map((e) => `${e.type} ${e.index}`)).toEqual(
          plan.calls.flatMap((_, i) => [`start ${i}`, `done ${i}`]),
        );
      }
    }
    // The plan has real dependencies to honour: memberships after their group and guide.
    expect(plan.calls.filter((c) => c.dependsOn.length > 0).length).toBeGreaterThan(4);
  });

  it('after a failure starts nothing new: the rest is "not started", each with why', async () => {
    // The plan was made against an empty account, but bob_wx is a guide by now.
    await t.ok('addguideacct', guideBody('bob_wx'));
    const plan = planOf(SHOP);
    const bobAdd = plan.calls.findIndex(
      (c) => c.operation === 'addguideacct' && c.body['guide_account'] === 'bob_wx',
    );
    const result = await executePlan(plan, recordingWriter(), { parallelism: 1 });
    const statuses = result.outcomes.map((o) => o.status);
    expect(statuses).toEqual(
      plan.calls.map((_, i) => (i < bobAdd ? 'done' : i === bobAdd ? 'failed' : 'not-started')),
    );
    const failed = result.outcomes[bobAdd];
    expect(failed).toMatchObject({ index: bobAdd, operation: 'addguideacct', status: 'failed' });
    expect(failed?.reason).toMatch(/^addguideacct failed: \d+ — .*already a guide/);
    for (const o of result.outcomes.slice(bobAdd + 1))
      expect(o.reason).toBe('not started: apply stopped after a failed call');
    // Nothing after the failure reached the service.
    const writes = t.service.calls().filter((c) => c.writes);
    expect(writes).toHaveLength(bobAdd + 2); // the calls before, the failed one, and our own add
  });

  it('with continueOnError, runs what does not depend on a failure; dependants, even indirect ones, are not started', async () => {
    await t.ok('addguideacct', guideBody('alice_wx', 'Alice'));
    await t.ok('setguideconfig', {
      guide_account: 'alice_wx',
      is_delete: false,
      guide_fast_reply_list: [{ content: 'old' }],
    });
    const longName = 'N'.repeat(100); // longer than any group name the service takes
    const desired = desiredState({
      guides: [
        // Longer than any nickname the service takes: the update fails, and the replies after it wait.
        desiredGuide('alice_wx', { nickname: 'A'.repeat(20), quickReplies: ['new'] }),
        desiredGuide('bob_wx'),
      ],
      groups: [desiredGroup(longName, ['alice_wx']), desiredGroup('South', ['bob_wx'])],
    });
    const plan = planOf(desired, await readAll());
    const result = await executePlan(plan, recordingWriter(), { parallelism: 3, continueOnError: true });
    const summary = result.outcomes.map((o) => {
      const call = plan.calls[o.index];
      const who = call?.body['guide_account'] ?? call?.body['group_name'];
      const dep =
        /^not started: it depends on call #(\d+) (\w+) \(index (\d+)\), which did not succeed$/.exec(
          o.reason ?? '',
        );
      return [o.operation, who, o.status, dep === null ? undefined : `#${dep[1]} ${dep[2]} index ${dep[3]}`];
    });
    expect(summary).toEqual([
      ['newguidegroup', longName, 'failed', undefined],
      ['newguidegroup', 'South', 'done', undefined],
      ['updateguideacct', 'alice_wx', 'failed', undefined],
      ['addguideacct', 'bob_wx', 'done', undefined],
      ['setguideconfig', 'alice_wx', 'not-started', '#3 updateguideacct index 2'],
      ['setguideconfig', 'alice_wx', 'not-started', '#5 setguideconfig index 4'],
      ['addguide2guidegroup', 'alice_wx', 'not-started', '#1 newguidegroup index 0'],
      ['addguide2guidegroup', 'bob_wx', 'done', undefined],
    ]);
    expect(result.outcomes[0]?.reason).toMatch(/^newguidegroup failed: /);
    expect(result.outcomes[2]?.reason).toMatch(/^updateguideacct failed: .*nickname/);
    expect([...result.createdGroups.keys()]).toEqual(['South']);
    // alice's replies were left as they were: neither the delete nor the append ran.
    expect((await readAll()).guides.find((g) => g.nickname === 'Alice')?.config?.quickReplies).toEqual([
      'old',
    ]);
  });

  it('of an operation with its quota left given, starts only its first calls in plan order, whatever order they end in', async () => {
    const plan = planOf(SHOP);
    const adds = plan.calls.flatMap((c, i) => (c.operation === 'addguideacct' ? [i] : []));
    expect(adds).toHaveLength(3);
    const [first, second, third] = adds as [number, number, number];
    // The first add answers only after the second: a later call ends first, as under load.
    let secondDone: () => void = () => undefined;
    const afterSecond = new Promise<void>((resolve) => {
      secondDone = resolve;
    });
    const sent: number[] = [];
    const writer: PlanWriter = {
      call: async (operation, body, options, index) => {
        sent.push(index);
        if (index === first) await afterSecond;
        const answer = await client.call(operation, body, options);
        if (index === second) secondDone();
        return answer;
      },
    };
    const result = await executePlan(plan, writer, {
      parallelism: 8,
      quotaRemain: new Map([['addguideacct', 2]]),
    });
    expect(sent).not.toContain(third);
    expect(result.outcomes[first]?.status).toBe('done');
    expect(result.outcomes[second]?.status).toBe('done');
    expect(result.outcomes[third]).toEqual({
      index: third,
      operation: 'addguideacct',
      status: 'not-started',
      reason:
        'not started: it is beyond the 2 calls left today of the daily quota of addguideacct, which the calls before it use; apply again after the quota resets',
    });
    // What depends on the guide not added is not started; every other call is done.
    plan.calls.forEach((call, index) => {
      const blocked = index === third || call.dependsOn.includes(third);
      expect(result.outcomes[index]?.status, `call ${index}`).toBe(blocked ? 'not-started' : 'done');
    });
    expect(result.quotaExhausted).toEqual(new Set(['addguideacct']));
    expect(t.service.calls().filter((c) => c.errcode !== 0)).toEqual([]);
  });

  it('once interrupted starts nothing new; the calls in flight end as they end', async () => {
    const plan = planOf(SHOP);
    const stop = new AbortController();
    const result = await executePlan(plan, recordingWriter(), {
      parallelism: 1,
      signal: stop.signal,
      onEvent: (e) => {
        if (e.type === 'start' && e.index === 2) stop.abort();
      },
    });
    expect(result.outcomes.map((o) => o.status)).toEqual(
      plan.calls.map((_, i) => (i <= 2 ? 'done' : 'not-started')),
    );
    expect(result.outcomes[3]?.reason).toBe('not started: apply was interrupted');
  });

  it('an empty plan makes no call', async () => {
    const plan: Plan = planOf(desiredState());
    const writer = recordingWriter();
    const result = await executePlan(plan, writer, { parallelism: 4 });
    expect(result.outcomes).toEqual([]);
    expect(result.createdGroups.size).toBe(0);
    expect(writer.sent).toEqual([]);
  });
});

// runCalls: what it tells of each call as it runs (the progress line and `apply --json-stream` are
// made of these events), and how a stop reaches it.

const SMALL_SHOP = desiredState({
  guides: [desiredGuide('alice_wx', { quickReplies: ['Hello'] }), desiredGuide('bob_wx')],
  groups: [desiredGroup('North', ['alice_wx', 'bob_wx'])],
});

describe('runCalls', () => {
  it('tells each call once as it starts and once as it ends, by its index in the plan', async () => {
    const plan = planOf(SMALL_SHOP);
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
    const plan = planOf(SMALL_SHOP);
    const events: CallsEvent[] = [];
    const result = await runCalls(client, plan, {
      parallelism: 1,
      continueOnError: false,
      stopSignal: new AbortController().signal,
      onEvent: (e) => events.push(e),
    }).finally(() => t.sim('faults', { faults: '' }));
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
    const plan = planOf(SMALL_SHOP);
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
    // One call at a time, stopped once the first is done: every other call is left unstarted.
    expect(notStarted).toEqual(plan.calls.map((_, i) => i).slice(1));
    expect(result.outcomes.filter((o) => o.status === 'not-started').map((o) => o.index)).toEqual(notStarted);
    expect(events.filter((e) => e.type === 'start')).toHaveLength(plan.calls.length - notStarted.length);
  });
});

describe('runCalls and the stopper', () => {
  it('marks the stopper writing while the calls run: a stop reaches the client once they are done', async () => {
    const plan = planOf(SMALL_SHOP);
    const stop = new AbortController();
    const stopper = writeAwareStopper(stop.signal);
    let duringCalls: boolean | undefined;
    await runCalls(client, plan, {
      parallelism: 1,
      continueOnError: false,
      stopSignal: stop.signal,
      stopper,
      onEvent: (e) => {
        if (e.type !== 'done' || e.index !== 0) return;
        stop.abort();
        duringCalls = stopper.signal.aborted;
      },
    });
    expect(duringCalls).toBe(false);
    expect(stopper.signal.aborted).toBe(true);
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
