import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { startLocalRegistry } from '../helpers/local-registry.js';

// The package as users install it: `npm pack`, then in an empty folder `npm install ./guidectl-X.tgz`
// and `npx guidectl …`, using only what the tarball holds.
//
// Trade-offs, so that this runs offline and in seconds:
// - The tarball is packed with --ignore-scripts: `npm test` has just built dist/, and the build
//   that `npm pack` runs (prepack) would rewrite dist/ under the other tests that run it.
// - The dependencies come from a registry on 127.0.0.1 serving the packages `npm ci` installed
//   here, packed from their folders (test/helpers/local-registry.ts): the same versions, resolved
//   by npm from the tarball's own package.json.
// - They are installed with --ignore-scripts, and better-sqlite3's addon, compiled once by
//   `npm ci`, is copied in, instead of compiling it again (75 s). Because scripts are not run, npm
//   cannot warn of them here; the test checks instead that the tarball's package.json has no
//   script npm runs (or warns of) when installing a package: preinstall, install, postinstall,
//   prepare.

const ROOT = process.cwd();
const run = promisify(execFile);
const work = await mkdtemp(join(tmpdir(), 'guidectl-pack-'));
afterAll(() => rm(work, { recursive: true, force: true }));

/** npm as a user without configuration of their own would run it, against `registry`. */
function npmEnv(registry: string): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: join(work, 'home'),
    NO_COLOR: '1',
    npm_config_registry: registry,
    npm_config_cache: join(work, 'cache'),
    npm_config_userconfig: join(work, 'npmrc'),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}

describe('the packed tarball', () => {
  it('installs in an empty folder and runs: --version, validate, plan on the embedded target, the library', async () => {
    await mkdir(join(work, 'home'));
    await writeFile(join(work, 'npmrc'), '');
    // The dependencies are packed for the registry while the package itself is: two npm at once.
    const registryStarted = startLocalRegistry(ROOT, await mkdtemp(join(work, 'registry-')));
    onTestFinished(async () => {
      await (await registryStarted.catch(() => undefined))?.close();
    });
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
      cwd: ROOT,
      env: npmEnv('http://127.0.0.1:9/'),
    });
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    if (info === undefined) throw new Error('npm pack packed nothing');
    const files = info.files.map((f) => f.path).sort();
    // What it holds: the built program and library, the schema, the README and the licence; no
    // tests, no sources, no source maps (they would name sources it does not hold).
    expect(files.filter((f) => !f.startsWith('dist/') && !f.startsWith('schema/'))).toEqual([
      'LICENSE',
      'README.md',
      'package.json',
    ]);
    expect(files).toEqual(expect.arrayContaining(['dist/cli/main.js', 'dist/index.js', 'dist/index.d.ts']));
    expect(files).toContain('schema/guidectl.schema.json');
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    // Of dist/cli/, only the bundle (its entry, its chunks and the validators beside them).
    expect(
      files.filter(
        (f) => f.startsWith('dist/cli/') && !/^dist\/cli\/(main|chunk-\w+|schema-\w+)\.js$/.test(f),
      ),
    ).toEqual([]);

    const env = npmEnv((await registryStarted).url);
    const app = join(work, 'app');
    await mkdir(app);
    await copyFile(join(work, info.filename), join(app, info.filename));
    const installed = await run('npm', ['install', `./${info.filename}`, '--ignore-scripts'], {
      cwd: app,
      env,
    });
    expect(`${installed.stdout}${installed.stderr}`).not.toMatch(/prepare/);
    const manifest = JSON.parse(await readFile(join(app, 'node_modules/guidectl/package.json'), 'utf8')) as {
      version: string;
      scripts?: Record<string, string>;
    };
    const installScripts = ['preinstall', 'install', 'postinstall', 'prepare'];
    expect(Object.keys(manifest.scripts ?? {}).filter((s) => installScripts.includes(s))).toEqual([]);
    // better-sqlite3's addon, as its install script would have built it.
    const release = 'node_modules/better-sqlite3/build/Release';
    await mkdir(join(app, release), { recursive: true });
    await copyFile(join(ROOT, release, 'better_sqlite3.node'), join(app, release, 'better_sqlite3.node'));

    const npx = await run('npx', ['guidectl', '--version'], { cwd: app, env });
    expect(npx.stdout.trim()).toBe(manifest.version);
    // What npx ran: the package's bin link. The commands below run it directly, as a script's
    // `guidectl` does, without npm's second of start-up each.
    const guidectl = (args: string[]) =>
      run(join(app, 'node_modules/.bin/guidectl'), args, { cwd: app, env });
    await copyFile(join(ROOT, 'examples/small-store.yaml'), join(app, 'store.yaml'));
    const validated = await guidectl(['validate', 'store.yaml']);
    expect(validated.stdout).toBe('valid: 1 file, 3 guides, 1 group\n');
    // The embedded target: better-sqlite3 loaded from the folder's node_modules.
    const planned = await guidectl(['plan', 'store.yaml', '--local-db', 'local.db']);
    expect(planned.stdout).toMatch(/^Plan: 4 to add, 1 to change, 0 to delete \(10 API calls\)\.$/m);
    const applied = await guidectl(['apply', 'store.yaml', '--local-db', 'local.db', '--auto-approve']);
    expect(applied.stdout).toContain('Converged: the account matches the files.');
    expect((await guidectl(['plan', 'store.yaml', '--local-db', 'local.db'])).stdout).toContain(
      'No changes.',
    );
    // The library, as `import … from 'guidectl'` finds it.
    const library = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const g = await import('guidectl'); console.log(typeof g.createGuideClient, typeof g.GuideService);",
      ],
      { cwd: app, env },
    );
    expect(library.stdout.trim()).toBe('function function');
  }, 180_000);
});
