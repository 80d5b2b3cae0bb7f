import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Workspace, workspace } from '../helpers/cli.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { fetchToken, rawRequest } from '../helpers/service.js';
import { openSlowBodies } from '../helpers/slow-bodies.js';

// `guidectl serve` as a user runs it, under 500 requests whose bodies never end, each sending
// about 1 MB at once and then a byte at a time: it keeps answering, and its memory stays bounded
// (the bodies held at once are capped), until the body timeout closes what is left.

let ws: Workspace;
let serve: ServeProcess;
beforeAll(async () => {
  ws = await workspace();
  serve = await startServeProcess(['--db', ':memory:', '--body-timeout', '3'], { cwd: ws.dir });
});
afterAll(async () => {
  await serve?.stop('SIGKILL');
  await ws?.remove();
});

/** The serve's resident memory now and at its peak, in MB, from /proc/PID/status. */
async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

describe('serve under 500 slow request bodies', () => {
  it.runIf(process.platform === 'linux')(
    'keeps answering a canary and stays under 200 MB; the body timeout then closes every slow body',
    async () => {
      const pid = serve.spawned.child.pid ?? 0;
      const token = await fetchToken(serve.url, serve.appid, serve.secret);
      const canary = async (): Promise<unknown> =>
        (
          await rawRequest(`${serve.url}/cgi-bin/guide/getguidegrouplist?access_token=${token}`, {
            method: 'POST',
            body: '{}',
          })
        ).json['errcode'];
      const slow = await openSlowBodies(serve.url, token, 500, { first: 1_000_000, everyMs: 200 });
      try {
        // Past the memory budget, bodies are refused (-1) and their connections closed.
        await vi.waitFor(() => expect(slow.open()).toBeLessThan(100), { timeout: 30_000, interval: 100 });
        expect(await canary()).toBe(0);
        const memory = await memoryOf(pid);
        expect(memory.rss, `RSS ${memory.rss} MB`).toBeLessThan(200);
        // The rest are closed by the body timeout (--body-timeout 3), answered -1 with the reason.
        await Promise.all(slow.bodies.map((b) => b.closed));
        const busy = slow.bodies.filter((b) => b.answer().includes('too many request bodies'));
        const late = slow.bodies.filter((b) => b.answer().includes('did not arrive within 3 s'));
        expect(busy.length + late.length).toBe(500);
        expect(await canary()).toBe(0);
      } finally {
        slow.stop();
      }
    },
    60_000,
  );
});
