import { createRequire } from 'node:module';
import { Command, CommanderError, type Option } from 'commander';
import { renderCommandFailure } from '../report/command-failure.js';
import type { CliIo, CommandContext, ExitStatus, Output } from './io.js';

type Register = (program: Command, ctx: CommandContext) => void;

/**
 * The commands, in the order `--help` lists them, each loaded only when needed: a command's module
 * imports what it runs (the YAML parser and schema for validate, the HTTP client and the service
 * for plan), so `--version` loads none of them and `validate` none of the network's. Start-up is
 * most of a small command's time (issue 10, goal 4).
 */
const COMMANDS: Readonly<Record<string, () => Promise<Register>>> = {
  validate: async () => (await import('./validate.js')).registerValidateCommand,
  plan: async () => (await import('./plan.js')).registerPlanCommand,
  apply: async () => (await import('./apply.js')).registerApplyCommand,
  show: async () => (await import('./show.js')).registerShowCommand,
  envs: async () => (await import('./envs.js')).registerEnvsCommand,
  export: async () => (await import('./export.js')).registerExportCommand,
  tasks: async () => (await import('./tasks.js')).registerTasksCommand,
  chats: async () => (await import('./chats.js')).registerChatsCommand,
  qrcode: async () => (await import('./qrcode.js')).registerQrcodeCommand,
  'path-menu': async () => (await import('./path-menu.js')).registerPathMenuCommand,
  serve: async () => (await import('./serve.js')).registerServeCommand,
  api: async () => (await import('./api.js')).registerApiCommand,
  quota: async () => (await import('./quota.js')).registerQuotaCommand,
};

/**
 * The commands to register for these arguments: the one named (global options come first and take
 * no value, so it is the first word that is not an option); none for `--version` alone; all of
 * them otherwise, for `--help`, `help`, a mistyped command's suggestion, or no command.
 */
export function commandsFor(argv: readonly string[]): readonly string[] {
  const word = argv.find((a) => !a.startsWith('-'));
  if (word !== undefined && Object.hasOwn(COMMANDS, word)) return [word];
  if (word === undefined && argv.length > 0 && argv.every((a) => a === '-V' || a === '--version')) return [];
  return Object.keys(COMMANDS);
}

/** The package's version, read from its package.json (two folders up from src/cli and dist/cli). */
function packageVersion(): string {
  const pkg: unknown = createRequire(import.meta.url)('../../package.json');
  const version = typeof pkg === 'object' && pkg !== null ? Reflect.get(pkg, 'version') : undefined;
  return typeof version === 'string' ? version : 'unknown';
}

/** Builds the commander program; every command reports through `ctx.io`, never `process`. */
export async function buildProgram(
  ctx: CommandContext,
  commands: readonly string[] = Object.keys(COMMANDS),
): Promise<Command> {
  const program = new Command('guidectl')
    .description('Manage WeChat shopping guides as code.')
    .version(packageVersion(), '-V, --version', 'print the version of guidectl')
    .option('--no-color', 'no ANSI colours (as NO_COLOR=1 does)')
    .configureHelp({ optionDescription })
    // A usage error is its line and where the options are, not the whole help (60 lines for plan).
    .showHelpAfterError("Run 'guidectl --help' for the commands.")
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
      // commander's own usage errors read as guidectl's others do: `guidectl: <what>`.
      outputError: (s, write) => write(`guidectl: ${s.replace(/^error: /, '')}`),
    })
    .exitOverride();
  const registers = await Promise.all(commands.map((name) => COMMANDS[name]?.()));
  for (const register of registers) register?.(program, ctx);
  for (const command of program.commands)
    command
      .showHelpAfterError(`Run 'guidectl ${command.name()} --help' for its options.`)
      // The page holds what one line a flag cannot; test/docs/command-pages.test.ts keeps the two in step.
      .addHelpText('after', `\nDocs: docs/commands/${command.name()}.md`);
  return program;
}

/**
 * An option's line in `--help`: its description, then its choices as `a|b` and its default, as
 * commander shows them but shorter, so that each flag fits one line at 80 columns (the command's
 * page holds the rest). A switch's `false` default goes unsaid: a switch is off unless given.
 */
export function optionDescription(option: Option): string {
  const extra: string[] = [];
  if (option.argChoices !== undefined) extra.push(option.argChoices.join('|'));
  const value: unknown = option.defaultValue;
  if (value !== undefined && (option.required || option.optional)) {
    const shown = typeof value === 'string' ? value : JSON.stringify(value);
    extra.push(`default: ${option.defaultValueDescription ?? shown}`);
  }
  return extra.length === 0 ? option.description : `${option.description} (${extra.join(', ')})`;
}

/**
 * Runs the program and turns every outcome into an exit status. User errors and known failures
 * print one clear line; only a bug (an error that is not a GuidectlError) prints a stack trace. A
 * command given `--json` (`--format json`) that fails before printing prints the failure as JSON
 * first, as plan and apply do (validate's `--json` is its array of diagnostics, even then).
 */
export async function runProgram(argv: readonly string[], given: CliIo): Promise<ExitStatus> {
  let status: ExitStatus = 0;
  let [json, printed] = [false, false];
  const io: CliIo = { ...given, stdout: watchWrites(given.stdout, () => (printed = true)) };
  try {
    const colorFlag = () => program.opts()['color'] !== false;
    const program: Command = await buildProgram(
      { io, setExit: (s) => (status = s), colorFlag },
      commandsFor(argv),
    );
    program.hook('preAction', (_, action) => {
      const { json: flag, format } = action.opts();
      json = (flag === true || format === 'json') && action.name() !== 'validate';
    });
    await program.parseAsync(argv, { from: 'user' });
    return status;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 1;
    const failure = await renderCommandFailure(error, { json: json && !printed, cwd: io.cwd });
    if (failure.stdout !== '') given.stdout.write(failure.stdout);
    io.stderr.write(failure.stderr);
    return 1;
  }
}

/** `output`, telling `onWrite` of each write. */
function watchWrites(output: Output, onWrite: () => void): Output {
  const drain = output.drain?.bind(output);
  const write = (text: string): void => {
    onWrite();
    output.write(text);
  };
  return { write, isTTY: output.isTTY, ...(drain && { drain }) };
}
