import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ErrorObject, SchemaObject, ValidateFunction } from 'ajv/dist/2020.js';
import { type Diagnostic, type DiagnosticCode, quote } from '../core/diagnostics.js';
import { ENVIRONMENT_NAME_RULE } from '../core/environments.js';
import { GuidectlError } from '../core/errors.js';
import { CARD_TITLE_MAX_CHARS, hasUserInfo, TASK_NAME_MAX_CHARS } from '../core/guide-rules.js';
import type { Indexed, SpanPart, ValuePath } from '../core/positions.js';
import { ifDefined, isRecord } from '../core/records.js';
import { DEFAULT_MAX_DELETE_SHARE, DEFAULT_MAX_DELETES } from '../core/safety.js';
import type { SchemaMessage } from '../core/schema-messages.js';
import { formatWrittenTime } from '../core/task-time.js';
import type {
  WrittenAccount,
  WrittenFile,
  WrittenGroup,
  WrittenGuide,
  WrittenParts,
  WrittenPrune,
  WrittenSafety,
  WrittenTask,
} from '../core/written.js';
import { NICKNAME_LENGTH } from '../kinds/guide/rules.js';
import { KINDS } from '../kinds/registry.js';
import { taskGuideOneOf } from '../kinds/task/rules.js';
import { checkedSchemaOf } from './checked-schema.js';
import type { PartValidators, StrictValidators } from './compile-schema.js';
import type { ParsedYaml } from './parse-yaml.js';
import { salvageParts } from './salvage-parts.js';
import { VALUE_NAME_RULE } from './substitute-values.js';
import { suggest } from './suggest.js';

/** The format version this program reads. */
export const FORMAT_VERSION = 1;

const SCHEMA_RELATIVE_PATH = nodePath.join('schema', 'guidectl.schema.json');

/** The schema's validators, made once; `defNameOf` names each `$defs` entry, for messages. */
export interface CompiledSchema {
  /**
   * The errors of a whole file, as ajv finds them with the whole schema (none: the file conforms),
   * in time linear in the number of guides and groups: ajv concatenates the errors of a `$ref` onto
   * all the errors found before it, which is quadratic when 60,000 guides each have a mistake. So
   * the file is checked without its list items, and each guide and group on its own; the errors'
   * paths are those of the whole file.
   */
  readonly errorsOf: (value: unknown, options?: ErrorsOfOptions) => ErrorObject[];
  /** Validators of single parts, to salvage the valid parts of an invalid file; made on first use. */
  readonly parts: () => PartValidators;
  readonly schema: SchemaObject;
  /** The `$defs` name of an error's `parentSchema` (`root` for the file), if it is one. */
  readonly defNameOf: (parentSchema: unknown) => string | undefined;
}

export type { PartValidators, StrictValidators };

/** How `errorsOf` checks the guides and groups of a file, when it is checked once per environment. */
export interface ErrorsOfOptions {
  /**
   * The errors of each guide and group already checked, by the item object: in every environment
   * but the first, an item that no `${name}` changed is the same object and is not checked again.
   */
  readonly cache?: WeakMap<object, readonly ErrorObject[]>;
  /** Whether a guide, group or task exists in the environment checked (its `only_in`); others are not checked. */
  readonly include?: (item: unknown) => boolean;
}

/** The schema file is missing or broken: the installation is damaged (not a mistake of the user's). */
export class SchemaLoadError extends GuidectlError {
  override readonly code = 'GUIDECTL_SCHEMA';
}

const compiled = new Map<string, Promise<CompiledSchema>>();

/**
 * Finds `schema/guidectl.schema.json` at the top of the package: from `src/config/` (tests),
 * `dist/config/` (the installed program) or a compiled copy deeper down (the benchmark), the
 * first `schema/` folder on the way up.
 */
export async function findSchemaFile(): Promise<string> {
  let dir = nodePath.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const candidate = nodePath.join(dir, SCHEMA_RELATIVE_PATH);
    try {
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // Not here: look one folder up.
    }
    const parent = nodePath.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new SchemaLoadError(
    `cannot find ${SCHEMA_RELATIVE_PATH} above ${fileURLToPath(import.meta.url)}; reinstall guidectl`,
  );
}

/** Makes the schema's validators on first use and keeps them for the life of the process. */
export function loadSchema(schemaFile?: string): Promise<CompiledSchema> {
  const key = schemaFile ?? '';
  let entry = compiled.get(key);
  if (entry === undefined) {
    entry = compileSchema(schemaFile);
    compiled.set(key, entry);
    // A failure is not cached: the next call tries again.
    entry.catch(() => compiled.delete(key));
  }
  return entry;
}

/** The modules `npm run build` writes beside this one: the schema's validators as JavaScript. */
export const VALIDATOR_MODULES = { strict: 'schema-strict.js', parts: 'schema-parts.js' } as const;

/**
 * Identifies the schema text and the way its validators are made: the digest a validator module
 * records. Raise `VALIDATOR_CODE_VERSION` when compile-schema.ts changes the validators' options.
 */
