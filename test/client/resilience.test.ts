import { setTimeout as delay } from 'node:timers/promises';
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  CallAbortedError,
  CallOutcomeUnknownError,
  type ClientEvent,
  CredentialsError,
  collect,
  createGuideClient,
  type GuideClientOptions,
  QuotaExhaustedError,
  TokenRejectedError,
  TransportError,
} from '../../src/client/index.js';
import { type GuideService, parseFaults } from '../../src/service/index.js';
import { holdingGate } from '../helpers/holding-gate.js';
import { frozenClock, rawRequest } from '../helpers/service.js';
import {
  clientOf,
  closeClients,
  FAST_RETRY,
  guide,
  sim,
  startFakeApi,
  startService,
  successes,
  tracked,
} from './helpers.js';

// Recovery from what goes wrong on the wire, checked against the service's own record of the
// calls it answered: nothing lost, nothing applied twice.

const NO_FAULTS = parseFaults('');

let service: GuideService;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await service.close();
});
afterEach(async () => {
  await closeClients();
  service.setFaults(NO_FAULTS);
  await sim(service, 'reset');
  service.resetCalls();
});

function countByErrcode(operation: string): Map<number, number> {
  const counts = new Map<number, number>();
  for (const c of service.calls()) {
    if (c.operation === operation) counts.set(c.errcode, (counts.get(c.errcode) ?? 0) + 1);
  }
  return counts;
}

describe('transient failures are retried; no call lost or doubled', () => {
  test('system_error=0.2: 100 adds, exactly 100 guides, exactly 100 successful adds', async () => {
    const { client, events } = clientOf(service, { parallelism: 16 });
    service.setFaults(parseFaults('system_error=0.2,seed=3'));
    await Promise.all(Array.from({ length: 100 }, (_, i) => client.addguideacct(guide(i))));
    // Reads under faults too.
    const listed = await collect(client.iterateGuideAcctList());
    service.setFaults(NO_FAULTS);
    expect(listed).toHaveLength(100);
    const adds = countByErrcode('addguideacct');
    expect(adds.get(0)).toBe(100);
    expect(adds.get(-1) ?? 0).toBeGreaterThan(5);
    expect([...adds.keys()].sort()).toEqual([-1, 0]);
    expect(successes(service, 'addguideacct')).toBe(100);
    expect(
      events.filter((e) => e.type === 'retry' && e.operation === 'addguideacct' && e.errcode === -1),
    ).toHaveLength(adds.get(-1) ?? 0);
    await client.close();
  });

  test('minute_quota=0.1: updates and reads all succeed, each applied once', async () => {
    const { client, events } = clientOf(service, { parallelism: 16 });
    await Promise.all(Array.from({ length: 60 }, (_, i) => client.addguideacct(guide(i))));
    service.resetCalls();
    service.setFaults(parseFaults('minute_quota=0.1,system_error=0.05,seed=11'));
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        client.updateguideacct({ guide_account: guide(i).guide_account, guide_nickname: `Renamed ${i}` }),
      ),
    );
    const read = await Promise.all(
      Array.from({ length: 60 }, (_, i) => client.getguideacct({ guide_account: guide(i).guide_account })),
    );
    service.setFaults(NO_FAULTS);
    expect(read.map((g) => g.guide_nickname)).toEqual(Array.from({ length: 60 }, (_, i) => `Renamed ${i}`));
    const updates = countByErrcode('updateguideacct');
    expect(updates.get(0)).toBe(60);
    expect(updates.get(45011) ?? 0).toBeGreaterThan(0);
    expect(events.some((e) => e.type === 'retry' && e.errcode === 45011)).toBe(true);
    await client.close();
  });

  test('lost_answer=0.3: 40 adds all reported done, each guide added exactly once', async () => {
    // Every attempt, resends included, loses its answer 3 times in 10: allow long runs of bad luck.
    const { client, events } = clientOf(service, {
      parallelism: 8,
      retry: { ...FAST_RETRY, maxAttempts: 20 },
    });
    service.setFaults(parseFaults('lost_answer=0.3,seed=5'));
    await Promise.all(Array.from({ length: 40 }, (_, i) => client.addguideacct(guide(i))));
    service.setFaults(NO_FAULTS);
    expect((await client.getguideacctlist({ page: 0, num: 100 })).total_num).toBe(40);
    expect(successes(service, 'addguideacct')).toBe(40);
    const confirmed = events.filter((e) => e.type === 'confirm' && e.outcome === 'applied');
    expect(confirmed.length).toBeGreaterThan(0);
    await client.close();
  });

  test('the retries are bounded by time: a service that is always busy fails the call with the attempts', async () => {
    // Reads and answers without effect are not limited by a count (maxAttempts 3), only by time:
    // the time of the client's clock, on which each wait between attempts takes 10 ms, so that
    // about 7 attempts fit in 60 ms however slowly the machine answers.
    let now = 0;
    const { client } = clientOf(service, {
      retry: { ...FAST_RETRY, maxAttempts: 3, readBudgetMs: 60, budgetMs: 60 },
      readBeforeAppends: false,
      clock: { now: () => now },
      sleep: async () => {
        now += 10;
      },
    });
    service.setFaults(parseFaults('system_error=1'));
    for (const [operation, call] of [
      ['getguidegrouplist', () => client.getguidegrouplist()],
      ['newguidegroup', () => client.newguidegroup({ group_name: 'Never' })],
    ] as const) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'GUIDE_API_ERROR', errcode: -1, kind: 'busy' });
      const attempts = (error as { attempts: number }).attempts;
      expect(attempts).toBeGreaterThan(3);
      expect((error as Error).message).toMatch(
        new RegExp(`^${operation} failed: -1 — system busy \\(gave up after ${attempts} attempts`),
      );
      expect(service.calls().filter((c) => c.operation === operation)).toHaveLength(attempts);
    }
    await client.close();
  });

  test('reads are bounded by time, not a count: 100 pages under 70% busy answers, none given up', async () => {
    const { client } = clientOf(service, { parallelism: 16 });
    await Promise.all(Array.from({ length: 20 }, (_, i) => client.addguideacct(guide(i))));
    service.setFaults(parseFaults('system_error=0.6,minute_quota=0.1,seed=9'));
    // A count of 8 attempts (FAST_RETRY) would give up about one read in 17 at this rate.
    const pages = await Promise.all(
      Array.from({ length: 100 }, (_, i) => client.getguideacctlist({ page: i % 4, num: 5 })),
    );
    service.setFaults(NO_FAULTS);
    expect(pages.map((p) => p.list.length)).toEqual(Array.from({ length: 100 }, () => 5));
    const busy = service.calls().filter((c) => c.operation === 'getguideacctlist' && c.errcode !== 0);
    expect(busy.length).toBeGreaterThan(100);
    await client.close();
  });
});

