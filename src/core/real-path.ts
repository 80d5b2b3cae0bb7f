import { readlink, realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { errorCode } from './errors.js';

/**
 * The file a path stands for, through every symbolic link: the real path of the file, or — for a
 * file not made yet — where a dangling link points, in the real path of its folder. A path that
 * cannot be resolved (its folder does not exist, a loop of links) is given back as it is, for
 * whatever opens it to say what is wrong. Used where a link must lead to the file rather than be
 * replaced or get around it: a database's lock, a file written whole.
 */
export async function realPathOf(path: string): Promise<string> {
  let at = path;
  for (let hops = 0; hops < 40; hops++) {
    try {
      return await realpath(at);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') return at;
    }
    try {
      at = resolve(dirname(at), await readlink(at));
    } catch {
      break; // not a link: a file not made yet
    }
  }
  try {
    return join(await realpath(dirname(at)), basename(at));
  } catch {
    return at;
  }
}
