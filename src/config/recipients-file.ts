import * as nodePath from 'node:path';
import { compareText } from '../core/compare-text.js';
import type { Diagnostic } from '../core/diagnostics.js';
import { quote } from '../core/diagnostics.js';
import { OPENID, OPENID_RULE } from '../core/guide-rules.js';
import { pathInside } from '../core/paths.js';
import type { Indexed } from '../core/positions.js';
import { isRecord } from '../core/records.js';
import { type ConfigFs, readSourceFile } from './source-files.js';

/**
 * A task's `recipients_file`: one openid a line, or a CSV file whose header line has an `openid`
 * column (any other columns are ignored), its fields separated by commas, semicolons (what Excel
 * writes where the comma is the decimal mark) or tabs, as the header shows. Blank lines and lines
 * starting with `#` are skipped.
 * Problems are diagnostics at the CSV's line and column; a repeated openid is a warning.
 */
export interface RecipientsRead {
  /** Distinct openids, sorted; empty when the file has none (an error says so). */
  readonly openids: string[];
  readonly diagnostics: Diagnostic[];
}

/** What separates the fields of a CSV file: the first that gives its header an `openid` column. */
type Delimiter = ',' | ';' | '\t';
const DELIMITERS: readonly Delimiter[] = [',', ';', '\t'];

/** Splits one CSV line into its fields with their columns (1-based); `"a ""b"""` is `a "b"`. */
function csvFields(line: string, delimiter: Delimiter): { value: string; column: number }[] {
  const fields: { value: string; column: number }[] = [];
  let i = 0;
  for (;;) {
    let start = i;
    while (line[start] === ' ' || line[start] === '\t') start++;
    if (line[start] === '"') i = start;
    const column = i + 1;
    let value = '';
    if (line[i] === '"') {
      i++;
      while (i < line.length) {
        if (line[i] === '"' && line[i + 1] === '"') {
          value += '"';
          i += 2;
        } else if (line[i] === '"') {
          i++;
          break;
        } else value += line[i++];
      }
      while (i < line.length && line[i] !== delimiter) i++;
    } else {
      const end = line.indexOf(delimiter, i);
      value = line.slice(i, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end;
    }
    fields.push({ value: value.trim(), column });
    if (line[i] !== delimiter) return fields;
    i++;
  }
}

/**
 * The header of a CSV file, if `line` is one: the delimiter that gives it an `openid` column (a
 * comma first), and that column; else the delimiter that splits it most, with no column.
 */
function readHeader(line: string): {
  delimiter: Delimiter;
  fields: { value: string; column: number }[];
  openid?: number;
} {
  let most: { delimiter: Delimiter; fields: { value: string; column: number }[] } | undefined;
  for (const delimiter of DELIMITERS) {
    const fields = csvFields(line, delimiter);
    const openid = fields.findIndex((f) => f.value.toLowerCase() === 'openid');
    if (openid >= 0) return { delimiter, fields, openid };
    if (most === undefined || fields.length > most.fields.length) most = { delimiter, fields };
  }
  return most ?? { delimiter: ',', fields: csvFields(line, ',') };
}

const DELIMITER_NAMES: Readonly<Record<Delimiter, string>> = {
  ',': 'commas',
  ';': 'semicolons',
  '\t': 'tabs',
};

function isDelimiter(c: string): c is Delimiter {
  return c === ',' || c === ';' || c === '\t';
}

/**
 * What is wrong with a value that is not an openid, without quoting it: the file may hold what is
 * not meant to be shown (a line of a `.env` named by mistake), and the line and column, with the
 * length or the place of the first character an openid cannot hold, are enough to fix a typo.
 */
function notOpenid(value: string): string {
  if (value === '') return 'this line has no openid';
  const characters = [...value];
  const bad = characters.findIndex((c) => !/^[A-Za-z0-9_-]$/.test(c));
  if (bad >= 0) {
    const c = characters[bad] ?? '';
    const where = `not an openid: its character ${bad + 1} (of ${characters.length})`;
    // Fields without a header line: say what the file looks like, and what makes it read so.
    if (isDelimiter(c))
      return `${where} is ${c === '\t' ? 'a tab' : `"${c}"`}: the file looks like CSV separated by ${DELIMITER_NAMES[c]}; give it a header line with an "openid" column`;
    const kind = /^\s$/.test(c) ? 'a space' : 'a character an openid cannot hold';
    return `${where} is ${kind}; ${OPENID_RULE}`;
  }
  return `not an openid: it is ${characters.length} characters; ${OPENID_RULE}`;
}

/**
 * Reads the openids of one recipients file's text (pure). Messages name lines and columns, never
 * the text of a line that is not an openid.
 */
export function parseRecipients(file: string, text: string): RecipientsRead {
  const diagnostics: Diagnostic[] = [];
  const firstLine = new Map<string, number>();
  const at = (line: number, column: number, severity: Diagnostic['severity'], code: Diagnostic['code']) => ({
    severity,
    code,
    file,
    line,
    column,
  });
  let column: number | undefined; // the openid column of a CSV file, once its header is read
  let delimiter: Delimiter = ',';
  let headerSeen = false;
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) return;
    if (!headerSeen) {
      headerSeen = true;
      const header = readHeader(raw);
      if (header.openid !== undefined) {
        column = header.openid;
        delimiter = header.delimiter;
        return;
      }
      const n = header.fields.length;
      if (n > 1) {
        const by = header.delimiter === ',' ? '' : `, separated by ${DELIMITER_NAMES[header.delimiter]}`;
        diagnostics.push({
          ...at(line, 1, 'error', 'recipients-file-bad-line'),
          message: `this CSV header has no "openid" column (it has ${n} columns${by})`,
          hint: 'name the column of the openids "openid", or give one openid a line without a header',
        });
        column = -1;
        return;
      }
    }
    if (column === -1) return;
    const field = csvFields(raw, delimiter)[column ?? 0];
    const value = field?.value ?? '';
    if (!OPENID.test(value)) {
      diagnostics.push({
        ...at(line, field?.column ?? 1, 'error', 'recipients-file-bad-line'),
        message: notOpenid(value),
        hint: 'one openid a line, or a CSV file with an "openid" column; lines starting with # are skipped',
      });
      return;
    }
    const earlier = firstLine.get(value);
    if (earlier !== undefined) {
      diagnostics.push({
        ...at(line, field?.column ?? 1, 'warning', 'recipient-duplicate'),
        message: `recipient ${value} is listed twice (first at line ${earlier}); it is sent once`,
        hint: 'remove one; recipients are a set',
      });
      return;
    }
    firstLine.set(value, line);
  });
  if (firstLine.size === 0 && column !== -1 && !diagnostics.some((d) => d.severity === 'error')) {
    diagnostics.push({
      ...at(1, 1, 'error', 'recipients-file-empty'),
      message: 'the recipients file lists no openid; a task is sent to at least one customer',
      hint: 'one openid a line, or a CSV file with an "openid" column',
    });
  }
  return { openids: [...firstLine.keys()].sort(compareText), diagnostics };
}

