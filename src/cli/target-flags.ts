import { type Command, InvalidArgumentError, Option } from 'commander';
import { UsageError } from '../core/errors.js';
import { shellWord } from '../core/shell-word.js';
import type { TargetFlagValues } from '../target/request.js';

/**
 * The parser of every whole-number flag: `flag` takes a whole number from `min` to `max` (no
 * bound above when `max` is not given), with spaces around it allowed.
 */
export function wholeNumber(flag: string, min: number, max?: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (
      !/^[0-9]+$/.test(value.trim()) ||
      !Number.isSafeInteger(n) ||
      n < min ||
      (max !== undefined && n > max)
    ) {
      const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
      throw new InvalidArgumentError(`${flag} takes a whole number ${range}.`);
    }
    return n;
  };
}

/** Adds the target options every command that talks to a target takes (plan, apply, export, api). */
export function targetOptions(command: Command): Command {
  return command
    .option('--base-url <url>', 'API base URL (or GUIDECTL_BASE_URL)')
    .option('--local-db <file>', 'embedded service database (or GUIDECTL_LOCAL_DB)')
    .option('--parallelism <n>', 'calls in flight to start; adapts', wholeNumber('--parallelism', 1, 256), 8)
    .option(
      '--max-parallelism <n>',
      'most calls in flight when adapting (default: 64)',
      wholeNumber('--max-parallelism', 1, 256),
    )
    .option('--no-adapt', 'keep exactly --parallelism calls in flight')
    .option('--timeout <seconds>', 'time one attempt of a call may take (default: 15)', seconds('--timeout'))
    .option(
      '--settle-timeout <seconds>',
      'extra wait for a timed-out write (default: 120)',
      seconds('--settle-timeout'),
    )
    .option(
      '--settle-window <seconds>',
      'watch a lost write before resending (default: 15)',
      seconds('--settle-window'),
    )
    .option('--read-retry <seconds>', 'how long a read is retried (default: 120)', seconds('--read-retry'))
    .option('--verbose', 'log each API exchange on stderr, tokens redacted', false)
    .hook('preAction', (self) => checkParallelismFlags(self.opts<ParallelismFlags>()));
}

interface ParallelismFlags {
  readonly parallelism: number;
  readonly maxParallelism?: number;
  readonly adapt?: boolean;
}

/** `--max-parallelism` against `--parallelism` and `--no-adapt`: a usage error naming the fix. */
export function checkParallelismFlags(options: ParallelismFlags): void {
  const max = options.maxParallelism;
  if (max === undefined) return;
  if (options.adapt === false)
    throw new UsageError(
      `--max-parallelism ${max} bounds adapting, which --no-adapt turns off; give one of them (with --no-adapt, --parallelism alone sets the calls in flight)`,
    );
  if (max < options.parallelism)
    throw new UsageError(
      `--max-parallelism ${max} is below --parallelism ${options.parallelism}, where adapting starts; raise --max-parallelism or lower --parallelism`,
    );
}

/** `--lock-timeout SECONDS`, of the commands that write (apply, api, qrcode, path-menu). */
export function lockTimeoutFlag(): Option {
  return new Option('--lock-timeout <seconds>', "wait for the embedded database's lock")
    .argParser(wholeNumber('--lock-timeout', 0))
    .default(0);
}

/** `--env NAME`: the environment of the files to plan or apply, and so its target (plan, apply). */
export function envOption(command: Command): Command {
  return command.option('--env <name>', 'the environment of the files to plan');
}

/**
 * `--env NAME --files PATH…` (export, tasks, chats, qrcode, path-menu, api): the account of an
 * environment the files declare, reached as plan and apply reach it. `--files` takes every word up
 * to the next flag, so it goes after the command's own arguments.
 */
export function envFilesOptions(command: Command): Command {
  return command
    .option('--env <name>', "use this environment's account (with --files)")
    .option('--files <paths...>', 'with --env: the files or folders that declare it');
}

/** Whether `--all-envs` was given (plan, apply); with `--env` too, a usage error: they choose differently. */
export function allEnvsChosen(options: { readonly allEnvs?: boolean; readonly env?: string }): boolean {
  if (options.allEnvs === true && options.env !== undefined)
    throw new UsageError('--all-envs and --env choose differently; give one');
  return options.allEnvs === true;
}

export function seconds(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^[0-9]+(\.[0-9]+)?$/.test(value.trim()) || !(n > 0) || n > 86_400) {
      throw new InvalidArgumentError(
        `${flag} takes a number of seconds from 0.001 to 86400, e.g. ${flag} 30.`,
      );
    }
    return n;
  };
}

/**
 * The target flags as given (`--local-db`, `--base-url`), shell-quoted, for the commands a report
 * suggests to reach the same target. What came from the process environment stays there (it is
 * still set where the command is pasted), and credentials are never flags.
 */
export function givenTargetWords(options: Pick<TargetFlagValues, 'localDb' | 'baseUrl'>): string[] {
  return [
    ...(options.localDb === undefined ? [] : ['--local-db', shellWord(options.localDb)]),
    ...(options.baseUrl === undefined ? [] : ['--base-url', shellWord(options.baseUrl)]),
  ];
}
