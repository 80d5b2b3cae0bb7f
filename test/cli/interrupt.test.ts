import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { guideEntries, useServiceTarget } from '../helpers/cli.js';
import { holdingGate, interruptedAt } from '../helpers/holding-gate.js';
import { spawnCli, untilOutput } from '../helpers/spawn.js';

// Ctrl-C as Terraform has it: the first starts nothing new and lets the calls in flight finish,
// then reports; the second abandons them. Reads stop at once and say "interrupted".

const target = useServiceTarget({ reset: true, faults: 'latency=100ms' });
const slow = () => target.service;
const ws = () => target.ws;
const env = target.env;
/** The writes the service was asked for in this test. */
const writes = () =>
  slow()
    .calls()
    .filter((c) => c.writes);

const STALL_READ = fileURLToPath(new URL('./fixtures/stall-read.cjs', import.meta.url));
const BLOCKING_READ = fileURLToPath(new URL('./fixtures/block-after-read.cjs', import.meta.url));
const HOLD_EXIT = fileURLToPath(new URL('./fixtures/hold-exit.cjs', import.meta.url));

/** Whether process `pid` runs and has a handler for SIGINT (its `SigCgt` mask; Linux). */
function catchesSigint(pid: number | undefined): boolean {
  try {
    const caught = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return caught !== undefined && (BigInt(`0x${caught}`) & 2n) !== 0n;
  } catch {
    return false;
  }
}

/** Lets a process held by hold-exit.cjs on `fifo` end; nothing when it has ended already. */
function release(fifo: string): void {
  try {
    const fd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    writeSync(fd, 'x');
    closeSync(fd);
  } catch {
    // ENXIO: no reader, the process is gone.
  }
}

/** `n` guides: `n` independent calls to an empty account. */
const guides = (n: number): string => `version: 1\nguides:\n${guideEntries(n)}`;

interface StreamEvent {
  type: string;
  index?: number;
  failed?: number;
  done?: number;
  not_started?: number;
  interrupted?: boolean;
  error?: string;
}

const events = (stdout: string): StreamEvent[] =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as StreamEvent);

