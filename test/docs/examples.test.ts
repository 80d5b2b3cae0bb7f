import { cp, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProgram } from '../../src/cli/program.js';
import { parseJson } from '../../src/wire/json.js';
import { captureIo, runCli, type Workspace, workspace } from '../helpers/cli.js';
import { type CodeBlock, codeBlocks, type Page, ROOT, userPages } from './pages.js';

/**
 * Every example runs (issue 24): each YAML example of the README and docs/ validates, and the
 * walk-throughs that name only local resources run as written, in a fresh folder holding a copy of
 * examples/. A YAML block that is only part of a file is marked `<!-- fragment -->`; one whose
 * paragraph says "Put this in `PATH`" is written there, and validated with the others of its page.
 * A shell block that names only local resources is marked `<!-- runs -->`, and its commands run.
 */

const pages = userPages();
const page = (path: string): Page => {
  const found = pages.find((p) => p.path === path);
  if (found === undefined) throw new Error(`no page ${path}`);
  return found;
};

/** The file a block's paragraph names ("Put this in `envs/guides.yaml`"), if any. */
function namedFile(p: Page, block: CodeBlock): string | undefined {
  const before = p.text.split('\n').slice(0, block.line - 1);
  let i = before.length - 1;
  while (i >= 0 && (before[i] ?? '').trim() === '') i--;
  return /Put this in `([^`]+)`/.exec(before[i] ?? '')?.[1];
}

/** The fenced blocks under a heading, up to the next heading of the same level or higher. */
function blocksUnder(p: Page, heading: string): CodeBlock[] {
  const lines = p.text.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`${p.path} has no heading ${heading}`);
  const level = heading.indexOf(' ');
  const rest = lines.slice(start + 1).findIndex((l) => /^#{1,6} /.test(l) && l.indexOf(' ') <= level);
  const end = rest < 0 ? lines.length : start + 1 + rest;
  return codeBlocks(p).filter((b) => b.line > start && b.line <= end);
}

/** The guidectl commands of a shell block: each `npx guidectl …`, `&&` chains split. */
function commandsOf(block: CodeBlock): string[][] {
  return block.code
    .split('\n')
    .flatMap((line) => line.split('&&'))
    .map((c) => c.trim())
    .filter((c) => c.startsWith('npx guidectl '))
    .map((c) =>
      [...c.slice('npx guidectl '.length).matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map(
        (m) => m[1] ?? m[2] ?? m[3] ?? '',
      ),
    );
}

describe('YAML examples validate', () => {
  for (const p of pages) {
    const blocks = codeBlocks(p).filter((b) => b.lang === 'yaml' && !b.fragment);
    if (blocks.length === 0) continue;
    it(p.path, async () => {
      const ws = await workspace();
      try {
        const named: string[] = [];
        for (const block of blocks) {
          const file = namedFile(p, block);
          if (file !== undefined) {
            await mkdir(join(ws.dir, dirname(file)), { recursive: true });
            await writeFile(join(ws.dir, file), block.code);
            named.push(file);
            continue;
          }
          await ws.write('example.yaml', block.code);
          const run = await runCli(['validate', 'example.yaml'], { cwd: ws.dir });
          expect(run.stderr + run.stdout, `${p.path}:${block.line}`).toMatch(/^valid: /m);
          expect(run.code, `${p.path}:${block.line}\n${run.stderr}`).toBe(0);
        }
        if (named.length > 0) {
          const run = await runCli(['validate', ...named], { cwd: ws.dir });
          expect(run.code, `${p.path}: ${named.join(', ')}\n${run.stderr}`).toBe(0);
        }
      } finally {
        await ws.remove();
      }
    });
  }
});

describe('the walk-throughs run as written', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await workspace();
    await cp(join(ROOT, 'examples'), join(ws.dir, 'examples'), { recursive: true });
  });
  afterAll(() => ws.remove());

  const run = async (args: string[]) => {
    const result = await runCli(args, { cwd: ws.dir });
    expect(result.code, `guidectl ${args.join(' ')}\n${result.stderr}`).toBe(0);
    return result;
  };

  it("the README's quick start: apply, then plan again shows no changes", async () => {
    const [block] = blocksUnder(page('README.md'), '## Quick start');
    const commands = block === undefined ? [] : commandsOf(block);
    expect(commands.map((c) => c[0])).toEqual(['apply', 'plan']);
    let last = '';
    for (const args of commands) last = (await run(args)).stdout;
    expect(last).toContain('No changes.');
  });

  it("the README's tour: validate, plan, apply, plan again", async () => {
    const commands = blocksUnder(page('README.md'), '## A five-minute tour').flatMap(commandsOf);
    expect(commands.map((c) => c[0])).toEqual(['validate', 'plan', 'apply', 'plan']);
    const outputs: string[] = [];
    for (const args of commands) outputs.push((await run(args)).stdout);
    expect(outputs[1]).toMatch(/Plan: 4 to add, 1 to change, 0 to delete/);
    expect(outputs[2]).toContain('Converged: the account matches the files.');
    expect(outputs[3]).toContain('No changes. The account matches the files.');
  });

  it('getting started: what each step prints is what the page says', async () => {
    const p = page('docs/getting-started.md');
    const commands = blocksUnder(p, '## Try it with no account')
      .filter((b) => b.lang === 'sh')
      .flatMap(commandsOf);
    expect(commands.map((c) => c[0])).toEqual(['validate', 'plan', 'apply', 'plan']);
    const outputs: string[] = [];
    for (const args of commands) outputs.push((await run(args)).stdout);
    expect(p.text).toContain(outputs[0]?.trim());
    for (const line of (outputs[1] ?? '').trim().split('\n').slice(-2))
      expect(p.text).toContain(line.replace(/[0-9a-f]{12}$/, ''));
    const report = (outputs[2] ?? '').split('\n').filter((l) => /^(Apply|Converged):/.test(l));
    expect(report).toHaveLength(2);
    for (const line of report) expect(p.text).toContain(line);
    expect(p.text).toContain(outputs[3]?.split('\n')[0]);
  });

  it('environments: set up two environments with no account', async () => {
    const p = page('docs/environments.md');
    const section = blocksUnder(p, '## Set up two environments');
    for (const block of section.filter((b) => b.lang === 'yaml' && !b.fragment)) {
      const file = namedFile(p, block);
      expect(file).toBeDefined();
      await mkdir(join(ws.dir, dirname(file ?? '')), { recursive: true });
      await writeFile(join(ws.dir, file ?? ''), block.code);
    }
    const commands = section.filter((b) => b.lang === 'sh' && !b.code.includes('…')).flatMap(commandsOf);
    expect(commands.map((c) => c[0])).toEqual(['validate', 'envs', 'plan', 'apply', 'plan']);
    const outputs: string[] = [];
    for (const args of commands) outputs.push((await run(args)).stdout);
    expect(p.text).toContain(`It prints \`${outputs[0]?.trim()}\``);
    expect(outputs[1]).toContain('embedded .guidectl/staging.db');
    expect(outputs[4]).toMatch(/staging +0 +0 +0/);
  });
});

