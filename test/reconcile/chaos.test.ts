import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuideClient } from '../../src/client/index.js';
import { type GuideService, parseFaults } from '../../src/service/index.js';
import { chaosYaml, findDuplicates } from '../helpers/chaos.js';
import { runCli, type Workspace, workspace } from '../helpers/cli.js';
import { startCheckedService } from '../helpers/service.js';

// Apply against a service that fails, loses answers and is slow, as the real API can be: it
// converges, and nothing is created or appended twice. (`npm run bench -- chaos` runs the full
// size: 500 guides in 10 groups, 5 seeds.)

let ws: Workspace;

beforeAll(async () => {
  ws = await workspace();
});
afterAll(() => ws.remove());

/** A fresh service of its own for one test, so that the seeded runs can go at once. */
async function withService(faults: string, fn: (service: GuideService) => Promise<void>): Promise<void> {
  const { service, close } = await startCheckedService({ faults });
  try {
    await fn(service);
  } finally {
    await close();
  }
}

/** Runs apply until it converges (exit 0) or `most` runs were made; returns the runs made. */
async function applyUntilConverged(
  service: GuideService,
  file: string,
  most: number,
): Promise<{ runs: number; last: string }> {
  let last = '';
  for (let run = 1; run <= most; run++) {
    const result = await runCli(
      // --no-adapt: these faults answer 45011 at random, not past a per-minute limit; adapting would
      // pause each operation so refused until the minute turns, as the real API asks.
      ['apply', file, '--auto-approve', '--parallelism', '16', '--no-adapt', '--base-url', service.url],
      {
        env: { WECHAT_APPID: service.credentials.appid, WECHAT_SECRET: service.credentials.secret },
        cwd: ws.dir,
      },
    );
    last = `${result.stdout.slice(-2_000)}\n${result.stderr.slice(-2_000)}`;
    if (result.code === 0) return { runs: run, last };
  }
  return { runs: most + 1, last };
}

async function checkAccount(service: GuideService, guides: number, groups: number): Promise<void> {
  service.setFaults(parseFaults(''));
  const client = createGuideClient({ baseUrl: service.url, auth: service.credentials });
  try {
    expect(await findDuplicates(client, guides, groups)).toEqual([]);
  } finally {
    await client.close();
  }
}

describe('apply under injected faults', () => {
  it('lost answers (20%) are settled by a read of the one resource, and apply goes on: one run', async () => {
    const file = await ws.write('lost.yaml', chaosYaml(30, 3));
    await withService('lost_answer=0.2,seed=4', async (service) => {
      const { runs, last } = await applyUntilConverged(service, file, 1);
      expect(runs, last).toBe(1);
      expect(last).toMatch(/Converged: the account matches the files/);
      await checkAccount(service, 30, 3);
    });
  }, 60_000);

  // Each run waits mostly on backoff, not on the processor, so the seeds go at once.
  for (const seed of [1, 2, 3]) {
    it.concurrent(`40 guides in 3 groups under system_error=0.3,minute_quota=0.05,lost_answer=0.05 (seed ${seed}): at most two applies, nothing doubled`, async () => {
      const file = await ws.write(`chaos-${seed}.yaml`, chaosYaml(40, 3));
      const faults = `system_error=0.3,minute_quota=0.05,lost_answer=0.05,latency=5ms,seed=${seed}`;
      await withService(faults, async (service) => {
        const { runs, last } = await applyUntilConverged(service, file, 2);
        expect(runs, last).toBeLessThanOrEqual(2);
        await checkAccount(service, 40, 3);
      });
    }, 90_000);
  }
});
