import { describe, expect, it } from 'vitest';
import { runProgram } from '../../src/cli/program.js';
import { captureIo } from '../helpers/capture-io.js';

// The command line's own mistakes (an unknown flag, a missing argument) are said as every other
// refusal of guidectl is: one `guidectl:` line, then where the options are; exit 1.

describe('usage errors', () => {
  it.each([
    [['plan'], "guidectl: missing required argument 'paths'\nRun 'guidectl plan --help' for its options.\n"],
    [
      ['plan', 'x.yaml', '--local-bd', 'd.db'],
      "guidectl: unknown option '--local-bd'\n(Did you mean --local-db?)\nRun 'guidectl plan --help' for its options.\n",
    ],
    [
      ['plam'],
      "guidectl: unknown command 'plam'\n(Did you mean plan?)\nRun 'guidectl --help' for the commands.\n",
    ],
  ])('guidectl %j', async (argv, said) => {
    const io = captureIo({}, process.cwd());
    const status = await runProgram(argv, io);
    expect(status).toBe(1);
    expect(io.err()).toBe(said);
    expect(io.out()).toBe('');
  });
});