describe('a write whose answer was lost is confirmed, not failed, and never applied twice', () => {
  /** Loses the answer of the next guide call only: the fault is lifted as soon as the loss is seen. */
  function loseNextAnswer(): (e: ClientEvent) => void {
    service.setFaults(parseFaults('lost_answer=1'));
    return (e) => {
      if (e.type === 'http' && e.status === undefined) service.setFaults(NO_FAULTS);
    };
  }

  test('addguideacct: the resend answers 9300803, a read confirms it, the add counts as done', async () => {
    const events: ClientEvent[] = [];
    const lift = loseNextAnswer();
    const { client } = clientOf(service, {
      onEvent: (e) => {
        events.push(e);
        lift(e);
      },
    });
    await expect(client.addguideacct(guide(7))).resolves.toBeUndefined();
    expect([...countByErrcode('addguideacct')]).toEqual([
      [0, 1],
      [9300803, 1],
    ]);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'confirm', operation: 'addguideacct', outcome: 'applied' }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'call-end',
        operation: 'addguideacct',
        ok: true,
        confirmed: true,
        attempt: 2,
      }),
    );
    await client.close();
  });

  test('addguideacct: 9300803 for a different guide of that account stays an error', async () => {
    const { client: plain } = clientOf(service);
    await plain.addguideacct({ ...guide(8), guide_nickname: 'Someone else' });
    const lift = loseNextAnswer();
    // The lost attempt was itself refused (already a guide); the read shows another nickname.
    const { client } = clientOf(service, { onEvent: lift });
    await expect(client.addguideacct(guide(8))).rejects.toMatchObject({ errcode: 9300803 });
    await client.close();
    await plain.close();
  });

  test('newguidegroup: confirmed by a read, with the id of the one group created', async () => {
    const { client: plain } = clientOf(service);
    const existing = await plain.newguidegroup({ group_name: 'Same name' });
    const lift = loseNextAnswer();
    const { client } = clientOf(service, { onEvent: lift });
    const created = await client.newguidegroup({ group_name: 'Same name' });
    const groups = (await plain.getguidegrouplist()).group_list.filter((g) => g.name === 'Same name');
    expect(groups.map((g) => g.id).sort()).toEqual([existing.group_id, created.group_id].sort());
    expect(successes(service, 'newguidegroup')).toBe(2);
    await client.close();
    await plain.close();
  });

  test('setguideconfig quick-reply append: confirmed, not appended twice', async () => {
    const { client: plain } = clientOf(service);
    await plain.addguideacct(guide(9));
    const key = { guide_account: guide(9).guide_account };
    await plain.setguideconfig({ ...key, is_delete: false, guide_fast_reply_list: [{ content: 'first' }] });
    const lift = loseNextAnswer();
    const { client } = clientOf(service, { onEvent: lift });
    await client.setguideconfig({ ...key, is_delete: false, guide_fast_reply_list: [{ content: 'second' }] });
    const replies = (await plain.getguideconfig(key)).guide_fast_reply_list.map((r) => r.content);
    expect(replies).toEqual(['first', 'second']);
    await client.close();
    await plain.close();
  });

  test('with readBeforeAppends off, an append reads nothing first and a lost answer is an unknown outcome', async () => {
    const { client: plain } = clientOf(service);
    await plain.addguideacct(guide(12));
    const key = { guide_account: guide(12).guide_account };
    service.resetCalls();
    const { client: quiet } = clientOf(service, { readBeforeAppends: false });
    await quiet.setguideconfig({ ...key, is_delete: false, guide_fast_reply_list: [{ content: 'one' }] });
    expect(service.calls().map((c) => c.operation)).toEqual(['setguideconfig']);
    const lift = loseNextAnswer();
    const { client } = clientOf(service, { readBeforeAppends: false, onEvent: lift });
    const outcome = client.newguidegroup({ group_name: 'Lost and unread' });
    await expect(outcome).rejects.toBeInstanceOf(CallOutcomeUnknownError);
    await expect(outcome).rejects.toThrow(/no state was read before it/);
    // Not resent: the group exists exactly once.
    expect(successes(service, 'newguidegroup')).toBe(1);
    await client.close();
    await quiet.close();
    await plain.close();
  });

  test('addguidemassendjob: confirmed with the task id, one task only', async () => {
    const { client: plain } = clientOf(service);
    await plain.addguideacct(guide(10));
    const key = { guide_account: guide(10).guide_account };
    await sim(service, 'follow', { openid: 'oBuyer10' });
    const { qrcode_url } = await plain.guidecreateqrcode(key);
    await sim(service, 'scan', { openid: 'oBuyer10', qrcode_url });
    const now = Number((await sim(service, 'clock'))['now']);
    const lift = loseNextAnswer();
    const { client } = clientOf(service, { onEvent: lift });
    const added = await client.addguidemassendjob({
      ...key,
      task_name: 'Flash',
      push_time: now + 600,
      openid: ['oBuyer10'],
      material: [{ type: 1, word: 'Flash sale' }],
    });
    const tasks = await collect(plain.iterateGuideMassendJobList(key));
    expect(tasks.map((t) => t.task_id)).toEqual([added.task_result[0]?.task_id]);
    await client.close();
    await plain.close();
  });

  test('idempotent writes and deletes: resent, and a "not found" after the loss counts as done', async () => {
    const { client: plain } = clientOf(service);
    await plain.addguideacct(guide(11));
    const account = guide(11).guide_account;
    const { group_id } = await plain.newguidegroup({ group_name: 'G' });
    const lost = async (call: (c: typeof plain) => Promise<unknown>): Promise<void> => {
      const lift = loseNextAnswer();
      const { client } = clientOf(service, { onEvent: lift });
      await call(client);
      await client.close();
    };
    await lost((c) => c.addguide2guidegroup({ group_id, guide_account: account }));
    expect((await plain.getgroupbyguide({ guide_account: account })).group_id_list).toEqual([group_id]);
    await lost((c) => c.updateguideacct({ guide_account: account, guide_nickname: 'New name' }));
    await lost((c) => c.delguide2guidegroup({ group_id, guide_account: account }));
    expect((await plain.getgroupbyguide({ guide_account: account })).group_id_list).toEqual([]);
    await lost((c) => c.delguidegroup({ group_id }));
    await lost((c) => c.delguideacct({ guide_account: account }));
    expect((await plain.getguideacctlist({ page: 0, num: 10 })).total_num).toBe(0);
    // Each applied once: the resend was refused (already done) and a read confirmed it...
    for (const op of ['addguide2guidegroup', 'delguide2guidegroup', 'delguidegroup', 'delguideacct']) {
      expect(successes(service, op)).toBe(1);
      expect(service.calls().filter((c) => c.operation === op && c.errcode !== 0)).toHaveLength(1);
    }
    // ...while the idempotent update was simply sent again, setting the same values twice.
    expect(successes(service, 'updateguideacct')).toBe(2);
    await plain.close();
  });

  test('a broken connection before an append took effect: the read shows nothing, the append is resent', async () => {
    let groups: Array<{ id: number; name: string; create_time: number; update_time: number }> = [];
    let attempts = 0;
    const api = await startFakeApi((path, body) => {
      if (path.startsWith('/cgi-bin/stable_token'))
        return { body: { access_token: 'fake-token-append', expires_in: 7200 } };
      if (path.startsWith('/cgi-bin/guide/getguidegrouplist'))
        return { body: { errcode: 0, group_list: groups } };
      attempts += 1;
      if (attempts === 1) return 'destroy'; // dropped before it was applied
      const { group_name } = JSON.parse(body) as { group_name: string };
      groups = [...groups, { id: 42, name: group_name, create_time: 1, update_time: 1 }];
      return { body: { errcode: 0, errmsg: 'ok', group_id: 42 } };
    });
    const events: ClientEvent[] = [];
    const client = tracked(
      createGuideClient({
        baseUrl: api.url,
        auth: { appid: 'wxfake', secret: 'fake-secret' },
        retry: FAST_RETRY,
        // Nothing lands late here: a short settle window before the resend.
        settleWindowMs: 100,
        onEvent: (e) => events.push(e),
      }),
    );
    expect(await client.newguidegroup({ group_name: 'Once' })).toEqual({ group_id: '42' });
    expect(attempts).toBe(2);
    expect(groups).toHaveLength(1);
    expect(events).toContainEqual(expect.objectContaining({ type: 'confirm', outcome: 'not-applied' }));
    await api.close();
  });

  test('a timed-out append whose effect cannot be seen yet fails as outcome unknown', async () => {
    // The snapshot read is answered; the append never is, so it times out; from then on the API
    // breaks every connection, so no read can tell whether the append took effect.
    let appendSent = false;
    const api = await startFakeApi((path) => {
      if (path.startsWith('/cgi-bin/stable_token'))
        return { body: { access_token: 'fake-token-timeout', expires_in: 7200 } };
      if (path.startsWith('/cgi-bin/guide/newguidegroup')) {
        appendSent = true;
        return 'hold';
      }
      return appendSent ? 'destroy' : { body: { errcode: 0, errmsg: 'ok', group_list: [] } };
    });
    const client = tracked(
      createGuideClient({
        baseUrl: api.url,
        auth: { appid: 'wxfake', secret: 'fake-secret' },
        // A slow machine may time out an answered read too: it is retried.
        timeoutMs: 300,
        // The held append is waited for 100 ms more, then given up.
        settleMs: 100,
        retry: FAST_RETRY,
      }),
    );
    const error = await client.newguidegroup({ group_name: 'Slow' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallOutcomeUnknownError);
    expect(error).toMatchObject({ code: 'GUIDE_OUTCOME_UNKNOWN', operation: 'newguidegroup' });
    expect((error as Error).message).toMatch(
      /^newguidegroup failed: the outcome is unknown: no answer within 0\.4 s, even after waiting for it; the server may still apply it.*may have taken effect/,
    );
    expect(client.abandonedWrites).toBe(1);
    // The append was sent once: an append whose answer was lost is never resent blindly.
    expect(api.requests.filter((p) => p.startsWith('/cgi-bin/guide/newguidegroup'))).toHaveLength(1);
    await client.close();
    await api.close();
  });

  test('a read that times out is retried within its time budget, then fails as a transport timeout', async () => {
    // The budget is read on the client's clock, and each wait between attempts moves it 150 ms:
    // attempts at 0, 150, 300 and 450 ms, and the fourth is past the 400 ms budget, whatever the
    // real time the timeouts took.
    let now = 0;
    const api = await startFakeApi(() => 'hold');
    const events: ClientEvent[] = [];
    const client = tracked(
      createGuideClient({
        baseUrl: api.url,
        // A fixed token: no token request, whose own timeout could spend the clock.
        auth: { accessToken: 'fake-token-timeout' },
        timeoutMs: 50,
        clock: { now: () => now },
        sleep: async () => {
          now += 150;
        },
        onEvent: (e) => events.push(e),
        // Not bounded by a count (maxAttempts 2) but by time.
        retry: { ...FAST_RETRY, maxAttempts: 2, readBudgetMs: 400 },
      }),
    );
    const error = await client.getguidegrouplist().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ code: 'GUIDE_TRANSPORT', kind: 'timeout', attempts: 4 });
    const retries = events.filter((e) => e.type === 'retry' && e.operation === 'getguidegrouplist');
    expect(retries.map((e) => e.type === 'retry' && e.reason)).toEqual([
      'no answer in time',
      'no answer in time',
      'no answer in time',
    ]);
    await client.close();
    await api.close();
  });
});

