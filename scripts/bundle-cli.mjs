// Part of `npm run build`, after tsc and build-validators: the command-line program as a few
// bundled files (dist/cli/main.js and its chunks) instead of some 300 modules of ours and of the
// packages, each found, read and compiled on every start (issue 10, goal 4). Each command's code
// stays a chunk of its own, loaded when the command runs (src/cli/program.ts imports it then).
// better-sqlite3 stays outside (a native addon); the schema's built validators are copied beside
// the chunks, where check-schema.ts looks for them. The library (dist/index.js) is tsc's output.
//
// esbuild: already installed for vitest (through vite), so bundling adds no package to the tree.
import { copyFile, readdir, rm } from 'node:fs/promises';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
const out = new URL('dist/cli/', root);

for (const name of await readdir(out)) {
  if (/^chunk-[A-Z0-9]+\.js$/.test(name)) await rm(new URL(name, out));
}
await build({
  entryPoints: [new URL('src/cli/main.ts', root).pathname],
  outdir: out.pathname,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunk-[hash]',
  external: ['better-sqlite3'],
  // Only the parts of undici the client uses (see undici-slim.cjs): 'undici' itself, not its files.
  plugins: [
    {
      name: 'undici-slim',
      setup: (b) =>
        b.onResolve({ filter: /^undici$/ }, () => ({
          path: new URL('scripts/undici-slim.cjs', root).pathname,
        })),
    },
  ],
  allowOverwrite: true,
  logLevel: 'warning',
  // The packages written as CommonJS require Node's own modules: give the bundle a real require.
  banner: {
    js: "import { createRequire as guidectlCreateRequire } from 'node:module';\nconst require = guidectlCreateRequire(import.meta.url);",
  },
});
for (const name of ['schema-strict.js', 'schema-parts.js']) {
  await copyFile(new URL(`dist/config/${name}`, root), new URL(name, out));
}
