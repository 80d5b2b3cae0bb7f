import { afterEach, describe, expect, test } from 'vitest';
import { createGuideClient, type GuideClient } from '../../src/client/index.js';
import { startCapacityGate } from '../helpers/capacity-gate.js';
import { guideBody, startCheckedService } from '../helpers/service.js';
import { FAST_RETRY } from './helpers.js';

// Adaptive concurrency against the project's service over HTTP, behind a gate that refuses calls
// beyond a capacity (-1) or past a per-minute limit (45011). Asserted: what the calls were
// answered and where the limit went, never how long anything took.

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function serviceBehindGate(faults: string, capacity?: number) {
  const checked = await startCheckedService({ faults });
  closing.push(checked.close);
  const gate = await startCapacityGate(checked.service.url, capacity === undefined ? {} : { capacity });
  closing.push(gate.close);
  return { service: checked.service, gate };
}

function adaptiveClient(url: string, auth: { appid: string; secret: string }, extra = {}): GuideClient {
  const client = createGuideClient({
    baseUrl: url,
    auth,
    adaptive: true,
    parallelism: 8,
    retry: { ...FAST_RETRY, baseDelayMs: 20, maxDelayMs: 100, maxAttempts: 50 },
    ...extra,
  });
  closing.push(() => client.close());
  return client;
}

describe('adaptive concurrency over HTTP', () => {
  test('against a capacity of 16 (20 ms a call) every call succeeds, few are refused, the limit stays near 16', async () => {
    const { service, gate } = await serviceBehindGate('latency=20ms', 16);
    const client = adaptiveClient(gate.url, service.credentials);
    const calls = 1_200;
    await Promise.all(Array.from({ length: calls }, () => client.getguidegrouplist()));
    expect(gate.passed).toBe(calls);
    // Slow start overshoots once (8, 16, 32: the calls beyond 16 are refused); then few are.
    expect(gate.refused / calls).toBeLessThan(0.05);
    expect(client.concurrency.limit).toBeGreaterThanOrEqual(4);
    expect(client.concurrency.limit).toBeLessThanOrEqual(20);
    expect(client.concurrency.maxReached).toBeGreaterThan(8);
  }, 60_000);

  test('against an unlimited service the limit grows above 8, up to the most allowed', async () => {
    const { service, gate } = await serviceBehindGate('latency=20ms');
    const client = adaptiveClient(gate.url, service.credentials, { maxParallelism: 24 });
    await Promise.all(Array.from({ length: 600 }, () => client.getguidegrouplist()));
    expect(gate.refused).toBe(0);
    expect(client.concurrency.maxReached).toBeGreaterThan(8);
    expect(client.concurrency.maxReached).toBeLessThanOrEqual(24);
    expect(gate.peak).toBeGreaterThan(8);
    expect(gate.peak).toBeLessThanOrEqual(24);
  }, 60_000);

  test('without adapting, the limit stays at --parallelism', async () => {
    const { service, gate } = await serviceBehindGate('latency=20ms');
    const client = adaptiveClient(gate.url, service.credentials, { adaptive: false });
    await Promise.all(Array.from({ length: 200 }, () => client.getguidegrouplist()));
    expect(gate.peak).toBe(8);
    expect(client.concurrency).toEqual({ adaptive: false, start: 8, max: 8, limit: 8, maxReached: 8 });
  }, 60_000);

  test('the first 45011 pauses the operation until the minute turns; others go on meanwhile', async () => {
    const { service, gate } = await serviceBehindGate('');
    let now = Date.UTC(2026, 10, 20, 8, 0, 42);
    const turn = Date.UTC(2026, 10, 20, 8, 1, 1);
    const sleeps: number[] = [];
    let duringPause: unknown;
    let client: GuideClient | undefined;
    // Virtual time: a sleep moves the clock to its end (sleeps that overlap end together).
    const sleep = async (ms: number): Promise<void> => {
      sleeps.push(ms);
      const end = now + ms;
      if (end >= turn && gate.minuteQuota.size > 0) {
        // The minute turns at the end of this pause; meanwhile another operation is answered.
        gate.minuteQuota.clear();
        duringPause = await client?.getguidegrouplist();
      }
      now = Math.max(now, end);
    };
    client = adaptiveClient(gate.url, service.credentials, {
      parallelism: 4,
      clock: { now: () => now },
      sleep,
      random: () => 0.5,
    });
    gate.minuteQuota.add('addguideacct');
    const made = Array.from({ length: 20 }, (_, i) => client.call('addguideacct', guideBody(`paced_${i}`)));
    await Promise.all(made);
    // Only the calls in flight when the limit was met were refused; none retried into it.
    expect(gate.quotaRefused).toBeGreaterThanOrEqual(1);
    expect(gate.quotaRefused).toBeLessThanOrEqual(4);
    expect(sleeps).toContain(turn - Date.UTC(2026, 10, 20, 8, 0, 42));
    expect(duringPause).toMatchObject({ group_list: [] });
    expect(gate.passed).toBe(20 + 1);
  }, 60_000);
});
