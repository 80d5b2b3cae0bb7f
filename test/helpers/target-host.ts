import type { TargetHost } from '../../src/index.js';

/** A target host in `cwd` that records the notices a CLI would print on stderr. */
export function hostIn(cwd: string, env: Record<string, string> = {}): TargetHost & { lines: string[] } {
  const lines: string[] = [];
  return { env, cwd, stopSignal: new AbortController().signal, notice: (line) => lines.push(line), lines };
}