describe('a write held by the server past the timeout', () => {
  /** Sends made by the client, per operation, from its call-end events. */
  function sends(events: readonly ClientEvent[], operation: string): number {
    return events.reduce(
      (n, e) => n + (e.type === 'call-end' && e.operation === operation ? e.attempt : 0),
      0,
    );
  }

  /**
   * A client through a gate that holds its first `operation` call unanswered: past the client's
   * timeout, whatever the machine's speed. With `answerWhenHeld`, the gate answers it (late) once
   * the client says it waits for it (`held`); `answered` is then that answer handed back.
   */
  async function heldClient(
    operation: string,
    options: Partial<GuideClientOptions>,
    answerWhenHeld: boolean,
  ) {
    const gate = await holdingGate(service.url, operation, 0, { most: 1 });
    gates.push(gate);
    const events: ClientEvent[] = [];
    let answered: Promise<unknown> = Promise.resolve();
    const { client } = clientOf(service, {
      baseUrl: gate.url,
      ...options,
      onEvent: (e) => {
        events.push(e);
        if (answerWhenHeld && e.type === 'held') answered = gate.answer();
      },
    });
    return { client, events, gate, answered: () => answered };
  }
  const gates: { close(): void }[] = [];
  afterEach(() => {
    for (const gate of gates.splice(0)) gate.close();
  });

  test('is waited for, not resent: a delete-all never lands after the append that follows it', async () => {
    const { client: plain } = clientOf(service);
    await plain.addguideacct(guide(13));
    const key = { guide_account: guide(13).guide_account };
    await plain.setguideconfig({ ...key, is_delete: false, guide_fast_reply_list: [{ content: 'old' }] });
    service.resetCalls();
    const { client, events, answered } = await heldClient('setguideconfig', { timeoutMs: 300 }, true);
    // What apply does for a guide whose quick replies are replaced: delete all, then append.
    await client.setguideconfig({ ...key, is_delete: true, guide_fast_reply_list: [{ content: 'old' }] });
    await client.setguideconfig({ ...key, is_delete: false, guide_fast_reply_list: [{ content: 'new' }] });
    // Every request the client sent has been handled, the held one included: nothing can land later.
    await answered();
    expect(service.calls().filter((c) => c.operation === 'setguideconfig')).toHaveLength(
      sends(events, 'setguideconfig'),
    );
    const replies = (await plain.getguideconfig(key)).guide_fast_reply_list.map((r) => r.content);
    expect(replies).toEqual(['new']);
    expect(events).toContainEqual(expect.objectContaining({ type: 'held', operation: 'setguideconfig' }));
    // The held attempt's late answer settled the delete: it was sent once.
    expect(sends(events, 'setguideconfig')).toBe(2);
    expect(client.abandonedWrites).toBe(0);
  });

  test('held past the settling time too: outcome unknown, never resent, and counted as abandoned', async () => {
    const { client: plain } = clientOf(service);
    await plain.addguideacct(guide(14));
    const key = { guide_account: guide(14).guide_account };
    service.resetCalls();
    const held = await heldClient('setguideconfig', { timeoutMs: 150, settleMs: 100 }, false);
    const { client, events } = held;
    const error = await client
      .setguideconfig({ ...key, is_delete: true, guide_fast_reply_list: [{ content: 'x' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallOutcomeUnknownError);
    expect((error as Error).message).toMatch(
      /^setguideconfig failed: the outcome is unknown: no answer within 0\.3 s, even after waiting for it; the server may still apply it/,
    );
    expect(client.abandonedWrites).toBe(1);
    expect(sends(events, 'setguideconfig')).toBe(1);
    // Let the held write land before the account is reset for the next test.
    await held.gate.release();
    expect(service.calls().filter((c) => c.operation === 'setguideconfig')).toHaveLength(1);
  });

  test('a held append is settled by its late answer: one group, with its id', async () => {
    const { client, events, answered } = await heldClient(
      'newguidegroup',
      { timeoutMs: 300, readBeforeAppends: false },
      true,
    );
    const created = await client.newguidegroup({ group_name: 'Slow' });
    await answered();
    expect(service.calls().filter((c) => c.operation === 'newguidegroup')).toHaveLength(
      sends(events, 'newguidegroup'),
    );
    const groups = (await client.getguidegrouplist()).group_list;
    expect(groups.map((g) => [g.id, g.name])).toEqual([[created.group_id, 'Slow']]);
  });
});

describe('tokens', () => {
  test('a token the service expires mid-run is refreshed once and the call retried', async () => {
    // The service's time moves only by `advance`: tokens expire five times, whatever the real time.
    const short = await startService({ settings: { tokenTtl: 30 }, clock: frozenClock() });
    const { client, events } = clientOf(short, { parallelism: 8 });
    try {
      await client.addguideacct(guide(1));
      for (let round = 0; round < 5; round++) {
        short.clock.advance(31);
        const answers = await Promise.all(
          Array.from({ length: 12 }, () => client.getguideacct({ guide_account: guide(1).guide_account })),
        );
        expect(answers).toHaveLength(12);
      }
      const refreshes = events.filter((e) => e.type === 'token-refresh');
      expect(refreshes[0]).toMatchObject({ reason: 'initial', ok: true });
      const rejected = refreshes.filter((e) => e.reason === 'rejected');
      // One fetch per expiry, shared by the 12 calls in flight.
      expect(rejected).toHaveLength(5);
      expect(rejected.every((e) => e.ok && e.errcode === 42001)).toBe(true);
      expect(short.calls().filter((c) => c.errcode === 42001).length).toBeGreaterThanOrEqual(5);
      expect(short.calls().filter((c) => c.operation === 'getguideacct' && c.errcode === 0)).toHaveLength(60);
    } finally {
      await client.close();
      await short.close();
    }
  });

  test('a fixed token that is refused fails with what to do', async () => {
    const client = createGuideClient({
      baseUrl: service.url,
      auth: { accessToken: 'not-a-valid-token-xyz' },
    });
    const error = await client.getguidegrouplist().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRejectedError);
    expect(error).toMatchObject({ code: 'GUIDE_TOKEN_REJECTED', errcode: 40001 });
    expect((error as Error).message).toMatch(/WECHAT_ACCESS_TOKEN/);
    expect((error as Error).message).not.toContain('not-a-valid-token-xyz');
    await client.close();
  });

  test('wrong app credentials stop at once with a clear message', async () => {
    const secret = 'wrong-secret-0123456789';
    const client = createGuideClient({
      baseUrl: service.url,
      auth: { appid: service.credentials.appid, secret },
    });
    const error = await client.getguidegrouplist().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialsError);
    expect(error).toMatchObject({ code: 'GUIDE_CREDENTIALS', errcode: 40125, operation: 'stable_token' });
    expect((error as Error).message).toMatch(
      /^stable_token failed: 40125 — invalid app secret; check the app secret/,
    );
    expect(inspect(error)).not.toContain(secret);
    await client.close();
  });

  test('a stop while waiting to ask again for a throttled token is CallAbortedError, not an AbortError', async () => {
    // One wrong secret blocks the appid: the right one is then refused 45011, which is retried.
    const throttled = await startService({ tokenThrottle: { limit: 1, windowMs: 60_000 } });
    const { appid } = throttled.credentials;
    await rawRequest(`${throttled.url}/cgi-bin/stable_token`, {
      method: 'POST',
      body: JSON.stringify({ grant_type: 'client_credential', appid, secret: 'wrong', force_refresh: false }),
    });
    const stop = new AbortController();
    const { client } = clientOf(throttled, {
      signal: stop.signal,
      // Ctrl-C as the wait begins; the real sleep then rejects with the signal's AbortError.
      sleep: (ms, signal) => {
        stop.abort();
        return delay(ms, undefined, signal === undefined ? {} : { signal });
      },
    });
    try {
      const error = await client.getguidegrouplist().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CallAbortedError);
      expect(error).toMatchObject({ code: 'GUIDE_ABORTED', inFlight: false });
      expect(throttled.calls().filter((c) => c.operation.startsWith('getguide'))).toEqual([]);
    } finally {
      await client.close();
      await throttled.close();
    }
  });
});

