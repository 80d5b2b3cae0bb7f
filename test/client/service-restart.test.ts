import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { type ClientEvent, createGuideClient, type GuideClient } from '../../src/client/index.js';
import type { GuideService } from '../../src/service/index.js';
import { FAST_RETRY, startService, tracked } from './helpers.js';

// A service that restarts refuses connections for a few seconds. A client it has answered before
// retries a refused connection within the call's time budget (reads, the confirming reads after a
// lost write, and writes: a refused connection sent nothing), not a count of attempts; a target
// that never answered is still reported after `maxAttempts` (see resilience.test.ts).

const RETRY = { ...FAST_RETRY, maxAttempts: 4 };
/** Refused attempts seen before the service comes back: more than `maxAttempts` counts. */
const REFUSALS = 10;

let dir: string | undefined;
let running: GuideService | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A service over a database file, its client (answered once), and a way to restart it on its port. */
async function restartable(): Promise<{
  client: GuideClient;
  events: ClientEvent[];
  /** Stops the service; starts it again on the same port once `REFUSALS` refusals were retried. */
  restartAfterRefusals(): Promise<void>;
}> {
  dir = await mkdtemp(join(tmpdir(), 'guidectl-restart-'));
  const db = join(dir, 'guide.db');
  const first = await startService({ db });
  running = first;
  const port = Number(new URL(first.url).port);
  const { appid, secret } = first.credentials;
  const events: ClientEvent[] = [];
  let onRefused: (() => void) | undefined;
  let refused = 0;
  const client = tracked(
    createGuideClient({
      baseUrl: first.url,
      auth: { appid, secret },
      retry: RETRY,
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'retry' && e.reason === 'the connection was refused' && ++refused === REFUSALS)
          onRefused?.();
      },
    }),
  );
  await client.getguidegrouplist();
  return {
    client,
    events,
    async restartAfterRefusals() {
      const back = new Promise<void>((resolve) => {
        onRefused = resolve;
      });
      await first.close();
      running = undefined;
      await back;
      running = await startService({ db, port, appid, secret });
    },
  };
}

describe('a service restarting', () => {
  test('a read is retried past maxAttempts while the connection is refused, and succeeds', async () => {
    const { client, restartAfterRefusals } = await restartable();
    const restart = restartAfterRefusals();
    await new Promise((r) => setImmediate(r));
    const read = client.getguidegrouplist();
    // Before the fix, the read gave up after maxAttempts, and the service never came back.
    await Promise.race([restart, read.catch(() => {})]);
    await expect(read).resolves.toMatchObject({ group_list: [] });
  });

  test('a group add (an append) refused meanwhile is sent once the service is back: one group', async () => {
    const { client, restartAfterRefusals } = await restartable();
    const restart = restartAfterRefusals();
    await new Promise((r) => setImmediate(r));
    const add = client.newguidegroup({ group_name: 'North' });
    await Promise.race([restart, add.catch(() => {})]);
    await expect(add).resolves.toHaveProperty('group_id');
    const list = await client.getguidegrouplist();
    expect(list.group_list.map((g) => g.name)).toEqual(['North']);
  });
});
