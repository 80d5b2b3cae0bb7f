import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/wire/json.js';
import { type CliRun, useServiceTarget } from '../helpers/cli.js';

// The check after the writes (reading the account again) can fail; the report of the writes
// must be printed all the same — stdout once held only the plan after 1,410 successful writes.

// A fresh account (reset) and proxy for each test: the writes land anew each time.
const target = useServiceTarget({ reset: true });
let proxy: Server;
let proxyUrl: string;
let writes = 0;

/**
 * In front of the real service: passes every call through, until a write has been answered;
 * from then on it answers every read 48001 (not authorized), which the client does not retry.
 */
function readsFailAfterWrites(upstream: string): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const op = /\/cgi-bin\/guide\/([a-z]+)/.exec(req.url ?? '')?.[1];
      const reads = op?.startsWith('get') === true;
      if (op !== undefined && reads && writes > 0) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"errcode":48001,"errmsg":"api unauthorized"}');
        return;
      }
      fetch(`${upstream}${req.url ?? ''}`, {
        method: req.method ?? 'POST',
        headers: { 'content-type': 'application/json' },
        ...(req.method === 'GET' ? {} : { body: Buffer.concat(chunks) }),
      })
        .then(async (answer) => {
          const text = await answer.text();
          if (op !== undefined && !reads) writes++;
          res.writeHead(answer.status, { 'content-type': 'application/json' });
          res.end(text);
        })
        .catch(() => res.destroy());
    });
  });
}

beforeEach(async () => {
  proxy = readsFailAfterWrites(target.service.url);
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  writes = 0;
  await target.ws.write(
    'g.yaml',
    'version: 1\nguides:\n  - account: alice_wx\n    nickname: Alice\n    head_image_url: https://img.example/a\n' +
      '  - account: bob_wxx\n    nickname: Bob\n    head_image_url: https://img.example/b\n',
  );
});
afterEach(async () => {
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
});

function apply(...extra: string[]): Promise<CliRun> {
  return target.cli(['apply', 'g.yaml', '--auto-approve', ...extra], { baseUrl: proxyUrl });
}

describe('when the read after the writes fails', () => {
  it('still prints the report of the writes, says why the check failed, exits 1', async () => {
    const run = await apply();
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Apply: 2 calls done, 0 failed, 0 not started (of 2).');
    expect(run.stderr).toMatch(/the check after the writes failed: getguideacctlist failed: 48001/);
    expect(run.stderr).not.toContain('internal error');
  });

  it('still prints the --json report, with the outcomes and the reason', async () => {
    const run = await apply('--json');
    expect(run.code).toBe(1);
    const report = parseJson(run.stdout) as {
      outcomes: { status: string }[];
      converged: boolean | null;
      check_error: string;
    };
    expect(report.outcomes.map((o) => o.status)).toEqual(['done', 'done']);
    // Not checked (the check failed): null, as the summary of --json-stream says it.
    expect(report.converged).toBeNull();
    expect(report.check_error).toMatch(/getguideacctlist failed: 48001/);
  });
});
