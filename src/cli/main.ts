#!/usr/bin/env node
import process from 'node:process';
import { errorCode } from '../core/errors.js';
import type { CliIo, Output } from './io.js';
import { runProgram } from './program.js';
import { createAsk } from './prompt.js';

// The entry point: the process's streams, environment, working directory and signals become the
// `CliIo` every command runs with (program.ts wires the commands), so tests run the same program
// in-process with an io of their own.

/**
 * An output over a process stream. When its reader goes away (`guidectl … | head -1` closes the
 * pipe: EPIPE), what follows is dropped quietly: a closed stdout must never crash the program or
 * cut an apply short; the exit status still tells how the work went. Any other failure (a full
 * disk, an I/O error) is kept for `failure`: output that was lost must not end in success.
 */
function processOutput(stream: NodeJS.WriteStream): Output & { failure(): Promise<string | undefined> } {
  let open = true;
  let wrote = false;
  let failed: string | undefined;
  const fail = (error: Error): void => {
    open = false;
    const code = errorCode(error);
    if (code !== 'EPIPE' && code !== 'ERR_STREAM_DESTROYED') failed ??= code ?? error.message;
  };
  stream.on('error', fail);
  return {
    // Once what was written is flushed: a write can fail after it was queued.
    failure: () =>
      new Promise((resolve) => {
        // An empty write fails too on a full device: flush only what was written.
        if (!open || !wrote) return resolve(failed);
        stream.write('', (error) => {
          if (error) fail(error);
          resolve(failed);
        });
      }),
    write: (text) => {
      // Nothing to write is no write: on a full device even an empty one fails.
      if (!open || stream.destroyed || text === '') return;
      wrote = true;
      stream.write(text);
    },
    isTTY: stream.isTTY === true,
    drain: () =>
      new Promise((resolve) => {
        if (!open || stream.destroyed || !stream.writableNeedDrain) return resolve(open && !stream.destroyed);
        const done = (): void => {
          stream.off('drain', done).off('close', done);
          resolve(open && !stream.destroyed);
        };
        stream.once('drain', done).once('close', done);
      }),
  };
}

// Until a command asks for them (catchSignals), SIGINT and SIGTERM keep their default: the process
// ends at once, even inside long synchronous work. Once asked: the first one stops the command
// (nothing new starts), the second abandons the calls in flight, a third ends the process.
const stop = new AbortController();
const abandon = new AbortController();
const onSignal = (signal: NodeJS.Signals): void => {
  if (!stop.signal.aborted) stop.abort(signal);
  else if (!abandon.signal.aborted) abandon.abort(signal);
  else {
    process.stderr.write('guidectl: stopped at once\n');
    process.exit(1);
  }
};

const stdout = processOutput(process.stdout);
const stderr = processOutput(process.stderr);
const io: CliIo = {
  stdout,
  stderr,
  env: process.env,
  cwd: process.cwd(),
  stopSignal: stop.signal,
  abandonSignal: abandon.signal,
  catchSignals: () => {
    if (!process.listeners('SIGINT').includes(onSignal))
      process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  },
  ...(process.stdin.isTTY === true
    ? {
        ask: createAsk({
          input: process.stdin,
          output: process.stderr,
          terminal: true,
          signal: stop.signal,
        }),
      }
    : {}),
  // `now` and `every` are left to their defaults: the real clock and an unref'd setInterval.
};

const status = await runProgram(process.argv.slice(2), io);
const lost = await stdout.failure();
if (lost !== undefined)
  process.stderr.write(
    `guidectl: the output could not be written (${lost}); what it printed is incomplete\n`,
  );
await stderr.failure();
// Ended here, not by Node's teardown, which first gives SIGINT and SIGTERM back their default: a
// Ctrl-C then (the second, as an interrupted apply ends) would end it by the signal (130).
process.exit(lost === undefined ? status : 1);