/** What `readRecipientsFiles` needs of a task: its file of recipients, or its list. */
export interface RecipientsOfTask {
  readonly recipients_file?: string;
  readonly recipients?: unknown;
}

/**
 * The tasks of a parsed file whose recipients come from a `recipients_file` (as text), with their
 * indexes: not those with `recipients` too (the rules report them; the file is not read), nor an
 * empty path (the schema reports it; read, it would be the YAML file's folder).
 */
export function recipientsFileTasks(
  value: unknown,
): Indexed<RecipientsOfTask & { recipients_file: string }>[] {
  const tasks = isRecord(value) ? value['tasks'] : undefined;
  if (!Array.isArray(tasks)) return [];
  const out: Indexed<RecipientsOfTask & { recipients_file: string }>[] = [];
  tasks.forEach((task: unknown, index) => {
    if (!isRecord(task) || typeof task['recipients_file'] !== 'string') return;
    if (task['recipients'] !== undefined || task['recipients_file'].trim() === '') return;
    out.push({ index, value: { recipients_file: task['recipients_file'] } });
  });
  return out;
}

/**
 * A recipients file as read: its openids with the problems of its lines (at their places in it),
 * or why it was not read, to be said at the `recipients_file` of each task that names it.
 */
export type RecipientsFileRead =
  | {
      readonly kind: 'read';
      readonly openids: readonly string[];
      readonly diagnostics: readonly Diagnostic[];
    }
  | {
      readonly kind: 'failed';
      readonly code: Diagnostic['code'];
      readonly message: string;
      readonly hint: string;
    };

/** The key of a recipients file read: the YAML file that names it and the path as named (after `${…}`). */
export function recipientsFileKey(yamlFile: string, path: string): string {
  return `${yamlFile}\u0000${path}`;
}

/**
 * Reads each recipients file that the YAML files name (`paths`, each as written there, or as an
 * environment's `${…}` made it), once, by {@link recipientsFileKey}.
 */
export async function readRecipientsFiles(
  files: readonly { readonly file: string; readonly paths: Iterable<string> }[],
  fs: ConfigFs,
  maxFileBytes: number,
): Promise<Map<string, RecipientsFileRead>> {
  const out = new Map<string, RecipientsFileRead>();
  for (const { file: yamlFile, paths } of files) {
    const folder = yamlFolder(yamlFile, fs);
    for (const path of paths) {
      const key = recipientsFileKey(yamlFile, path);
      if (!out.has(key)) out.set(key, await readRecipientsFile(folder, path, fs, maxFileBytes));
    }
  }
  return out;
}

