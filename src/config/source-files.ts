import * as fsp from 'node:fs/promises';
import * as nodePath from 'node:path';
import { compareText } from '../core/compare-text.js';
import type { Diagnostic, DiagnosticCode } from '../core/diagnostics.js';
import { errorCode, errorMessage } from '../core/errors.js';
import { pathInside } from '../core/paths.js';
import { ifDefined } from '../core/records.js';
import { isConfigFileName } from './file-names.js';
import { positionOf } from './parse-yaml.js';
import { suggest } from './suggest.js';

/** The file-system reads the loader makes; injected in tests. Paths are as given (absolute or relative). */
export interface ConfigFs {
  stat(path: string): Promise<{ isFile(): boolean; isDirectory(): boolean; readonly size: number }>;
  readdir(path: string): Promise<string[]>;
  readFile(path: string): Promise<Uint8Array>;
  /**
   * The path with every symbolic link resolved. Without it, files of a folder are not checked for
   * links that lead out of the folder.
   */
  realpath?(path: string): Promise<string>;
  /** The target of a symbolic link (to tell a broken link from a missing file). */
  readlink?(path: string): Promise<string>;
}

export const nodeConfigFs: ConfigFs = {
  stat: (path) => fsp.stat(path),
  readdir: (path) => fsp.readdir(path),
  readFile: (path) => fsp.readFile(path),
  realpath: (path) => fsp.realpath(path),
  readlink: (path) => fsp.readlink(path),
};

/**
 * Files larger than this are refused before they are read (a log or a database named by mistake).
 * 64 MiB holds the service's limit of 100,000 guides in one file at up to 670 bytes a guide; a
 * guide with a nickname, a picture, three quick replies and a welcome message takes about 250.
 */
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;

export interface ReadSourceFilesOptions {
  readonly fs: ConfigFs;
  /** Relative paths are resolved against this; when absent they are used as given. */
  readonly cwd?: string;
  readonly maxFileBytes: number;
}

/** A file's text, decoded from UTF-8 without its byte-order mark. */
export interface SourceFile {
  readonly file: string;
  readonly text: string;
}

export interface ReadSourceFilesResult {
  /** In the order of the paths given; a folder's files sorted by name; each file once. */
  readonly files: SourceFile[];
  readonly diagnostics: Diagnostic[];
  /** The size in bytes of the files read. */
  readonly bytes: number;
}

/**
 * Expands each path (a file, or a folder of `*.yaml`/`*.yml` files, not recursive) and reads the
 * files. Problems with paths and bytes become diagnostics at 1:1 of the path concerned.
 */