const VALIDATOR_CODE_VERSION = 2;
export function schemaDigest(text: string): string {
  return createHash('sha256').update(`${VALIDATOR_CODE_VERSION}\n${text}`).digest('hex');
}

async function compileSchema(schemaFile: string | undefined): Promise<CompiledSchema> {
  const file = schemaFile ?? (await findSchemaFile());
  let text: string;
  let parsed: unknown;
  try {
    text = await readFile(file, 'utf8');
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SchemaLoadError(`cannot read the schema ${file}: ${String(error)}`, { cause: error });
  }
  if (!isSchemaObject(parsed)) throw new SchemaLoadError(`${file} is not a JSON Schema object`);
  // The file is the published schema, which lets a `${name}` stand for a value; values are checked
  // after substitution, against the constraints alone.
  const checked = checkedSchemaOf(parsed);
  // The package's own schema has its validators built beside this module (in dist/, not src/).
  const built = schemaFile === undefined ? await builtValidators(schemaDigest(text)) : undefined;
  if (built !== undefined) return compiledSchemaOf(checked, built.strict, () => built.parts);
  const { compileSchemaObject } = await import('./compile-schema.js');
  return compileSchemaObject(checked);
}

/** The validators `npm run build` wrote for the schema of this digest; undefined when there are none. */
async function builtValidators(
  digest: string,
): Promise<{ strict: StrictValidators; parts: PartValidators } | undefined> {
  const load = async (name: string): Promise<unknown> => {
    try {
      return await import(new URL(`./${name}`, import.meta.url).href);
    } catch {
      return undefined; // Not built: tests run from src/.
    }
  };
  const [strict, parts] = await Promise.all([load(VALIDATOR_MODULES.strict), load(VALIDATOR_MODULES.parts)]);
  return validatorsOfModules(strict, parts, digest);
}

/**
 * The validators of the modules `validatorModules` (compile-schema.ts) made, when both are made
 * for the schema of this digest (else undefined: an older build, or an edited schema).
 */
export function validatorsOfModules(
  strict: unknown,
  parts: unknown,
  digest: string,
): { strict: StrictValidators; parts: PartValidators } | undefined {
  if (!isRecord(strict) || !isRecord(parts)) return undefined;
  if (strict['schemaDigest'] !== digest || parts['schemaDigest'] !== digest) return undefined;
  const { shell, guide, group } = strict;
  const { account, prune, safety, guide: partGuide, group: partGroup, task: partTask } = parts;
  if (
    !isValidator<unknown>(shell) ||
    !isValidator<WrittenGuide>(guide) ||
    !isValidator<WrittenGroup>(group) ||
    !isValidator<WrittenAccount>(account) ||
    !isValidator<WrittenPrune>(prune) ||
    !isValidator<WrittenSafety>(safety) ||
    !isValidator<WrittenGuide>(partGuide) ||
    !isValidator<WrittenGroup>(partGroup) ||
    !isValidator<WrittenTask>(partTask)
  )
    return undefined;
  return {
    strict: { shell, guide, group },
    parts: { account, prune, safety, guide: partGuide, group: partGroup, task: partTask },
  };
}

/** A validator of the generated module (made by ajv from the schema of the digest it records). */
function isValidator<T>(value: unknown): value is ValidateFunction<T> {
  return typeof value === 'function';
}

/** The checks of a schema, given its validators (compiled now, or built with the package). */
export function compiledSchemaOf(
  schema: SchemaObject,
  strict: StrictValidators,
  parts: () => PartValidators,
): CompiledSchema {
  const { shell: checkShell } = strict;
  const itemValidators = { guides: strict.guide, groups: strict.group };
  const errorsOf = (value: unknown, options: ErrorsOfOptions = {}): ErrorObject[] => {
    const errors: ErrorObject[] = [];
    const { cache, include } = options;
    if (!checkShell(value)) {
      for (const e of checkShell.errors ?? [])
        if (include === undefined || inTaskIncluded(value, e, include)) errors.push(e);
    }
    if (!isRecord(value)) return errors;
    for (const list of ['guides', 'groups'] as const) {
      const items = value[list];
      if (!Array.isArray(items)) continue;
      const check = itemValidators[list];
      items.forEach((item: unknown, index) => {
        if (include !== undefined && !include(item)) return;
        const cached = cache !== undefined && isRecord(item) ? cache.get(item) : undefined;
        const found = cached ?? (check(item) ? [] : (check.errors ?? []));
        if (cached === undefined && cache !== undefined && isRecord(item)) cache.set(item, found);
        if (found.length === 0) return;
        const prefix = `/${list}/${index}`;
        for (const e of found) errors.push({ ...e, instancePath: prefix + e.instancePath });
      });
    }
    return errors;
  };
  let madeParts: PartValidators | undefined;
  const getParts = (): PartValidators => {
    madeParts ??= parts();
    return madeParts;
  };
  return { errorsOf, parts: getParts, schema, defNameOf: defNamer(schema) };
}