async function readRecipientsFile(
  folder: YamlFolder,
  given: string,
  fs: ConfigFs,
  maxFileBytes: number,
): Promise<RecipientsFileRead> {
  const place = await placeRecipientsFile(folder, given, fs);
  if ('refused' in place) {
    const hint = place.refused === 'recipients-file-hidden' ? HIDDEN_HINT : OUTSIDE_HINT;
    return { kind: 'failed', code: place.refused, message: place.message, hint };
  }
  const file = await readSourceFile(place.path, { fs, maxFileBytes });
  if ('diagnostic' in file && file.diagnostic.code === 'file-not-text') {
    return {
      kind: 'failed',
      code: 'recipients-file-not-text',
      message: `recipients_file ${quote(given)} is not UTF-8 text (line ${file.diagnostic.line}: ${file.diagnostic.message.replace(/^the file is not UTF-8 text: /, '')})`,
      hint: 'save the list as UTF-8 (a spreadsheet: "CSV UTF-8"); an openid is letters, digits, "_" and "-"',
    };
  }
  if ('diagnostic' in file) {
    return {
      kind: 'failed',
      code: 'recipients-file-not-found',
      message: `recipients_file ${quote(given)} cannot be read: ${file.diagnostic.message}`,
      hint: 'the path is relative to this YAML file',
    };
  }
  const read = parseRecipients(place.path, file.source.text);
  return { kind: 'read', openids: read.openids, diagnostics: read.diagnostics };
}

const HIDDEN_HINT =
  'give the list a name that is not hidden (no part of the path starting with "."), e.g. customers/spring-vip.csv';

const OUTSIDE_HINT =
  'keep the list of recipients in the folder of this YAML file or below it, and name it relative to this file (e.g. customers/spring-vip.csv)';

/** A YAML file's folder, and its real path, resolved at most once for all the tasks of the file. */
interface YamlFolder {
  readonly path: string;
  real(): Promise<string>;
}

function yamlFolder(yamlFile: string, fs: ConfigFs): YamlFolder {
  const path = nodePath.resolve(nodePath.dirname(yamlFile));
  let real: Promise<string> | undefined;
  return { path, real: () => (real ??= fs.realpath?.(path) ?? Promise.resolve(path)) };
}

type Refusal = { refused: 'recipients-file-outside-folder' | 'recipients-file-hidden'; message: string };

/**
 * Where a task's `recipients_file` is, or why it is not read: a pull request's YAML must not make
 * `validate` read (and report the lines of) any file of the machine, such as `../.env` or
 * `/etc/shadow`. So the file must lie in the YAML file's folder or below it, also once symbolic
 * links are resolved; and no part of its path may be hidden (start with "."), since a `.env` or
 * `.git/…` beside the YAML file holds secrets, whose bare-token lines would pass for openids and
 * be sent to the service as recipients.
 */
async function placeRecipientsFile(
  folder: YamlFolder,
  given: string,
  fs: ConfigFs,
): Promise<{ path: string } | Refusal> {
  const written = `recipients_file ${quote(given)}`;
  const outside = (why: string): Refusal => ({
    refused: 'recipients-file-outside-folder',
    message: `${written} ${why}; it is not read`,
  });
  const hidden = (why: string): Refusal => ({
    refused: 'recipients-file-hidden',
    message: `${written} ${why} (a name starting with "."); it is not read`,
  });
  if (nodePath.isAbsolute(given) || nodePath.win32.isAbsolute(given)) return outside('is an absolute path');
  const path = nodePath.resolve(folder.path, given);
  // The folder itself is no leak: reading it says "this is a folder, not a file".
  const within = (base: string, file: string): boolean =>
    file === base || pathInside(base, file) !== undefined;
  if (!within(folder.path, path)) return outside('leads outside the folder of this YAML file');
  const real = await realPlace(folder, path, fs);
  if (real !== undefined && !within(real.folder, real.path)) {
    return outside(
      'is a symbolic link (or lies in a linked folder) that leads outside the folder of this YAML file',
    );
  }
  if (isHidden(folder.path, path)) return hidden('names a hidden file or folder');
  if (real !== undefined && isHidden(real.folder, real.path)) {
    return hidden('is a symbolic link (or lies in a linked folder) that leads to a hidden file or folder');
  }
  return { path };
}

/** The real paths of the folder and of a file in it; none when the file is not there (reading it says so). */
async function realPlace(
  folder: YamlFolder,
  path: string,
  fs: ConfigFs,
): Promise<{ folder: string; path: string } | undefined> {
  if (fs.realpath === undefined) return undefined;
  let real: string;
  try {
    real = await fs.realpath(path);
  } catch {
    return undefined;
  }
  return { folder: await folder.real(), path: real };
}

/** Whether a name on the way from `folder` down to `path` (inside it) starts with ".". */
function isHidden(folder: string, path: string): boolean {
  return nodePath
    .relative(folder, path)
    .split(nodePath.sep)
    .some((name) => name.startsWith('.'));
}

/** The key of a task's recipients: its file and its index in that file's `tasks`. */
export function recipientsKey(file: string, index: number): string {
  return `${file}\u0000${index}`;
}
