import { afterEach, describe, expect, it } from 'vitest';
import { type CapacityGate, startCapacityGate } from '../helpers/capacity-gate.js';
import { chaosYaml } from '../helpers/chaos.js';
import { runCli, useWorkspace } from '../helpers/cli.js';
import { startCheckedService } from '../helpers/service.js';

// apply's concurrency as the flags set it, against the service behind a gate that counts the
// calls in service at once (and, with a capacity, refuses one more with -1). Asserted: how many
// calls were in flight and how they were answered, never how long they took.

const ws = useWorkspace();
const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function gated(
  capacity?: number,
  latency = '20ms',
): Promise<{ gate: CapacityGate; env: Record<string, string> }> {
  const checked = await startCheckedService({ faults: `latency=${latency}` });
  closing.push(checked.close);
  const gate = await startCapacityGate(checked.service.url, capacity === undefined ? {} : { capacity });
  closing.push(gate.close);
  const { appid, secret } = checked.service.credentials;
  return { gate, env: { WECHAT_APPID: appid, WECHAT_SECRET: secret } };
}

async function apply(gate: CapacityGate, env: Record<string, string>, flags: readonly string[]) {
  const file = await ws().write('guides.yaml', chaosYaml(120, 2));
  return runCli(['apply', file, '--auto-approve', '--base-url', gate.url, ...flags], { env, cwd: ws().dir });
}

describe('apply adapts its concurrency to the service', () => {
  it('by default it goes above --parallelism against a service that takes more, never above --max-parallelism', async () => {
    // A latency well above what a loaded machine adds, so that only the service's own answers can
    // look like a rising latency to the client, and it keeps growing.
    const { gate, env } = await gated(undefined, '100ms');
    const run = await apply(gate, env, ['--max-parallelism', '20']);
    expect(run.code, run.stderr).toBe(0);
    expect(gate.peak).toBeGreaterThan(8);
    expect(gate.peak).toBeLessThanOrEqual(20);
  }, 60_000);

  it('with --no-adapt it keeps --parallelism calls in flight', async () => {
    const { gate, env } = await gated();
    const run = await apply(gate, env, ['--parallelism', '8', '--no-adapt']);
    expect(run.code, run.stderr).toBe(0);
    expect(gate.peak).toBe(8);
  }, 60_000);

  it('against a capacity of 16 every call succeeds and few are refused for load', async () => {
    const { gate, env } = await gated(16);
    const run = await apply(gate, env, []);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Converged/);
    expect(gate.refused / gate.passed).toBeLessThan(0.1);
  }, 60_000);

  it('refuses --max-parallelism below --parallelism, and with --no-adapt, naming the fix', async () => {
    const below = await runCli(['plan', 'x.yaml', '--parallelism', '16', '--max-parallelism', '8'], {
      env: { WECHAT_ACCESS_TOKEN: 'unused-token-1234567890' },
      cwd: ws().dir,
    });
    expect(below.code).toBe(1);
    expect(below.stderr).toContain(
      '--max-parallelism 8 is below --parallelism 16, where adapting starts; raise --max-parallelism or lower --parallelism',
    );
    const both = await runCli(['export', '--max-parallelism', '8', '--no-adapt'], {
      env: { WECHAT_ACCESS_TOKEN: 'unused-token-1234567890' },
      cwd: ws().dir,
    });
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('--max-parallelism 8 bounds adapting, which --no-adapt turns off');
  });
});