/** Whether an error of the file's shell is not inside a task that `include` leaves out. */
function inTaskIncluded(value: unknown, error: ErrorObject, include: (item: unknown) => boolean): boolean {
  const match = /^\/tasks\/(\d+)(?:\/|$)/.exec(error.instancePath);
  const tasks = isRecord(value) ? value['tasks'] : undefined;
  if (match === null || !Array.isArray(tasks)) return true;
  return include(tasks[Number(match[1])]);
}

/**
 * Names the `$defs` entries (and the root) of the schema. Compiled validators report the schema's
 * own objects, found by identity; built ones report copies of them (ajv writes each sub-schema into
 * its code), found by their JSON text, worked out once per object.
 */
function defNamer(schema: SchemaObject): (parentSchema: unknown) => string | undefined {
  const byObject = new Map<object, string>([[schema, 'root']]);
  const defs: unknown = schema['$defs'];
  if (isRecord(defs)) {
    for (const [name, def] of Object.entries(defs)) if (isRecord(def)) byObject.set(def, name);
  }
  let byText: Map<string, string> | undefined;
  const seen = new WeakMap<object, string | null>();
  return (parentSchema) => {
    if (!isRecord(parentSchema)) return undefined;
    const name = byObject.get(parentSchema) ?? seen.get(parentSchema);
    if (name !== undefined) return name ?? undefined;
    if (byText === undefined) {
      byText = new Map([[JSON.stringify(withoutListItems(schema)), 'root']]);
      for (const [object, n] of byObject) byText.set(JSON.stringify(object), n);
    }
    const found = byText.get(JSON.stringify(parentSchema)) ?? null;
    seen.set(parentSchema, found);
    return found ?? undefined;
  };
}

/** The root schema with the items of `guides` and `groups` left unchecked (they are checked one by one). */
export function withoutListItems(schema: SchemaObject): SchemaObject {
  const properties: unknown = schema['properties'];
  if (!isRecord(properties)) return schema;
  const open = (name: string): Record<string, unknown> => {
    const property = properties[name];
    return isRecord(property) ? { ...property, items: true } : {};
  };
  return { ...schema, properties: { ...properties, guides: open('guides'), groups: open('groups') } };
}

export function isSchemaObject(value: unknown): value is SchemaObject {
  return isRecord(value);
}

export interface SchemaCheckResult {
  /** The file as written, when it passed; absent otherwise. */
  readonly written?: WrittenFile;
  /** The parts that passed (all of `written` when it passed); absent when the version is not 1. */
  readonly parts?: WrittenParts;
  readonly diagnostics: Diagnostic[];
  /**
   * Those of `diagnostics` about the `environments:` declarations: the same whichever environment
   * the files are checked in.
   */
  readonly declarations?: ReadonlySet<Diagnostic>;
}

/**
 * Whether a file conforms to the schema, given its `errorsOf`: checking it once more with the
 * whole-file validator, only to give it its type, would double the time of every valid file.
 */
function conforms(_value: unknown, errors: readonly ErrorObject[]): _value is WrittenFile {
  return errors.length === 0;
}

/** The parts of a file that passed as a whole. */
export function partsOf(written: WrittenFile): WrittenParts {
  return {
    ...ifDefined('account', written.account),
    ...ifDefined('prune', written.prune),
    ...ifDefined('safety', written.safety),
    guides: indexed(written.guides ?? []),
    groups: indexed(written.groups ?? []),
    tasks: indexed(written.tasks ?? []),
  };
}

function indexed<T>(list: readonly T[]): Indexed<T>[] {
  return list.map((value, index) => ({ index, value }));
}

/**
 * Checks the version, then the schema, and turns every failure into a diagnostic in plain words
 * at the position of the offending key or value. A file whose version is not 1 is not checked
 * further: its format is not this one.
 */