export async function readSourceFiles(
  paths: readonly string[],
  options: ReadSourceFilesOptions,
): Promise<ReadSourceFilesResult> {
  const { fs, cwd } = options;
  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();
  const toRead: string[] = [];

  // Keyed by the real path: a file given twice, once through a symbolic link (or a folder and a
  // link to it, or a link in the folder to a file of it), is one file, read once, not a file that
  // defines each of its guides twice.
  const add = (file: string, real: string | undefined): void => {
    const key = real ?? nodePath.normalize(file);
    if (seen.has(key)) return;
    seen.add(key);
    toRead.push(file);
  };

  for (const given of paths) {
    const path = cwd === undefined ? given : nodePath.resolve(cwd, given);
    let stats: Awaited<ReturnType<ConfigFs['stat']>>;
    try {
      stats = await fs.stat(path);
    } catch (error) {
      diagnostics.push(
        (await brokenLink(fs, path, error)) ?? pathDiagnostic(path, error, await nearName(fs, path, given)),
      );
      continue;
    }
    if (stats.isDirectory()) {
      let names: string[];
      try {
        names = await fs.readdir(path);
      } catch (error) {
        diagnostics.push(pathDiagnostic(path, error));
        continue;
      }
      const candidates = names.filter(isConfigFileName).sort(compareText);
      const problemsBefore = diagnostics.length;
      const files: { file: string; real: string | undefined }[] = [];
      const folder = await realPathIn(fs, path);
      for (const name of candidates) {
        const file = nodePath.join(path, name);
        try {
          if (!(await fs.stat(file)).isFile()) continue;
          const real = await realPathIn(fs, file);
          // A folder given is a promise about what is read: a link to `~/.env` must not be read as
          // YAML and quoted in diagnostics.
          if (folder === undefined || real === undefined || pathInside(folder, real) !== undefined)
            files.push({ file, real });
          else diagnostics.push(outsideDiagnostic(file, real));
        } catch (error) {
          diagnostics.push((await brokenLink(fs, file, error)) ?? pathDiagnostic(file, error));
        }
      }
      if (files.length === 0 && diagnostics.length === problemsBefore) {
        diagnostics.push(
          fileDiagnostic(
            path,
            'folder-empty',
            'the folder holds no *.yaml or *.yml file',
            'give a folder of desired-state files, or the path of one file; subfolders are not read',
          ),
        );
      }
      for (const { file, real } of files) add(file, real);
    } else if (stats.isFile()) {
      add(path, await realPathIn(fs, path).catch(() => undefined));
    } else {
      diagnostics.push(
        fileDiagnostic(
          path,
          'path-unreadable',
          'this is neither a file nor a folder (a named pipe, a device or a socket); it is not read',
          'give a YAML file or a folder',
        ),
      );
    }
  }

  const files: SourceFile[] = [];
  let bytes = 0;
  for (const file of toRead) {
    const result = await readSourceFile(file, options);
    if ('diagnostic' in result) {
      diagnostics.push(result.diagnostic);
    } else {
      files.push(result.source);
      bytes += result.bytes;
    }
  }
  return { files, diagnostics, bytes };
}

/** The path with its symbolic links resolved by the injected file system (not core's realPathOf); undefined when it cannot say. */
async function realPathIn(fs: ConfigFs, path: string): Promise<string | undefined> {
  return fs.realpath === undefined ? undefined : fs.realpath(path);
}

function outsideDiagnostic(file: string, target: string): Diagnostic {
  return fileDiagnostic(
    file,
    'file-outside-folder',
    `this is a symbolic link to ${target}, outside the folder given; it is not read`,
    'only the files inside a folder are read: copy the file into the folder, or give its path by name',
  );
}

/**
 * Reads one file as text, or says why it cannot be: too large (before the read, and after it if
 * the file grew in between), not found, not UTF-8 text. Desired-state files and the files they
 * name (a task's `recipients_file`) are read by this one reader.
 */
export async function readSourceFile(
  file: string,
  options: Pick<ReadSourceFilesOptions, 'fs' | 'maxFileBytes'>,
): Promise<{ source: SourceFile; bytes: number } | { diagnostic: Diagnostic }> {
  const { fs, maxFileBytes } = options;
  try {
    const stats = await fs.stat(file);
    // A named pipe or a device would block the read, or never end: refused before it is opened.
    if (!stats.isFile()) return { diagnostic: notRegular(file, stats) };
    const { size } = stats;
    if (size > maxFileBytes) return { diagnostic: tooLarge(file, size, maxFileBytes) };
    const bytes = await fs.readFile(file);
    // The file may have grown between stat and read.
    if (bytes.length > maxFileBytes) return { diagnostic: tooLarge(file, bytes.length, maxFileBytes) };
    const decoded = decodeText(file, bytes);
    return 'text' in decoded ? { source: decoded, bytes: bytes.length } : { diagnostic: decoded };
  } catch (error) {
    return { diagnostic: (await brokenLink(fs, file, error)) ?? pathDiagnostic(file, error) };
  }
}

