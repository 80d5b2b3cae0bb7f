import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ROOT } from './pages.js';

/**
 * Each command's page in docs/commands/ and its `--help` cannot drift: the page's "Flags" table
 * lists exactly the flags `--help` prints, and `--help` names the page.
 */

const COMMANDS = [
  'validate',
  'plan',
  'apply',
  'show',
  'envs',
  'export',
  'tasks',
  'chats',
  'qrcode',
  'path-menu',
  'serve',
  'api',
  'quota',
];

/** The long names of the flags of a `--help` text's "Options:" section. */
function helpFlags(help: string): string[] {
  const section = help.split('\nOptions:\n')[1]?.split('\n\n')[0] ?? '';
  return [...section.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1] ?? '');
}

/** The long names of the flags in the first column of a page's "## Flags" table. */
function pageFlags(page: string): string[] {
  const section = page.split('\n## Flags\n')[1]?.split('\n## ')[0] ?? '';
  return [...section.matchAll(/^\| `(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1] ?? '');
}

describe.each(COMMANDS)('docs/commands/%s.md', (command) => {
  const page = readFileSync(join(ROOT, 'docs', 'commands', `${command}.md`), 'utf8');

  it('lists exactly the flags of --help, and --help names the page', async () => {
    const run = await runCli([command, '--help']);
    expect(run.code).toBe(0);
    const flags = helpFlags(run.stdout);
    expect(flags.length).toBeGreaterThan(1);
    expect(pageFlags(page).sort()).toEqual(flags.sort());
    expect(run.stdout).toContain(`Docs: docs/commands/${command}.md`);
  });

  it('has its usage, exit codes and examples', () => {
    expect(page).toMatch(new RegExp(`^# \`guidectl ${command}\``, 'm'));
    for (const heading of ['## Usage', '## Flags', '## Exit codes', '## Examples'])
      expect(page).toContain(heading);
  });
});

it('every command has a page, and the README a line for it', async () => {
  const help = (await runCli(['--help'])).stdout;
  const listed = [...(help.split('\nCommands:\n')[1] ?? '').matchAll(/^ {2}([\w-]+)/gm)]
    .map((m) => m[1] ?? '')
    .filter((name) => name !== 'help');
  expect(listed.sort()).toEqual([...COMMANDS].sort());
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  for (const command of COMMANDS) expect(readme).toContain(`(docs/commands/${command}.md)`);
});