// Each apply keeps exactly --parallelism calls in flight (--no-adapt), so that what is in flight
// at a Ctrl-C is known.
describe('Ctrl-C during apply', () => {
  it('first: starts nothing new, lets the calls in flight finish, reports them, exits 1', async () => {
    await ws().write('g.yaml', guides(8));
    const stop = new AbortController();
    let started = 0;
    const run = await target.cli(
      ['apply', 'g.yaml', '--auto-approve', '--json-stream', '--parallelism', '2', '--no-adapt'],
      {
        stop: stop.signal,
        // Ctrl-C as the third call starts: it (and maybe the second) is then in flight.
        onStdout: (line) => {
          if (line.includes('"call_start"') && ++started === 3) stop.abort();
        },
      },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /stopping: waiting for (1 call in flight; .* abandons it|2 calls in flight; .* abandons them)\n/,
    );
    const stream = events(run.stdout);
    const summary = stream.at(-1);
    expect(summary).toMatchObject({ type: 'summary', failed: 0, done: 3, not_started: 5, interrupted: true });
    // Every call started was let finish: none failed, none abandoned, and each took effect.
    expect(stream.filter((e) => e.type === 'call_done')).toHaveLength(3);
    expect(writes()).toHaveLength(3);
  });

  it('second: abandons the calls in flight; they are reported failed with an unknown outcome', async () => {
    await ws().write('g.yaml', guides(4));
    const stop = new AbortController();
    const abandon = new AbortController();
    const run = await target.cli(
      ['apply', 'g.yaml', '--auto-approve', '--json-stream', '--parallelism', '1', '--no-adapt'],
      {
        stop: stop.signal,
        abandon: abandon.signal,
        onStdout: (line) => {
          if (line.includes('"call_start"') && !stop.signal.aborted) {
            stop.abort();
            abandon.abort();
          }
        },
      },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('stopping: waiting for 1 call in flight');
    expect(run.stderr).toContain('abandoning 1 call in flight; its outcome is unknown');
    const stream = events(run.stdout);
    expect(stream.at(-1)).toMatchObject({ type: 'summary', done: 0, failed: 1, not_started: 3 });
    expect(stream.find((e) => e.type === 'call_failed')?.error).toMatch(/stopped|outcome is unknown/);
  });

  it('the real signals, SIGTERM then Ctrl-C: the call abandoned in flight is reported once, as one that may have taken effect', async () => {
    await ws().write('g.yaml', guides(2));
    const gate = await holdingGate(slow().url, 'addguideacct');
    try {
      const args = [
        'apply',
        'g.yaml',
        '--auto-approve',
        '--parallelism',
        '1',
        '--no-adapt',
        '--base-url',
        gate.url,
      ];
      const spawned = spawnCli(args, { cwd: ws().dir, env: env() });
      await gate.held;
      // The second signal only once the first is seen, so that the two are never merged into one.
      spawned.child.kill('SIGTERM');
      // What to do next, in words true after a SIGTERM (as a process manager sends) too.
      await untilOutput(
        spawned.child.stderr,
        /guidectl: stopping: waiting for 1 call in flight; a second Ctrl-C or SIGTERM abandons it\n/,
      );
      spawned.child.kill('SIGINT');
      const { code, stdout, stderr } = await spawned.ended;
      expect(code, stderr).toBe(1);
      expect(stderr).toContain('guidectl: abandoning 1 call in flight; its outcome is unknown\n');
      // Told once, in the report; not also as a failure on stderr.
      expect(stderr).not.toContain('addguideacct');
      expect(stdout).toContain('Apply: 0 calls done, 0 failed, 1 abandoned, 1 not started (of 2).\n');
      expect(stdout.match(/#1 addguideacct/g)).toHaveLength(1);
      expect(stdout).toContain(
        '  abandoned    #1 addguideacct (guide_account="guide_000"): in flight when abandoned; its outcome is unknown\n',
      );
      expect(stdout).toContain(
        'Interrupted: call #1 was abandoned in flight: it may have taken effect, or may still (its outcome is unknown); the call not started was not made, and convergence was not checked. Run guidectl plan to see where the account stands, then apply again to finish.\n',
      );
      expect(stdout).not.toContain('were not made');
      // And so it may: the server gets it after all, and the next plan sees it landed.
      await gate.release();
      expect(writes()).toHaveLength(1);
      const plan = await target.cli(['plan', 'g.yaml']);
      expect(plan.stdout).toContain('Plan: 1 to add');
    } finally {
      gate.close();
    }
  });

  it('a second Ctrl-C once the calls in flight are done, as the process ends: still exit 1, not the signal', async () => {
    await ws().write('g.yaml', guides(2));
    const gate = await holdingGate(slow().url, 'addguideacct');
    const fifo = join(ws().dir, 'hold');
    execFileSync('mkfifo', [fifo]);
    try {
      const args = [
        'apply',
        'g.yaml',
        '--auto-approve',
        '--parallelism',
        '1',
        '--no-adapt',
        '--base-url',
        gate.url,
      ];
      const spawned = spawnCli(args, {
        cwd: ws().dir,
        env: { ...env(), GUIDECTL_TEST_HOLD_FIFO: fifo },
        preload: HOLD_EXIT,
      });
      const { pid } = spawned.child;
      await gate.held;
      spawned.child.kill('SIGINT');
      await untilOutput(spawned.child.stderr, /stopping: waiting for 1 call in flight/);
      // The call in flight is answered: the apply reports it and ends, held there by the preload.
      const ending = untilOutput(spawned.child.stderr, /hold: ending \(by (Node|itself)\)/);
      await gate.answer();
      // The worst moment for the second: once it no longer catches SIGINT, if that comes before its end.
      if ((await ending)[1] === 'Node') while (catchesSigint(pid)) await new Promise(setImmediate);
      spawned.child.kill('SIGINT');
      release(fifo);
      const { code, signal, stdout, stderr } = await spawned.ended;
      expect({ code, signal }, stderr).toEqual({ code: 1, signal: null });
      expect(stdout).toContain('Apply: 1 call done, 0 failed, 1 not started (of 2).\n');
    } finally {
      gate.close();
    }
  });

  it('the real signals: SIGINT to the process lets the call in flight finish, then reports', async () => {
    await ws().write('g.yaml', guides(30));
    const args = ['apply', 'g.yaml', '--auto-approve', '--json-stream', '--parallelism', '1', '--no-adapt'];
    const spawned = spawnCli([...args, '--base-url', slow().url], { cwd: ws().dir, env: env() });
    let sent = false;
    spawned.child.stdout?.on('data', (chunk: Buffer) => {
      if (!sent && chunk.toString().includes('"call_start"')) {
        sent = true;
        spawned.child.kill('SIGINT');
      }
    });
    const { code, stdout, stderr } = await spawned.ended;
    expect(code, stderr).toBe(1);
    expect(stderr).toMatch(/stopping: (waiting for 1 call in flight|no call is in flight)/);
    const summary = events(stdout).at(-1);
    expect(summary).toMatchObject({ type: 'summary', failed: 0, interrupted: true });
    expect(writes()).toHaveLength(summary?.done ?? -1);
  });
});

describe('Ctrl-C while reading the live state', () => {
  it.each([['plan'], ['apply']])('%s says "interrupted", not that a call failed', async (command) => {
    await ws().write('g.yaml', guides(2));
    // The first read is held at a gate; Ctrl-C comes while it waits there.
    const extra = command === 'apply' ? ['--auto-approve'] : [];
    const { run } = await interruptedAt(slow().url, 'getguideacctlist', [command, 'g.yaml', ...extra], {
      env: env(),
      cwd: ws().dir,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('guidectl: interrupted while reading the live state');
    expect(run.stderr).not.toContain('failed');
    expect(writes()).toEqual([]);
  });
});

describe('Ctrl-C during the convergence check, every call made', () => {
  /** Apply of one guide, stopped while the check's read of the guides is held by a gate. */
  async function stoppedInCheck(format: string[]) {
    await ws().write('g.yaml', guides(1));
    // The plan's read of the guides goes through; the check's is held until the Ctrl-C.
    const args = ['apply', 'g.yaml', '--auto-approve', ...format];
    return (
      await interruptedAt(slow().url, 'getguideacctlist', args, { env: env(), cwd: ws().dir, after: 1 })
    ).run;
  }

  it('points to guidectl plan, not to an apply that has nothing left to finish', async () => {
    const run = await stoppedInCheck([]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Apply: 1 call done, 0 failed, 0 not started (of 1).');
    expect(run.stdout).toContain(
      'Interrupted: every call was made, but convergence was not checked; run guidectl plan to see whether the account matches the files.\n',
    );
    expect(run.stdout).not.toContain('run apply again');
  });

  it('--json-stream tells the interrupt before the summary', async () => {
    const run = await stoppedInCheck(['--json-stream']);
    expect(run.code).toBe(1);
    const stream = events(run.stdout);
    expect(stream.slice(-2)).toMatchObject([
      { type: 'interrupt', action: 'stop', in_flight: 0 },
      { type: 'summary', done: 1, interrupted: true, converged: null },
    ]);
  });
});

describe('a signal during work that has nothing in flight', () => {
  it('ends validate at once, even in the middle of its work', async () => {
    // The preload makes the read of stall.yaml never end: the signal surely comes mid-work.
    await ws().write('stall.yaml', guides(1));
    const spawned = spawnCli(['validate', 'stall.yaml'], { cwd: ws().dir, preload: STALL_READ });
    await new Promise<void>((resolve) => {
      spawned.child.stderr?.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('stall: reading')) resolve();
      });
    });
    spawned.child.kill('SIGTERM');
    const { code, signal } = await spawned.ended;
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGTERM' });
  });
});

describe('a signal during synchronous work (the parse of a huge file)', () => {
  // No JavaScript signal handler can run while the parse holds the thread: the files are read
  // before any command asks for the signals, so their default action ends the process at once.
  for (const command of ['validate', 'plan', 'apply'] as const) {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      it(`${signal} ends ${command} at once`, async () => {
        await ws().write('block.yaml', guides(1));
        const spawned = spawnCli(
          [command, 'block.yaml', ...(command === 'validate' ? [] : ['--base-url', slow().url])],
          {
            cwd: ws().dir,
            env: env(),
            preload: BLOCKING_READ,
          },
        );
        await untilOutput(spawned.child.stderr, /block: parsing block\.yaml/);
        spawned.child.kill(signal);
        const ended = await spawned.ended;
        expect({ code: ended.code, signal: ended.signal }).toEqual({ code: null, signal });
      });
    }
  }
});

describe('a signal while the files load, with a machine format', () => {
  // --json and --json-stream end with their object whatever happens: such a command asks for the
  // signals from its start, so a Ctrl-C during the parse is seen once the parse is over.
  const ENVS = 'version: 1\nenvironments:\n  a: {}\n  b: {}\nguides: []\n';
  for (const [command, format, allEnvs] of [
    ['plan', '--json', false],
    ['apply', '--json', false],
    ['apply', '--json-stream', false],
    ['plan', '--json', true],
    ['apply', '--json', true],
  ] as const) {
    const name = `${command}${allEnvs ? ' --all-envs' : ''} ${format}`;
    it(`${name}: interrupted, nothing read or changed, and still the object on stdout`, async () => {
      await ws().write('block.yaml', allEnvs ? ENVS : guides(3));
      const before = slow().calls().length;
      const args = [command, 'block.yaml', format, ...(command === 'apply' ? ['--auto-approve'] : [])];
      const target = allEnvs ? ['--all-envs'] : ['--base-url', slow().url];
      const marker = join(ws().dir, 'signalled');
      const spawned = spawnCli([...args, ...target], {
        cwd: ws().dir,
        env: { ...env(), GUIDECTL_TEST_BLOCK_UNTIL: marker },
        preload: BLOCKING_READ,
      });
      await untilOutput(spawned.child.stderr, /block: parsing block\.yaml/);
      spawned.child.kill('SIGINT');
      await writeFile(marker, '');
      const { code, stdout, stderr } = await spawned.ended;
      expect(code, stderr).toBe(1);
      expect(stderr).toContain('guidectl: interrupted while reading the files; nothing was read or changed');
      const told = format === '--json' ? [JSON.parse(stdout)] : events(stdout);
      expect(told[0]).toMatchObject({
        error: 'interrupted while reading the files; nothing was read or changed',
      });
      if (format === '--json-stream')
        expect(told.at(-1)).toMatchObject({ type: 'summary', interrupted: true });
      expect(slow().calls().length).toBe(before);
      // No environment's embedded database was opened (nor its folder made).
      expect(existsSync(join(ws().dir, '.guidectl'))).toBe(false);
    });
  }
});
