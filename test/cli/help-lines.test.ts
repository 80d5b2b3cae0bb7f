import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/**
 * `--help` stays short (issue 24): at 80 columns each flag, argument and command is one line, and
 * no line is wider; the details live on the command's page, which the help names. Commander wraps
 * at the terminal's width, and at 80 columns when the output is not a terminal, as here.
 */

/** The items of a `--help` section ("Options:", "Arguments:", "Commands:"): its lines. */
function section(help: string, title: string): string[] {
  const body = help.split(`\n${title}\n`)[1]?.split('\n\n')[0];
  return body === undefined ? [] : body.split('\n').filter((line) => line !== '');
}

async function help(args: string[]): Promise<string> {
  const run = await runCli([...args, '--help'], { env: { COLUMNS: '80' } });
  expect(run.code).toBe(0);
  return run.stdout;
}

const top = await help([]);
const commands = section(top, 'Commands:')
  .map((line) => /^ {2}([\w-]+)/.exec(line)?.[1] ?? '')
  .filter((name) => name !== 'help');

describe.each([[''], ...commands.map((c) => [c])])('guidectl %s --help', (command) => {
  it('gives each flag, argument and command one line, none over 80 columns', async () => {
    const text = command === '' ? top : await help([command]);
    const titles = ['Options:', 'Arguments:', 'Commands:'];
    const items = titles.flatMap((title) => section(text, title));
    expect(section(text, 'Options:').length).toBeGreaterThan(1);
    // A continuation line starts with more than the two spaces of an item's indent.
    for (const line of items) expect(line, `continued: ${line}`).toMatch(/^ {2}\S/);
    for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
  });
});

it('lists every command', () => {
  expect(commands).toEqual(expect.arrayContaining(['validate', 'plan', 'apply', 'serve', 'api']));
});
