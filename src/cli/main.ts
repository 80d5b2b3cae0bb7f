#!/usr/bin/env node
import process from 'node:process';
import { createInterface } from 'node:readline/promises';
import type { CliIo } from './io.js';
import { runProgram } from './program.js';

// The composition root: the only place that touches `process`.
// The first Ctrl-C (or SIGTERM) asks the running command to stop: serve finishes its calls in
// flight, other commands abort theirs and report what was done. A second one ends the process.
const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stop.signal.aborted) {
      process.stderr.write('guidectl: stopped at once\n');
      process.exit(1);
    }
    stop.abort(signal);
  });
}

const io: CliIo = {
  stdout: { write: (s) => void process.stdout.write(s), isTTY: process.stdout.isTTY === true },
  stderr: { write: (s) => void process.stderr.write(s), isTTY: process.stderr.isTTY === true },
  env: process.env,
  cwd: process.cwd(),
  stopSignal: stop.signal,
  ask: async (question) => {
    if (process.stdin.isTTY !== true) return undefined;
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await rl.question(question, { signal: stop.signal });
    } catch {
      return undefined;
    } finally {
      rl.close();
    }
  },
  now: () => Date.now(),
};

process.exitCode = await runProgram(process.argv.slice(2), io);
