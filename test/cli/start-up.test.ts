import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandsFor } from '../../src/cli/program.js';
import { formatCount } from '../../src/core/count.js';
import { CLI } from '../helpers/spawn.js';

// Start-up is most of a small command's time (issue 10, goal 4): a command loads only the
// packages it uses. Held by what is loaded, not by a clock: the built CLI runs under a module hook
// that names every module it loads.

const EXAMPLE = new URL('../../examples/small-store.yaml', import.meta.url);
let dir = '';
let hookUrl = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'guidectl-start-up-'));
  await writeFile(
    join(dir, 'hooks.mjs'),
    `export async function load(url, context, next) {
  process.stderr.write('LOADED ' + url + '\\n');
  return next(url, context);
}
`,
  );
  await writeFile(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
  );
  hookUrl = pathToFileURL(join(dir, 'register.mjs')).href;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/**
 * The packages (folders of node_modules) a run of the built CLI loads: loaded from node_modules,
 * or bundled into a file of dist/ that it loads (esbuild heads each module it bundles with a
 * `// node_modules/PACKAGE/…` line, the path as esbuild found it).
 */
function packagesLoaded(
  args: readonly string[],
): Promise<{ code: number | null; packages: string[]; builtins: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', hookUrl, CLI, ...args], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const packages = new Set<string>();
      const builtins = new Set<string>();
      for (const [, url = ''] of stderr.matchAll(/^LOADED (\S+)$/gm)) {
        if (url.startsWith('node:')) builtins.add(url);
        const direct = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
        if (direct !== undefined) packages.add(direct);
        else if (url.startsWith('file:') && url.includes('/dist/')) {
          const text = readFileSync(fileURLToPath(url), 'utf8');
          for (const m of text.matchAll(/^\/\/ (?:\S*\/)?node_modules\/((?:@[^/]+\/)?[^/]+)\//gm))
            packages.add(m[1] ?? '');
        }
      }
      resolve({ code, packages: [...packages].sort(), builtins: [...builtins].sort() });
    });
  });
}

describe('start-up', () => {
  it('registers only the command that runs; none for --version; all for help and unknown words', () => {
    expect(commandsFor(['validate', 'x.yaml'])).toEqual(['validate']);
    expect(commandsFor(['--no-color', 'plan', 'x.yaml', '--json'])).toEqual(['plan']);
    expect(commandsFor(['--version'])).toEqual([]);
    expect(commandsFor(['-V'])).toEqual([]);
    for (const argv of [
      [],
      ['--help'],
      ['help', 'plan'],
      ['valdate', 'x.yaml'],
      ['--no-color', '--version'],
    ]) {
      expect(commandsFor(argv)).toHaveLength(13);
    }
  });

  it('--version loads no package but commander', async () => {
    const { code, packages } = await packagesLoaded(['--version']);
    expect(code).toBe(0);
    expect(packages).toEqual(['commander']);
  });

  it('validate loads neither the HTTP client, the database, the diff, nor ajv (its validators are built with the package)', async () => {
    const { code, packages } = await packagesLoaded(['validate', new URL(EXAMPLE).pathname]);
    expect(code).toBe(0);
    expect(packages).toContain('yaml');
    for (const heavy of ['undici', 'better-sqlite3', 'diff', 'ajv']) expect(packages).not.toContain(heavy);
  });

  it('plan against the embedded local service loads neither undici nor node:http: its calls are answered in-process', async () => {
    const { code, packages, builtins } = await packagesLoaded(['plan', new URL(EXAMPLE).pathname]);
    expect(code).toBe(0);
    expect(packages).toContain('better-sqlite3');
    expect(packages).not.toContain('undici');
    expect(builtins).not.toContain('node:http');
  });

  it('show loads the renderers of a plan, not what plans one: no target, lock or live reader', async () => {
    const plan = await packagesLoaded([
      'plan',
      new URL(EXAMPLE).pathname,
      '--local-db',
      ':memory:',
      '--out',
      'p.json',
    ]);
    expect(plan.code).toBe(0);
    const { code, packages, builtins } = await packagesLoaded(['show', 'p.json']);
    expect(code).toBe(0);
    for (const heavy of ['undici', 'better-sqlite3', 'yaml', 'ajv']) expect(packages).not.toContain(heavy);
    // node:os: the lock's process (cli/lock-process.ts); node:v8: the heap sizing of loadFiles.
    for (const builtin of ['node:os', 'node:v8']) expect(builtins).not.toContain(builtin);
  });

  it('counts are written as toLocaleString writes them, without setting up ICU', () => {
    const values = [
      0,
      1,
      12,
      999,
      1_000,
      1_001,
      12_345,
      999_999,
      1_000_000,
      20_153,
      -1,
      -1_234,
      2 ** 53 - 1,
      1.5,
    ];
    for (const n of values) expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
  });
});
