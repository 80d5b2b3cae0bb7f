import { describe, expect, it } from 'vitest';
import type { ClientEvent } from '../../src/client/index.js';
import type { DeclaredEnvironment } from '../../src/core/environments.js';
import { targetRequestOf } from '../../src/index.js';

const FLAGS = { parallelism: 8, verbose: false } as const;
const RETRY: ClientEvent = {
  type: 'retry',
  callId: 1,
  operation: 'getguideacctlist',
  attempt: 1,
  delayMs: 10,
  reason: 'timeout',
};
const STAGING: DeclaredEnvironment = { name: 'staging', source: { file: 'guides.yaml', line: 2, column: 3 } };

describe('targetRequestOf', () => {
  it('asks for the target the flags name, with the timing flags in milliseconds', () => {
    const signal = new AbortController().signal;
    const { request } = targetRequestOf(
      { ...FLAGS, baseUrl: 'http://127.0.0.1:1', timeout: 1.5, settleTimeout: 30, readRetry: 0.001 },
      { signal },
    );
    expect(request.flags).toEqual({ baseUrl: 'http://127.0.0.1:1' });
    expect(request).not.toHaveProperty('environment');
    expect(request).not.toHaveProperty('lock');
    expect(request).not.toHaveProperty('beforeOpen');
    const { onEvent, ...client } = request.client;
    expect(client).toEqual({
      parallelism: 8,
      timeoutMs: 1500,
      settleMs: 30_000,
      retry: { readBudgetMs: 1 },
      signal,
      readBeforeAppends: false,
      httpEvents: false,
    });
    expect(onEvent).toBeTypeOf('function');
  });

  it('leaves the timings the flags do not give to the client, and passes the settings on', () => {
    const beforeOpen = (): void => {};
    const lock = {
      command: 'guidectl apply',
      timeoutSeconds: 0,
      self: { pid: 1, host: 'h', isRunning: () => true, now: () => new Date(0) },
    };
    const { request } = targetRequestOf(
      { ...FLAGS, localDb: 'x.db' },
      {
        signal: new AbortController().signal,
        readBeforeAppends: true,
        environment: STAGING,
        lock,
        beforeOpen,
      },
    );
    expect(request.flags).toEqual({ localDb: 'x.db' });
    expect(request.environment).toBe(STAGING);
    expect(request.lock).toBe(lock);
    expect(request.beforeOpen).toBe(beforeOpen);
    expect(request.client.readBeforeAppends).toBe(true);
    expect(request.client).not.toHaveProperty('timeoutMs');
    expect(request.client).not.toHaveProperty('settleMs');
    expect(request.client).not.toHaveProperty('retry');
  });

  it('tells the log only with --verbose, and only then asks for the exchanges', () => {
    for (const verbose of [false, true]) {
      const logged: ClientEvent[] = [];
      const { request } = targetRequestOf(
        { ...FLAGS, verbose },
        { signal: new AbortController().signal, log: (event) => logged.push(event) },
      );
      expect(request.client.httpEvents).toBe(verbose);
      request.client.onEvent?.(RETRY);
      expect(logged).toEqual(verbose ? [RETRY] : []);
    }
  });

  it("hands the client's events to every listener until it stops listening", () => {
    const { request, events } = targetRequestOf(FLAGS, { signal: new AbortController().signal });
    const first: ClientEvent[] = [];
    const second: ClientEvent[] = [];
    const stopFirst = events.listen((event) => first.push(event));
    events.listen((event) => second.push(event));
    request.client.onEvent?.(RETRY);
    stopFirst();
    request.client.onEvent?.(RETRY);
    expect(first).toEqual([RETRY]);
    expect(second).toEqual([RETRY, RETRY]);
  });
});