/** A guidectl command of a shell line: its words, and where its output goes (`| …`, `> FILE`). */
interface ShellCommand {
  readonly args: string[];
  readonly pipe?: string;
  readonly redirect?: string;
}

/** The guidectl command of each line of a shell block (`npx guidectl …`), quotes honoured. */
function shellCommands(block: CodeBlock): ShellCommand[] {
  return block.code
    .split('\n')
    .filter((line) => line.startsWith('npx guidectl '))
    .map((line) => {
      const words = [...line.slice('npx guidectl '.length).matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)];
      const cut = words.findIndex((m) => m[3] === '|' || m[3] === '>');
      const args = (cut < 0 ? words : words.slice(0, cut)).map((m) => m[1] ?? m[2] ?? m[3] ?? '');
      const after = words[cut]?.index;
      if (cut < 0 || after === undefined) return { args };
      const rest = line.slice('npx guidectl '.length + after + 1).trim();
      return words[cut]?.[3] === '|' ? { args, pipe: rest } : { args, redirect: rest };
    });
}

/**
 * `guidectl serve ARGS` in-process until it listens, then stopped as by Ctrl-C. A fixed port is
 * taken as `--port 0` (a free one): other tests run at the same time, and 8080 may be taken.
 */
async function serveUntilListening(args: string[], cwd: string): Promise<{ code: number; out: string }> {
  const port = args.indexOf('--port');
  const free = port < 0 ? args : args.map((a, i) => (i === port + 1 ? '0' : a));
  const stop = new AbortController();
  const io = captureIo({}, cwd, { stop: stop.signal });
  const running = runProgram(free, io);
  let done = false;
  void running.finally(() => {
    done = true;
  });
  while (!done && !io.out().includes('listening on')) await new Promise((r) => setTimeout(r, 10));
  stop.abort();
  return { code: await running, out: io.out() };
}

describe('the shell blocks marked <!-- runs --> run as written', () => {
  const marked = pages.flatMap((p) => codeBlocks(p).filter((b) => b.runs));
  let ws: Workspace;
  beforeAll(async () => {
    // The files the pages name: examples/, the envs/ of "Set up two environments", a guides/ folder.
    ws = await workspace();
    await cp(join(ROOT, 'examples'), join(ws.dir, 'examples'), { recursive: true });
    const environments = page('docs/environments.md');
    for (const block of blocksUnder(environments, '## Set up two environments')) {
      const file = namedFile(environments, block);
      if (block.lang !== 'yaml' || block.fragment || file === undefined) continue;
      await mkdir(join(ws.dir, dirname(file)), { recursive: true });
      await writeFile(join(ws.dir, file), block.code);
    }
    await mkdir(join(ws.dir, 'guides'));
    await cp(join(ROOT, 'examples', 'small-store.yaml'), join(ws.dir, 'guides', 'small-store.yaml'));
  });
  afterAll(() => ws.remove());

  it('marks a few blocks, shell ones that name no credentials', () => {
    expect(marked.length).toBeGreaterThanOrEqual(3);
    for (const block of marked) {
      expect(block.lang, `${block.page}:${block.line}`).toBe('sh');
      expect(block.code, `${block.page}:${block.line}`).not.toMatch(/WECHAT_|SECRET|--base-url/);
      expect(shellCommands(block).length, `${block.page}:${block.line}`).toBe(
        block.code.trim().split('\n').length,
      );
    }
  });

  for (const block of marked) {
    it(`${block.page}:${block.line}`, async () => {
      for (const { args, pipe, redirect } of shellCommands(block)) {
        const where = `${block.page}:${block.line}: guidectl ${args.join(' ')}`;
        if (args[0] === 'serve') {
          const served = await serveUntilListening(args, ws.dir);
          expect(served.code, where).toBe(0);
          expect(served.out, where).toContain('listening on');
          continue;
        }
        const run = await runCli(args, { cwd: ws.dir });
        expect(run.code, `${where}\n${run.stderr}`).toBe(0);
        // What a pipe reads here is JSON (jq); a redirected output is written where it says.
        if (pipe !== undefined) expect(() => parseJson(run.stdout), where).not.toThrow();
        if (redirect !== undefined) await writeFile(join(ws.dir, redirect), run.stdout);
      }
    });
  }
});
