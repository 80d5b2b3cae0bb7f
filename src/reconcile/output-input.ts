import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
// The rule alone, not config/index.js: `plan --out`'s check loads no YAML.
import { isConfigFileName } from '../config/file-names.js';
import { realPathOf } from '../core/real-path.js';

/** Where an output is one of the inputs: a file given (or of a folder given), or a new file of a folder given. */
export type Input = { readonly kind: 'file' | 'folder'; readonly shown: string };

/**
 * Whether `real` (a real path) is one of `paths` (relative to `cwd`): a file given or a
 * desired-state file of a folder given ('file'), or a desired-state file not yet made in a folder
 * given ('folder': the folder would read it next time); undefined otherwise.
 */
export async function inputAt(
  real: string,
  paths: readonly string[],
  cwd: string,
): Promise<Input | undefined> {
  for (const given of paths) {
    const path = resolve(cwd, given);
    const folder = await stat(path).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!folder) {
      if ((await realPathOf(path)) === real) return { kind: 'file', shown: given };
      continue;
    }
    const names = await readdir(path).catch((): string[] => []);
    for (const name of names.filter(isConfigFileName)) {
      if ((await realPathOf(resolve(path, name))) === real) return { kind: 'file', shown: join(given, name) };
    }
    if (dirname(real) === (await realPathOf(path)) && isConfigFileName(basename(real)))
      return { kind: 'folder', shown: given };
  }
  return undefined;
}