describe('fast stop', () => {
  test('45009 (daily quota) stops at once, with no retry, and says what to do', async () => {
    const api = await startFakeApi((path) =>
      path.startsWith('/cgi-bin/stable_token')
        ? { body: { access_token: 'fake-token-45009', expires_in: 7200 } }
        : { body: { errcode: 45009, errmsg: 'reach max api daily quota limit rid: 6578-ab' } },
    );
    // The default retry policy: the error must say it made one attempt, and no retry was announced.
    const events: ClientEvent[] = [];
    const client = createGuideClient({
      baseUrl: api.url,
      auth: { appid: 'wxfake', secret: 'fake-secret' },
      onEvent: (e) => events.push(e),
    });
    const error = await client.addguideacct(guide(1)).catch((e: unknown) => e);
    expect(events.filter((e) => e.type === 'retry')).toEqual([]);
    expect(error).toBeInstanceOf(QuotaExhaustedError);
    expect(error).toMatchObject({
      code: 'GUIDE_QUOTA_EXHAUSTED',
      errcode: 45009,
      kind: 'daily-quota',
      attempts: 1,
    });
    expect((error as Error).message).toMatch(
      /^addguideacct failed: 45009 — daily quota reached; .*retrying today will not help/,
    );
    expect(api.requests.filter((r) => r.startsWith('/cgi-bin/guide/'))).toHaveLength(1);
    await client.close();
    await api.close();
  });

  test('48001 and 9300802 stop at once with what to do', async () => {
    let code = 48001;
    const api = await startFakeApi((path) =>
      path.startsWith('/cgi-bin/stable_token')
        ? { body: { access_token: 'fake-token-48001', expires_in: 7200 } }
        : {
            body: {
              errcode: code,
              errmsg: code === 48001 ? 'api unauthorized rid: 1-2' : 'guide feature not enabled',
            },
          },
    );
    const client = createGuideClient({ baseUrl: api.url, auth: { appid: 'wxfake', secret: 'fake-secret' } });
    await expect(client.getguidegrouplist()).rejects.toMatchObject({
      code: 'GUIDE_API_UNAUTHORIZED',
      message: expect.stringMatching(/48001 — API not authorized for this account; this account may not use/),
    });
    code = 9300802;
    await expect(client.getguidegrouplist()).rejects.toMatchObject({
      code: 'GUIDE_API_UNAUTHORIZED',
      message: expect.stringMatching(
        /9300802 — guide feature not enabled; enable the shopping-guide feature/,
      ),
    });
    expect(api.requests.filter((r) => r.startsWith('/cgi-bin/guide/'))).toHaveLength(2);
    await client.close();
    await api.close();
  });

  test('a refused connection is retried, then reported without the URL query', async () => {
    const api = await startFakeApi(() => ({ body: {} }));
    const url = api.url;
    await api.close();
    const client = createGuideClient({
      baseUrl: url,
      auth: { accessToken: 'PLANTED-refused-token-77' },
      retry: { ...FAST_RETRY, maxAttempts: 2 },
    });
    const error = await client.getguidegrouplist().catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'GUIDE_TRANSPORT',
      kind: 'refused',
      reason: 'ECONNREFUSED',
      sent: false,
    });
    expect((error as Error).message).toBe(
      `getguidegrouplist failed: cannot connect to ${url} (ECONNREFUSED) (gave up after 2 attempts in ${((error as TransportError).message.match(/in ([0-9.]+) s/) ?? [])[1]} s)`,
    );
    expect((error as Error).cause).toBeUndefined();
    expect(inspect(error)).not.toContain('PLANTED');
    await client.close();
  });
});

