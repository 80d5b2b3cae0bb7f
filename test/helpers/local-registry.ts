import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A package as the registry serves it: its manifest and its tarball's bytes. */
interface Served {
  readonly manifest: Record<string, unknown>;
  readonly tarball: Buffer;
}

/**
 * An npm registry on 127.0.0.1 that serves the packages installed in `root`'s node_modules which
 * the package needs at run time (the entries of package-lock.json not marked dev), each packed
 * with `npm pack` from its installed folder: an install from it resolves the package's
 * dependencies as one from the public registry would, offline and in seconds.
 */
export async function startLocalRegistry(
  root: string,
  workDir: string,
): Promise<{ readonly url: string; close(): Promise<void> }> {
  const lock = JSON.parse(await readFile(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  const folders = Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith('node_modules/') && entry.dev !== true)
    .map(([path]) => resolve(root, path));
  // One npm process packs them all; scripts are not run (they are the packages' own builds).
  const { stdout } = await run(
    'npm',
    ['pack', ...folders, '--ignore-scripts', '--json', '--pack-destination', workDir],
    { cwd: workDir, maxBuffer: 64 * 1024 * 1024 },
  );
  const packed = JSON.parse(stdout) as { filename: string }[];
  const byName = new Map<string, Served[]>();
  for (const [i, folder] of folders.entries()) {
    const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    const file = packed[i]?.filename;
    if (file === undefined) throw new Error(`npm pack gave no tarball for ${folder}`);
    const tarball = await readFile(join(workDir, file));
    const name = String(manifest['name']);
    byName.set(name, [...(byName.get(name) ?? []), { manifest, tarball }]);
  }

  let base = '';
  const packument = (name: string, versions: readonly Served[]): object => ({
    name,
    'dist-tags': { latest: String(versions.at(-1)?.manifest['version']) },
    versions: Object.fromEntries(
      versions.map(({ manifest, tarball }) => {
        const version = String(manifest['version']);
        const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
        const shasum = createHash('sha1').update(tarball).digest('hex');
        const url = `${base}/-/${encodeURIComponent(name)}/${version}.tgz`;
        return [version, { ...manifest, dist: { tarball: url, integrity, shasum } }];
      }),
    ),
  });
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.slice(1));
    const tgz = /^-\/(.+)\/([^/]+)\.tgz$/.exec(path);
    if (tgz !== null) {
      const served = byName.get(tgz[1] ?? '')?.find((s) => s.manifest['version'] === tgz[2]);
      if (served === undefined) return void res.writeHead(404).end();
      return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(served.tarball);
    }
    const versions = byName.get(path);
    if (versions === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument(path, versions)));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
