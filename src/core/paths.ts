import * as nodePath from 'node:path';

/**
 * `file` relative to `folder` when it lies inside it, else undefined (the folder itself is not
 * inside it). Only `..` as a whole segment leads out: `..notes.yaml` is a file like any other.
 */
export function pathInside(folder: string, file: string): string | undefined {
  const relative = nodePath.relative(folder, file);
  const outside =
    relative === '' ||
    relative === '..' ||
    relative.startsWith(`..${nodePath.sep}`) ||
    nodePath.isAbsolute(relative);
  return outside ? undefined : relative;
}

/**
 * A file as it is shown to the user: relative to `cwd` when it is inside it, else as given (an
 * absolute path, or a name such as `:memory:`), so that a message never names a file by `../`.
 */
export function displayPath(file: string, cwd: string | undefined): string {
  if (cwd === undefined || !nodePath.isAbsolute(file)) return file;
  return pathInside(cwd, file) ?? file;
}