describe('events', () => {
  test('httpEvents: false leaves out the http events and keeps the others', async () => {
    const { client, events } = clientOf(service, { httpEvents: false });
    await client.getguidegrouplist();
    expect(events.map((e) => e.type)).toEqual(['call-start', 'token-refresh', 'call-end']);
    await client.close();
  });
});

describe('redaction', () => {
  test('a planted token never appears in an error or a verbose event', async () => {
    const planted = 'PLANTED-TOKEN-3f9c1e77d2';
    const events: ClientEvent[] = [];
    const client = createGuideClient({
      baseUrl: service.url,
      auth: { accessToken: planted },
      onEvent: (e) => events.push(e),
    });
    const errors = await Promise.all([
      client.getguidegrouplist().catch((e: unknown) => e),
      client.addguideacct(guide(1)).catch((e: unknown) => e),
      client.call('getguideacct', { guide_account: planted }).catch((e: unknown) => e),
    ]);
    for (const error of errors) {
      expect(error).toBeInstanceOf(Error);
      expect(inspect(error, { depth: 10 })).not.toContain(planted);
    }
    const http = events.filter((e) => e.type === 'http');
    expect(http.length).toBeGreaterThanOrEqual(3);
    expect(http.every((e) => e.url.endsWith('?access_token=REDACTED'))).toBe(true);
    expect(JSON.stringify(events)).not.toContain(planted);
    await client.close();
  });

  test('app secret and fetched tokens stay out of the verbose events', async () => {
    const { client, events } = clientOf(service);
    await client.getguidegrouplist();
    const token = await fetch(`${service.url}/cgi-bin/stable_token`, {
      method: 'POST',
      body: JSON.stringify({ grant_type: 'client_credential', ...service.credentials }),
    }).then((r) => r.json() as Promise<{ access_token: string }>);
    const text = JSON.stringify(events);
    expect(text).not.toContain(token.access_token);
    expect(text).not.toContain(service.credentials.secret);
    expect(events.filter((e) => e.type === 'http' && e.url.includes('stable_token'))).toEqual([
      expect.not.objectContaining({ requestBody: expect.anything() }),
    ]);
    await client.close();
  });
});

