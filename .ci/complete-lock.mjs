#!/usr/bin/env node
// Completes package-lock.json with the platform-specific optional packages that npm left out.
//
// Why: the registry reachable here lacks some platform builds (e.g. @biomejs/cli-android-arm64
// answers 404), and npm then writes a lock file without any of the other-platform optional
// packages of biome and rollup — which `npm ci` refuses ("Missing: … from lock file"). Each
// missing optional dependency gets an entry with its os/cpu/libc, so that `npm ci` accepts the
// lock and skips it on this platform as it would anyway. Run after every dependency change:
//   node .ci/complete-lock.mjs
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;

function guessPlatform(name) {
  const os = [
    'android',
    'darwin',
    'freebsd',
    'linux',
    'openbsd',
    'openharmony',
    'win32',
    'sunos',
    'aix',
    'netbsd',
  ].find((o) => name.includes(`-${o}-`));
  const cpu = ['arm64', 'x64', 'ia32', 'arm', 'loong64', 'ppc64', 'riscv64', 's390x', 'mips64el'].find((c) =>
    new RegExp(`-${c}(-|$)`).test(name),
  );
  const libc = name.includes('musl') ? ['musl'] : name.includes('-gnu') ? ['glibc'] : undefined;
  return { os: os ? [os] : undefined, cpu: cpu ? [cpu] : undefined, libc };
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (packages[key] !== undefined || packages[`${path}/${key}`] !== undefined) continue;
    let meta = {};
    try {
      const out = execFileSync(
        'npm',
        ['view', `${dep}@${version}`, 'os', 'cpu', 'libc', 'license', '--json'],
        {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      );
      meta = out.trim() === '' ? {} : JSON.parse(out);
    } catch {
      meta = {}; // not on this registry: infer from the name
    }
    const guess = guessPlatform(dep);
    // Keys in the order npm writes them, so that a later `npm install` leaves the file as it is.
    const os = meta.os ?? guess.os;
    const cpu = meta.cpu ?? guess.cpu;
    const libc = meta.libc ?? guess.libc;
    packages[key] = {
      version,
      ...(cpu ? { cpu } : {}),
      ...(entry.dev ? { dev: true } : {}),
      ...(libc ? { libc } : {}),
      ...(meta.license ? { license: meta.license } : {}),
      optional: true,
      ...(os ? { os } : {}),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lock: added ${added} optional platform entries`);