export function checkSchema(
  parsed: ParsedYaml,
  compiledSchema: CompiledSchema,
  options: ErrorsOfOptions = {},
): SchemaCheckResult {
  const { value } = parsed;
  const diagnostics: Diagnostic[] = [];
  const declarations = new Set<Diagnostic>();
  const unversioned = !isRecord(value) || !('version' in value);
  const emit = (
    code: DiagnosticCode,
    path: ValuePath,
    part: SpanPart,
    message: string,
    hint?: string,
    secret?: true,
  ): void => {
    const span = parsed.locate(path, part);
    const { line, column, endLine, endColumn } = span;
    const { file } = parsed;
    // No object spread: this runs once per schema error, up to hundreds of thousands of times.
    const d: Diagnostic =
      hint === undefined
        ? { severity: 'error', code, message, file, line, column, endLine, endColumn }
        : { severity: 'error', code, message, file, line, column, endLine, endColumn, hint };
    // A file without "version" is not known to be a desired-state file: none of its lines is shown.
    const hidden = secret === true || unversioned || mayHoldSecret(path);
    const shown = hidden ? { ...d, mayHoldSecret: true as const } : d;
    diagnostics.push(shown);
    if (path[0] === 'environments') declarations.add(shown);
  };

  if (!isRecord(value)) return { diagnostics };
  if (!('version' in value)) {
    emit(
      'version-missing',
      [],
      'value',
      'the file has no "version"',
      'add "version: 1" as the first line (every file of a folder needs it)',
    );
  } else if (value['version'] !== FORMAT_VERSION) {
    const v = value['version'];
    if (typeof v === 'number') {
      emit(
        'version-unsupported',
        ['version'],
        'value',
        `version ${writtenText(parsed, ['version'], v)} is not supported; this guidectl reads version ${FORMAT_VERSION}`,
        v > FORMAT_VERSION
          ? 'the file is newer than this guidectl: upgrade guidectl'
          : `write "version: ${FORMAT_VERSION}"`,
      );
    } else {
      emit(
        'version-unsupported',
        ['version'],
        'value',
        `version must be the number ${FORMAT_VERSION}, not ${describeValue(v, writtenText(parsed, ['version'], v))}`,
        `write "version: ${FORMAT_VERSION}"`,
      );
    }
    return { diagnostics };
  }

  const errors = compiledSchema.errorsOf(value, options);
  if (conforms(value, errors)) {
    if (diagnostics.length === 0) return { written: value, parts: partsOf(value), diagnostics };
    return { parts: partsOf(value), diagnostics, declarations };
  }

  const seen = new Set<string>();
  const context = errorContext(errors, parsed);
  for (const e of errors) {
    const mapped = mapError(e, compiledSchema, context);
    if (mapped === undefined) continue;
    // Each missing key of a mapping is its own problem, at the same place.
    const missing = e.keyword === 'required' ? String(e.params['missingProperty']) : '';
    const key = `${mapped.code}\u0000${missing}\u0000${mapped.path.join('\u0000')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    emit(mapped.code, mapped.path, mapped.part, mapped.message, mapped.hint, mapped.secret);
  }
  return { parts: salvageParts(value, compiledSchema.parts(), errors), diagnostics, declarations };
}

/** What one error's mapping needs to know about the others. */
interface ErrorsContext {
  /** Paths whose value has the wrong type: its other constraints are not reported. */
  readonly typeFailed: ReadonlySet<string>;
  /** Per mapping path, the keys that an unknown key there looks like a misspelling of. */
  readonly misspelt: ReadonlyMap<string, ReadonlySet<string>>;
  /** Whether unknown keys get a "did you mean": not when there are thousands of them (generated junk). */
  readonly suggestKeys: boolean;
  /** `pointerToPath`, remembering the last pointer: the errors of one mapping come one after another. */
  readonly pathOf: (pointer: string) => ValuePath;
  /** The scalar `data` at `path` as the file writes it (`writtenText`). */
  readonly writtenOf: (path: ValuePath, data: unknown) => string;
}

/** Above this many schema errors in one file, unknown keys get no "did you mean" (it costs time per key). */
const MAX_SUGGESTED_ERRORS = 1_000;

function errorContext(errors: readonly ErrorObject[], parsed: ParsedYaml): ErrorsContext {
  const typeFailed = new Set<string>();
  const misspelt = new Map<string, Set<string>>();
  // A misspelt key matters only where a key is missing (or a guide's identity): look for one there only.
  const missing = new Set<string>();
  for (const e of errors) {
    if (e.keyword === 'type') typeFailed.add(e.instancePath);
    if (e.keyword === 'required' || e.keyword === 'oneOf') missing.add(e.instancePath);
  }
  // A file with more unknown keys than that is not a misspelling: each lookup measures the key
  // against every allowed one, seconds for 200,000 keys in one mapping.
  let lookups = 0;
  for (const e of errors) {
    if (e.keyword === 'additionalProperties' && missing.has(e.instancePath)) {
      if (++lookups > MAX_SUGGESTED_ERRORS) break;
      const guess = suggest(String(e.params['additionalProperty']), allowedKeysOf(e.parentSchema).allowed);
      if (guess === undefined) continue;
      const keys = misspelt.get(e.instancePath) ?? new Set<string>();
      keys.add(guess);
      misspelt.set(e.instancePath, keys);
    }
  }
  let lastPointer: string | undefined;
  let lastPath: ValuePath = [];
  const pathOf = (pointer: string): ValuePath => {
    if (pointer !== lastPointer) {
      lastPointer = pointer;
      lastPath = pointerToPath(pointer);
    }
    return lastPath;
  };
  const writtenOf = (path: ValuePath, data: unknown): string => writtenText(parsed, path, data);
  return { typeFailed, misspelt, suggestKeys: errors.length <= MAX_SUGGESTED_ERRORS, pathOf, writtenOf };
}

/**
 * A number, true or false as the file writes it: `007`, `0x1F`, `1e400` and a 20-digit id read as
 * 7, 31, Infinity and a rounded number, and a message or hint that shows those instead would have
 * the user write a different value. Other values: as `String` gives them.
 */
function writtenText(parsed: ParsedYaml, path: ValuePath, data: unknown): string {
  if (typeof data !== 'number' && typeof data !== 'boolean') return String(data);
  return parsed.writtenScalar(path) ?? String(data);
}

interface MappedError {
  readonly code: DiagnosticCode;
  readonly path: ValuePath;
  readonly part: SpanPart;
  readonly message: string;
  readonly hint?: string;
  /** The value may be a secret: the line is not shown (as for any setting of `mayHoldSecret`). */
  readonly secret?: true;
}

const CREDENTIALS_PREFIX_RULE = 'capital letters, digits and "_", starting with a letter';
const BASE_URL_HINT =
  'write the address of the guide API, such as https://api.weixin.qq.com; credentials go in the process environment';
export const CREDENTIALS_HINT =
  'credentials are never written in the files: set PREFIX_APPID and PREFIX_SECRET (or PREFIX_ACCESS_TOKEN) in the process environment and write "credentials: PREFIX"';

/**
 * Whether the value at `path` may be a secret that a user pasted by mistake: anything of an
 * environment but its values and base URL. Diagnostics there never quote the value, and do not show
 * the line.
 */
export function mayHoldSecret(path: ValuePath): boolean {
  return path[0] === 'environments' && path.length >= 2 && path[2] !== 'values' && path[2] !== 'base_url';
}

/** The default share of deletions as a percentage, as the flag and the file may write it. */
const SHARE_PERCENT = `${DEFAULT_MAX_DELETE_SHARE * 100}%`;

const shareOutOfRange: SchemaMessage = ({ written }) => ({
  code: 'safety-limit-invalid',
  message: `safety.max_delete_share is ${written}; it must be a share from 0 to 1`,
  hint: `write ${DEFAULT_MAX_DELETE_SHARE} for ${SHARE_PERCENT} of the live count (the default)`,
});

/**
 * Every constraint of the schema, by `$defs` entry and keyword. A test checks that each
 * constraint keyword in the schema has an entry, so that no user sees ajv's raw text.
 */
export const SCHEMA_MESSAGES: Readonly<Record<string, SchemaMessage>> = {
  ...Object.fromEntries(Object.values(KINDS).flatMap((kind) => Object.entries(kind.messages))),
  'semantics/enum': ({ data }) => {
    const guess = typeof data === 'string' ? suggest(data, ['append', 'replace']) : undefined;
    return {
      code: 'semantics-invalid',
      message: `semantics ${quote(data)} is not one of: append, replace${guess === undefined ? '' : `; did you mean "${guess}"?`}`,
      hint: '"append" if the target adds the words it is sent (how WeChat behaves), "replace" if it replaces the list',
    };
  },
  'deleteLimit/minimum': ({ path, written }) => ({
    code: 'safety-limit-invalid',
    message: `${path.join('.')} is ${written}; it must be 0 or more`,
    hint: `0 refuses every deletion of ${String(path.at(-1))}; remove the key for the default (${DEFAULT_MAX_DELETES})`,
  }),
  'maxDeleteShare/minimum': shareOutOfRange,
  'maxDeleteShare/maximum': shareOutOfRange,
  'maxDeleteShare/pattern': ({ written }) => ({
    code: 'safety-limit-invalid',
    message: `safety.max_delete_share is ${quote(written)}; it must be a share from 0 to 1, or a percentage from 0% to 100%`,
    hint: `write ${DEFAULT_MAX_DELETE_SHARE} or "${SHARE_PERCENT}" for ${SHARE_PERCENT} of the live count (the default)`,
  }),
  // A protect.tasks entry names its guide as a task does.
  'protectedTask/oneOf': taskGuideOneOf,
  'environments/minProperties': () => ({
    code: 'environments-empty',
    message: '"environments" declares no environment',
    hint: 'name each account under it (staging: {credentials: STAGING}), or remove the key',
  }),
  'environmentName/pattern': ({ data }) => ({
    code: 'environment-name-invalid',
    message: `${quote(data)} is not an environment name; ${ENVIRONMENT_NAME_RULE}`,
    hint: 'write the name of an environment declared under "environments"',
  }),
  'baseUrl/pattern': ({ data }) =>
    typeof data === 'string' && hasUserInfo(data)
      ? {
          code: 'environment-base-url-invalid',
          message:
            'base_url must not hold a user or password (user:password@ before the host); the value is not shown, in case it is a secret',
          hint: BASE_URL_HINT,
          secret: true,
        }
      : {
          code: 'environment-base-url-invalid',
          message: `base_url ${quote(data)} must be an http(s) URL without user or password`,
          hint: BASE_URL_HINT,
        },
  'credentialsPrefix/pattern': () => ({
    code: 'environment-credentials-invalid',
    message: `credentials must be the prefix of variable names (such as STAGING for STAGING_APPID and STAGING_SECRET): ${CREDENTIALS_PREFIX_RULE}; the value is not shown, in case it is a secret`,
    hint: CREDENTIALS_HINT,
  }),
};

/** Advice for required keys, by key name. */
const MISSING_KEY_HINTS: Readonly<Record<string, string>> = {
  nickname: `add the name customers see, ${NICKNAME_LENGTH}: nickname: Alice`,
  head_image_url: 'add the URL of the profile picture: head_image_url: https://…',
  semantics: 'add "semantics: append" (how WeChat behaves) or "semantics: replace"',
  words: 'add the list of words; "words: []" deletes them all',
  appid: 'add the appid of the mini program: appid: wx…',
  title: `add the title of the card, 1 to ${CARD_TITLE_MAX_CHARS} characters`,
  path: 'add the page to open: path: pages/index/index',
  media_id: 'add the media id of the cover image',
  push_at: 'add when the task is sent: push_at: 2026-12-01T10:00:00+08:00',
  materials: 'add what the task sends, such as: materials: [{text: "Hello"}]',
};

/** The advice for a required key, by the key and, for keys that mean different things, where it is. */
function missingKeyHint(path: ValuePath, key: string): string | undefined {
  if (key === 'name')
    return path.at(-2) === 'tasks'
      ? `add the name of the task, 1 to ${TASK_NAME_MAX_CHARS} characters, unique per guide: name: Spring sale`
      : 'add the name of the group';
  return MISSING_KEY_HINTS[key];
}

function mapError(
  e: ErrorObject,
  compiledSchema: CompiledSchema,
  context: ErrorsContext,
): MappedError | undefined {
  const path = context.pathOf(e.instancePath);
  // The branches of the guide's oneOf are reported once, as the oneOf itself.
  if (e.schemaPath.includes('/oneOf/')) return undefined;
  // The version was checked first, with better words.
  if (path[0] === 'version' || (e.keyword === 'required' && e.params['missingProperty'] === 'version'))
    return undefined;
  // A value of the wrong type gets one error, not one per constraint it also fails.
  if (e.keyword !== 'type' && context.typeFailed.has(e.instancePath)) return undefined;
  // "unknown key nicknam; did you mean nickname?" says it all: no "has no nickname" besides.
  const misspelt = context.misspelt.get(e.instancePath);
  if (misspelt !== undefined) {
    if (e.keyword === 'required' && misspelt.has(String(e.params['missingProperty']))) return undefined;
    if (e.keyword === 'oneOf' && (misspelt.has('account') || misspelt.has('openid'))) return undefined;
  }

  const data: unknown = e.data;
  const defName = compiledSchema.defNameOf(e.parentSchema);

  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String(e.params['additionalProperty']);
      const named = environmentKeyError(path, key);
      if (named !== undefined) return named;
      const { allowed, hint } = allowedKeysOf(e.parentSchema);
      const guess = context.suggestKeys ? suggest(key, allowed) : undefined;
      return {
        code: 'unknown-key',
        path: [...path, key],
        part: 'key',
        message: `unknown key "${key}" in ${describeContainer(path)}${guess === undefined ? '' : `; did you mean "${guess}"?`}`,
        hint,
        // A key at the top level that the format does not know may be a variable pasted in with
        // its secret (WECHAT_SECRET: …): its line is not shown.
        ...(path.length === 0 ? { secret: true as const } : {}),
      };
    }
    case 'required': {
      const key = String(e.params['missingProperty']);
      const hint = missingKeyHint(path, key);
      return {
        code: 'missing-key',
        path,
        part: 'value',
        message: `${describeContainer(path)} has no "${key}"`,
        ...ifDefined('hint', hint),
      };
    }
    case 'type':
      return wrongTypeError(e, path, defName, context);
    default:
      break;
  }

  const describe = defName === undefined ? undefined : SCHEMA_MESSAGES[`${defName}/${e.keyword}`];
  if (describe !== undefined) {
    if (e.keyword === 'oneOf' && !isRecord(data)) return undefined;
    const limit = Number(e.params['limit']);
    const d = describe({
      path,
      name: describeValueName(path),
      data,
      written: context.writtenOf(path, data),
      limit,
    });
    // Too many entries: point at the first one too many.
    const at = e.keyword === 'maxItems' && Array.isArray(data) ? [...path, limit] : path;
    return { ...d, path: at, part: 'value' };
  }
  return {
    code: 'schema-violation',
    path,
    part: 'value',
    message: `${describeValueName(path)} ${e.message ?? 'is not valid'}`,
  };
}

/** A value of the wrong type: one error, with the fix (quotes for a number where text is wanted). */
function wrongTypeError(
  e: ErrorObject,
  path: ValuePath,
  defName: string | undefined,
  context: ErrorsContext,
): MappedError {
  const data: unknown = e.data;
  const expected = describeType(e.params['type']);
  const name = describeValueName(path);
  if (mayHoldSecret(path)) {
    return {
      code: 'wrong-type',
      path,
      part: 'value',
      message: `${name} must be ${expected}; the value is not shown, in case it is a secret`,
      ...(path.length === 3 ? { hint: CREDENTIALS_HINT } : {}),
    };
  }
  const written = context.writtenOf(path, data);
  const quotable = (typeof data === 'number' || typeof data === 'boolean') && expected === 'text';
  const textHint = quotable ? scalarAsTextHint(data, written, e.parentSchema, defName, path) : undefined;
  return {
    code: 'wrong-type',
    path,
    part: 'value',
    message:
      data === null
        ? `${name} has no value; it must be ${expected}`
        : `${name} must be ${expected}, not ${describeValue(data, written)}`,
    ...(textHint !== undefined ? { hint: textHint } : typeHint(data, expected, path, written)),
  };
}

/** The fix for a value of the wrong type: what to write instead, when it can be told. */
function typeHint(data: unknown, expected: string, path: ValuePath, written: string): { hint?: string } {
  const key = path.at(-1);
  if (data === null) {
    return typeof key === 'number'
      ? { hint: 'write its value, or remove the empty item of the list (a "-" or ~ with nothing else)' }
      : { hint: 'write a value after the colon, or remove the key' };
  }
  if (typeof data === 'string' && expected === 'true or false') {
    return /^(true|false)$/i.test(data.trim())
      ? { hint: `remove the quotes: write ${data.trim().toLowerCase()}` }
      : { hint: 'write true or false (YAML 1.2 reads yes, no, on and off as text)' };
  }
  if (
    typeof data === 'string' &&
    /number/.test(expected) &&
    data.trim() !== '' &&
    Number.isFinite(Number(data))
  )
    return { hint: `remove the quotes: write ${data.trim()}` };
  if (expected === 'a list') return listHint(data, key, written);
  if (key === 'sensitive_words' && Array.isArray(data))
    return { hint: 'write the words under "words:", with "semantics: append" (or replace) beside it' };
  return {};
}

/** A list is wanted: one value to put in brackets, or entries to start with "- ". */
function listHint(data: unknown, key: string | number | undefined, written: string): { hint?: string } {
  const entries = typeof key === 'string' ? ENTRY_EXAMPLES[key] : undefined;
  if (entries !== undefined)
    return {
      hint: `start each entry on its own line with "- " under "${String(key)}:" (${entries}), or write [] for none`,
    };
  if (typeof data === 'string' || typeof data === 'number' || typeof data === 'boolean')
    return {
      hint: `write a list, even of one: ${typeof key === 'string' ? `${key}: ` : ''}[${typeof data === 'string' ? data : written}]`,
    };
  return {};
}

/** The first line of an entry of each list of mappings, for hints. */
const ENTRY_EXAMPLES: Readonly<Record<string, string>> = {
  guides: '- account: alice_wx',
  groups: '- name: North',
  tasks: '- name: Spring sale',
  welcome: '- text: Welcome!',
  default_welcome: '- text: Welcome!',
  materials: '- text: Hello',
};

/**
 * A key that `environments` (or an environment's `values`) refuses: a name that breaks the rule of
 * names, or a key of an environment that is not one of its settings (often a credential pasted in).
 */
function environmentKeyError(path: ValuePath, key: string): MappedError | undefined {
  if (path[0] !== 'environments') return undefined;
  if (path.length === 1) {
    return {
      code: 'environment-name-invalid',
      path: [...path, key],
      part: 'key',
      message: `${quote(key)} is not an environment name; ${ENVIRONMENT_NAME_RULE}`,
      hint: 'the name is used in --env NAME and in the file name of its local database',
    };
  }
  if (path.length === 3 && path[2] === 'values') {
    return {
      code: 'env-value-name-invalid',
      path: [...path, key],
      part: 'key',
      message: `${quote(key)} is not a value name; ${VALUE_NAME_RULE}`,
      hint: `the name is what \${name} refers to in the files`,
    };
  }
  if (path.length === 2) {
    const guess = suggest(key, ['base_url', 'credentials', 'values']);
    return {
      code: 'unknown-key',
      path: [...path, key],
      part: 'key',
      message: `unknown key "${key}" in environment "${String(path[1])}"; ${guess === undefined ? 'the keys allowed here are: base_url, credentials, values' : `did you mean "${guess}"?`}`,
      hint: CREDENTIALS_HINT,
    };
  }
  return undefined;
}

/**
 * The keys a schema allows and the hint that lists them, made once per schema object: a file of
 * 200,000 unknown keys would otherwise list and join them 200,000 times.
 */
const allowedKeysCache = new WeakMap<object, { allowed: string[]; hint: string }>();

function allowedKeysOf(parentSchema: unknown): { allowed: string[]; hint: string } {
  const cached = isRecord(parentSchema) ? allowedKeysCache.get(parentSchema) : undefined;
  if (cached !== undefined) return cached;
  const allowed = allowedKeys(parentSchema);
  const made = {
    allowed,
    hint: allowed.length > 0 ? `the keys allowed here are: ${allowed.join(', ')}` : 'remove it',
  };
  if (isRecord(parentSchema)) allowedKeysCache.set(parentSchema, made);
  return made;
}

function allowedKeys(parentSchema: unknown): string[] {
  if (!isRecord(parentSchema)) return [];
  const properties = parentSchema['properties'];
  return isRecord(properties) ? Object.keys(properties) : [];
}

/** JSON pointer (`/guides/0/nickname`) to path segments, numbers for list indexes. */
export function pointerToPath(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  // Called once per schema error (200,000 for a generated file): no regular expressions when no
  // segment is escaped or a number.
  const escaped = pointer.includes('~');
  return pointer
    .slice(1)
    .split('/')
    .map((s) => {
      const unescaped = escaped ? s.replace(/~1/g, '/').replace(/~0/g, '~') : s;
      return isIndex(unescaped) ? Number(unescaped) : unescaped;
    });
}

/** `0` or a number without a leading zero, as a list index is written in a JSON pointer. */
function isIndex(segment: string): boolean {
  const n = segment.length;
  if (n === 0 || (n > 1 && segment.charCodeAt(0) === 0x30)) return false;
  for (let i = 0; i < n; i++) {
    const c = segment.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

const ITEM_NAMES: Readonly<Record<string, string>> = {
  guides: 'a guide',
  groups: 'a group',
  quick_replies: 'a quick reply',
  welcome: 'a welcome message',
  default_welcome: 'a welcome message',
  words: 'a sensitive word',
  members: 'a member',
  guide_openids: 'an openid',
  tasks: 'a task',
  materials: 'a material',
  recipients: 'a recipient',
};

/** How to name the value at `path` in a sentence: `"nickname"`, `a quick reply`. */
export function describeValueName(path: ValuePath): string {
  const last = path.at(-1);
  if (last === undefined) return 'the file';
  if (typeof last === 'string') return `"${last}"`;
  const parent = path.at(-2);
  return (typeof parent === 'string' ? ITEM_NAMES[parent] : undefined) ?? 'an entry';
}

/** How to name the mapping at `path` in a sentence: `this guide`, `the mini-program card`. */
function describeContainer(path: ValuePath): string {
  const last = path.at(-1);
  const parent = path.at(-2);
  if (last === undefined) return 'the top level of the file';
  if (typeof last === 'number' && typeof parent === 'string') {
    if (parent === 'guides') return 'this guide';
    if (parent === 'groups') return 'this group';
    if (parent === 'welcome' || parent === 'default_welcome') return 'this welcome message';
    if (parent === 'tasks') return 'this task';
    if (parent === 'materials') return 'this material';
  }
  if (last === 'miniprogram') return 'the mini-program card';
  return typeof last === 'string' ? `"${last}"` : 'this entry';
}

/**
 * The fix for a number, true or false where text is wanted: quoting it, when the quoted value is
 * valid; else why the quoted value is still refused and what the value's pattern asks for
 * (`push_at: 2026` quoted is still no date), and for a push time written as Unix seconds, that
 * time as it is written.
 */
function scalarAsTextHint(
  data: number | boolean,
  text: string,
  parentSchema: unknown,
  defName: string | undefined,
  path: ValuePath,
): string | undefined {
  const pattern = isRecord(parentSchema) ? parentSchema['pattern'] : undefined;
  if (typeof pattern !== 'string' || new RegExp(pattern, 'u').test(text)) {
    return `put the value in quotes: ${JSON.stringify(text)}`;
  }
  // Ten digits: seconds from 2001 to 2286, as a push time is written in the API.
  const seconds = typeof data === 'number' && Number.isInteger(data) && data >= 1e9 && data < 1e10;
  if (defName === 'pushAt' && seconds) {
    return `push_at is a date and time with its offset, not Unix seconds: ${text} is "${formatWrittenTime(data, 0)}" (UTC), or write it in your offset, such as 2026-12-01T10:00:00+08:00`;
  }
  const quoted = SCHEMA_MESSAGES[`${defName}/pattern`]?.({
    path,
    name: describeValueName(path),
    data: text,
    written: text,
    limit: Number.NaN,
  });
  if (quoted === undefined) return undefined;
  return `quoted, it is still refused: ${quoted.message}${quoted.hint === undefined ? '' : `; ${quoted.hint}`}`;
}

function describeType(type: unknown): string {
  const names: Record<string, string> = {
    string: 'text',
    number: 'a number',
    integer: 'a whole number',
    boolean: 'true or false',
    array: 'a list',
    object: 'a mapping (key: value lines)',
    null: 'null',
  };
  const types = Array.isArray(type) ? type : [type];
  return types.map((t) => names[String(t)] ?? String(t)).join(' or ');
}

/** `written`: a number as the file writes it (`writtenText`), when the value is one. */
export function describeValue(value: unknown, written?: string): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return `the text ${quote(value)}`;
    case 'number':
      return `the number ${written ?? value}`;
    case 'boolean':
      return `${value}`;
    case 'object':
      return 'a mapping';
    default:
      return typeof value;
  }
}