describe('failures below the API in words', () => {
  test('a lost answer is said in words in retry reasons and errors, with no undici code', async () => {
    const lossy = await startService({ faults: 'lost_answer=1,seed=1' });
    const events: ClientEvent[] = [];
    const client = tracked(
      createGuideClient({
        baseUrl: lossy.url,
        auth: lossy.credentials,
        // Reads are retried for a second (the token exchange comes first), a few times.
        retry: { ...FAST_RETRY, baseDelayMs: 100, maxDelayMs: 200, readBudgetMs: 1_000 },
        readBeforeAppends: false,
        onEvent: (e) => events.push(e),
      }),
    );
    try {
      const read = await client.getguidegrouplist().catch((e: unknown) => e);
      const append = await client.newguidegroup({ group_name: 'Lost' }).catch((e: unknown) => e);
      expect(read).toBeInstanceOf(TransportError);
      expect(append).toBeInstanceOf(CallOutcomeUnknownError);
      expect((append as Error).message).toMatch(
        /^newguidegroup failed: the outcome is unknown: the answer was lost \(the connection was (closed|reset) before the answer\); an append cannot be resent/,
      );
      const reasons = new Set(events.flatMap((e) => (e.type === 'retry' ? [e.reason] : [])));
      expect(
        reasons.size,
        `${(read as Error).message} ${JSON.stringify(events.map((e) => e.type))}`,
      ).toBeGreaterThan(0);
      for (const reason of reasons)
        expect(reason).toMatch(/^the connection was (closed|reset) before the answer$/);
      for (const text of [(read as Error).message, (append as Error).message])
        expect(text).not.toMatch(/UND_ERR|ECONNRESET/);
    } finally {
      await client.close();
      await lossy.close();
    }
  });
});