function notRegular(file: string, stats: { isDirectory(): boolean }): Diagnostic {
  return stats.isDirectory()
    ? fileDiagnostic(file, 'path-unreadable', 'this is a folder, not a file')
    : fileDiagnostic(
        file,
        'path-unreadable',
        'this is not a regular file (a named pipe, a device or a socket); it is not read',
        'give a YAML file or a folder',
      );
}

/** A path not found because it is a symbolic link to nothing: said so, with where it leads. */
async function brokenLink(fs: ConfigFs, path: string, error: unknown): Promise<Diagnostic | undefined> {
  if (errorCode(error) !== 'ENOENT' || fs.readlink === undefined) return undefined;
  let target: string;
  try {
    target = await fs.readlink(path);
  } catch {
    return undefined;
  }
  return fileDiagnostic(
    path,
    'path-not-found',
    `this is a broken symbolic link: it leads to ${target}, which does not exist`,
    'create what it leads to, point the link elsewhere, or remove the link',
  );
}

function tooLarge(file: string, size: number, limit: number): Diagnostic {
  return fileDiagnostic(
    file,
    'file-too-large',
    `the file is ${formatBytes(size)}; the limit is ${formatBytes(limit)}`,
    'split it into several files in one folder and give the folder',
  );
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1).replace(/\.0$/, '')} KiB`;
  return `${n} bytes`;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** The first control character that YAML does not allow anywhere in a file (tab, LF and CR are allowed), or -1. */
function findControlCharacter(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f) return i;
  }
  return -1;
}

/** Decodes UTF-8 text, refusing binary files, other encodings and control characters, with their position. */
function decodeText(file: string, bytes: Uint8Array): SourceFile | Diagnostic {
  const notText = (message: string, hint: string, line = 1, column = 1): Diagnostic => ({
    ...fileDiagnostic(file, 'file-not-text', message, hint),
    line,
    column,
  });
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return notText('the file is encoded in UTF-16', 'save it as UTF-8');
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    const { line, column } = positionOf(utf8Prefix(bytes, offset), offset);
    return notText(
      `the file is not UTF-8 text: byte 0x${(bytes[offset] ?? 0).toString(16).padStart(2, '0')} is not valid UTF-8`,
      'is this a binary file? Otherwise save it as UTF-8',
      line,
      column,
    );
  }
  const control = findControlCharacter(text);
  if (control !== -1) {
    const { line, column } = positionOf(text, control);
    const codePoint = text.charCodeAt(control);
    return notText(
      codePoint === 0
        ? 'the file contains a NUL byte; it looks like a binary file, not YAML'
        : `the file contains the control character U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}, which YAML does not allow`,
      'give a YAML text file; to put a control character in a value, write it as an escape in "double quotes" such as "\\t"',
      line,
      column,
    );
  }
  return { file, text };
}

/** The offset of the first byte that does not belong to a valid UTF-8 sequence. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    const need =
      b < 0x80
        ? 0
        : b >= 0xc2 && b <= 0xdf
          ? 1
          : b >= 0xe0 && b <= 0xef
            ? 2
            : b >= 0xf0 && b <= 0xf4
              ? 3
              : -1;
    if (need < 0) return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
    }
    // Overlong, surrogate and out-of-range forms are rejected by the decoder; point at their start.
    if (need === 2 && !validThreeByte(b, bytes[i + 1] ?? 0)) return i;
    if (need === 3 && !validFourByte(b, bytes[i + 1] ?? 0)) return i;
    i += need + 1;
  }
  return bytes.length;
}

function validThreeByte(b0: number, b1: number): boolean {
  if (b0 === 0xe0) return b1 >= 0xa0;
  if (b0 === 0xed) return b1 <= 0x9f;
  return true;
}

function validFourByte(b0: number, b1: number): boolean {
  if (b0 === 0xf0) return b1 >= 0x90;
  if (b0 === 0xf4) return b1 <= 0x8f;
  return true;
}

/** The text before `offset`, good enough to count lines and columns. */
function utf8Prefix(bytes: Uint8Array, offset: number): string {
  return new TextDecoder('utf-8').decode(bytes.subarray(0, offset));
}

function fileDiagnostic(file: string, code: DiagnosticCode, message: string, hint?: string): Diagnostic {
  return {
    severity: 'error',
    code,
    message,
    file,
    line: 1,
    column: 1,
    ...ifDefined('hint', hint),
  };
}

/**
 * For a path that does not exist, the path of a file or folder next to it with a near name
 * (`examples/small-stor.yaml` → `examples/small-store.yaml`), written as the user wrote theirs.
 * The first missing segment is the one guessed, a folder too (`exmaples/small-store.yaml` →
 * `examples/small-store.yaml`), then each missing one after it; when one after it has no near
 * name, the guess is the folder (`exmaples/nothing.yaml` → `examples/`).
 */
async function nearName(fs: ConfigFs, path: string, given: string): Promise<string | undefined> {
  let folder = nodePath.dirname(path);
  const rest = [nodePath.basename(path)];
  for (let kind = await kindOf(fs, folder); kind !== 'folder'; kind = await kindOf(fs, folder)) {
    // Below a file (ENOTDIR), no name is near: the mistake is not a spelling.
    if (kind === 'file' || nodePath.dirname(folder) === folder) return undefined;
    rest.unshift(nodePath.basename(folder));
    folder = nodePath.dirname(folder);
  }
  const fixed: string[] = [];
  for (const name of rest) {
    const found = fixed.length > 0 && (await kindOf(fs, nodePath.join(folder, name))) !== 'none';
    const near = found ? name : await nearIn(fs, folder, name);
    if (near === undefined) break;
    fixed.push(near);
    folder = nodePath.join(folder, near);
  }
  if (fixed.length === 0) return undefined;
  const segments = nodePath
    .normalize(given)
    .replace(/[\\/]+$/, '')
    .split(/[\\/]/);
  const head = segments.slice(0, Math.max(0, segments.length - rest.length));
  const shown = [...head, ...fixed].join(nodePath.sep);
  return fixed.length < rest.length ? `${shown}${nodePath.sep}` : shown;
}

/** The name in `folder` near `name`, if one is. Hidden ones only for a hidden name: `.guidectl` is no guess for `guides`. */
async function nearIn(fs: ConfigFs, folder: string, name: string): Promise<string | undefined> {
  let names: string[];
  try {
    names = await fs.readdir(folder);
  } catch {
    return undefined;
  }
  return suggest(
    name,
    names.filter((n) => n !== name && (name.startsWith('.') || !n.startsWith('.'))),
  );
}

async function kindOf(fs: ConfigFs, path: string): Promise<'folder' | 'file' | 'none'> {
  try {
    return (await fs.stat(path)).isDirectory() ? 'folder' : 'file';
  } catch {
    return 'none';
  }
}

function pathDiagnostic(path: string, error: unknown, near?: string): Diagnostic {
  switch (errorCode(error)) {
    case 'ENOENT':
    case 'ENOTDIR':
      return fileDiagnostic(
        path,
        'path-not-found',
        `no such file or folder${near === undefined ? '' : `; did you mean ${near}?`}`,
        'check the path and its spelling',
      );
    case 'EACCES':
    case 'EPERM':
      return fileDiagnostic(
        path,
        'path-unreadable',
        'permission denied: this user may not read it',
        'check the permissions of the file and of the folders above it',
      );
    case 'EISDIR':
      return fileDiagnostic(path, 'path-unreadable', 'this is a folder, not a file');
    case 'ELOOP':
      return fileDiagnostic(path, 'path-unreadable', 'too many symbolic links (a link loop?)');
    default: {
      const detail = errorMessage(error);
      return fileDiagnostic(path, 'path-unreadable', `cannot read it: ${detail}`);
    }
  }
}
