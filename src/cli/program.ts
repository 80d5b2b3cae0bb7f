import { createRequire } from 'node:module';
import { Command, CommanderError } from 'commander';
import { errorStack, GuidectlError } from '../core/errors.js';
import { escapeControlsKeepingLines } from '../report/escape.js';
import { registerApiCommand } from './api.js';
import { registerApplyCommand } from './apply.js';
import { registerExportCommand } from './export.js';
import type { CliIo, CommandContext, ExitStatus } from './io.js';
import { registerPlanCommand } from './plan.js';
import { registerServeCommand } from './serve.js';
import { registerShowCommand } from './show.js';
import { registerValidateCommand } from './validate.js';

/** The package's version, read from its package.json (two folders up from src/cli and dist/cli). */
function packageVersion(): string {
  const pkg: unknown = createRequire(import.meta.url)('../../package.json');
  const version = typeof pkg === 'object' && pkg !== null ? Reflect.get(pkg, 'version') : undefined;
  return typeof version === 'string' ? version : 'unknown';
}

/** Builds the commander program; every command reports through `ctx.io`, never `process`. */
export function buildProgram(ctx: CommandContext): Command {
  const program = new Command('guidectl')
    .description('Manage WeChat shopping guides as code.')
    .version(packageVersion(), '-V, --version', 'print the version of guidectl')
    .option('--no-color', 'no ANSI colours in the output (as NO_COLOR=1 does)')
    .showHelpAfterError()
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
    })
    .exitOverride();
  registerValidateCommand(program, ctx);
  registerPlanCommand(program, ctx);
  registerApplyCommand(program, ctx);
  registerShowCommand(program, ctx);
  registerExportCommand(program, ctx);
  registerServeCommand(program, ctx);
  registerApiCommand(program, ctx);
  return program;
}

/**
 * Runs the program and turns every outcome into an exit status. User errors and known failures
 * print one clear line; only a bug (an error that is not a GuidectlError) prints a stack trace.
 */
export async function runProgram(argv: readonly string[], io: CliIo): Promise<ExitStatus> {
  let status: ExitStatus = 0;
  const program: Command = buildProgram({
    io,
    setExit: (s) => {
      status = s;
    },
    colorFlag: () => program.opts()['color'] !== false,
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return status;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 1;
    if (error instanceof GuidectlError) {
      io.stderr.write(`guidectl: ${escapeControlsKeepingLines(error.message)}\n`);
      return 1;
    }
    const stack = errorStack(error);
    io.stderr.write(`guidectl: internal error (please report it):\n${stack}\n`);
    return 1;
  }
}
