import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** What the soft limit is taken to be when neither the kernel nor a shell says. */
const USUAL_OPEN_FILE_LIMIT = 1_024;

/**
 * A soft limit as `/proc/self/limits` ("Max open files") or `ulimit -n` write it: a whole number,
 * or `unlimited` (taken as 1,000,000); undefined for anything else.
 */
export function parseOpenFileLimit(text: string): number | undefined {
  if (text === 'unlimited') return 1_000_000;
  return /^[0-9]+$/.test(text) ? Number(text) : undefined;
}

/**
 * The soft limit on open files of this process (RLIMIT_NOFILE), which node does not expose: read
 * from /proc/self/limits on Linux, else from `ulimit -n` in a shell (which inherits it); 1,024
 * when neither says.
 */
export function openFileLimit(): number {
  try {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    const soft = parseOpenFileLimit(/^Max open files\s+(\S+)/m.exec(limits)?.[1] ?? '');
    if (soft !== undefined) return soft;
  } catch {
    // Not Linux: ask a shell.
  }
  try {
    const soft = execFileSync('/bin/sh', ['-c', 'ulimit -n'], { encoding: 'utf8', timeout: 2_000 }).trim();
    return parseOpenFileLimit(soft) ?? USUAL_OPEN_FILE_LIMIT;
  } catch {
    // No shell: the usual default.
  }
  return USUAL_OPEN_FILE_LIMIT;
}
