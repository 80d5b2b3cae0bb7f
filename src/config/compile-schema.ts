import { Ajv2020, type SchemaObject, type ValidateFunction } from 'ajv/dist/2020.js';
// ajv's CommonJS module: its default export is the module, whose `default` is the function.
import standalone from 'ajv/dist/standalone/index.js';
import { isRecord } from '../core/records.js';
import type {
  WrittenAccount,
  WrittenGroup,
  WrittenGuide,
  WrittenPrune,
  WrittenSafety,
  WrittenTask,
} from '../core/written.js';
import {
  type CompiledSchema,
  compiledSchemaOf,
  isSchemaObject,
  SchemaLoadError,
  schemaDigest,
  VALIDATOR_MODULES,
  withoutListItems,
} from './check-schema.js';
import { checkedSchemaOf } from './checked-schema.js';

// ajv compiles the schema into JavaScript: 100-500 ms of a command's start, and ajv itself is a
// hundred modules to load. `npm run build` writes that JavaScript once (`validatorSources`, into
// dist/config/), and the installed program loads it instead (check-schema.ts); this module, and
// so ajv's compiler, is loaded only when there is no such code for the schema file at hand (tests
// run from src/, a schema file given by the caller).

/** The schema's key in ajv; refs are `${SCHEMA_KEY}#/$defs/name`. */
const SCHEMA_KEY = 'guidectl.schema.json';

/**
 * The validators of the whole-file check: the file without its list items (`shell`), and each
 * guide and group on its own. `allErrors` and `verbose`: every error, with its failing sub-schema
 * (how errors are mapped to codes).
 */
export interface StrictValidators {
  readonly shell: ValidateFunction<unknown>;
  readonly guide: ValidateFunction<WrittenGuide>;
  readonly group: ValidateFunction<WrittenGroup>;
}

/** Validators of single parts, to salvage the valid parts of an invalid file. */
export interface PartValidators {
  readonly account: ValidateFunction<WrittenAccount>;
  readonly prune: ValidateFunction<WrittenPrune>;
  readonly safety: ValidateFunction<WrittenSafety>;
  readonly guide: ValidateFunction<WrittenGuide>;
  readonly group: ValidateFunction<WrittenGroup>;
  readonly task: ValidateFunction<WrittenTask>;
}

/** Which schema (by ajv key) each validator checks against. */
const STRICT_REFS: Readonly<Record<keyof StrictValidators, string>> = {
  shell: `shell-${SCHEMA_KEY}`,
  guide: `${SCHEMA_KEY}#/$defs/guide`,
  group: `${SCHEMA_KEY}#/$defs/group`,
};
const PART_REFS: Readonly<Record<keyof PartValidators, string>> = {
  account: `${SCHEMA_KEY}#/$defs/account`,
  prune: `${SCHEMA_KEY}#/$defs/prune`,
  safety: `${SCHEMA_KEY}#/$defs/safety`,
  guide: `${SCHEMA_KEY}#/$defs/guide`,
  group: `${SCHEMA_KEY}#/$defs/group`,
  task: `${SCHEMA_KEY}#/$defs/task`,
};

/**
 * ajv over the whole-file check's schemas. Strict mode refuses unknown keywords, ignored keywords
 * and loose types in the schema itself; union types are allowed for `offline_auto_reply` (text or
 * null). `verbose` puts the failing sub-schema on each error, which is how errors are mapped.
 * `source`: keep the code, for `validatorSources` (ES modules).
 */
function strictAjv(schema: SchemaObject, source: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    allowUnionTypes: true,
    verbose: true,
    ...(source ? { code: { source: true, esm: true } } : {}),
  });
  ajv.addSchema(schema, SCHEMA_KEY);
  ajv.addSchema(withoutListItems(schema), STRICT_REFS.shell);
  return ajv;
}

/**
 * ajv over the parts' schema: without `additionalProperties: false` (an unknown key is reported by
 * the whole-file check already, and must not keep a guide out of the rules across files), and the
 * first error only.
 */
function lenientAjv(schema: SchemaObject, source: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: false,
    allowUnionTypes: true,
    ...(source ? { code: { source: true, esm: true } } : {}),
  });
  const lenient = withoutAdditionalProperties(schema);
  if (!isRecord(lenient)) throw new SchemaLoadError('the schema is not an object');
  ajv.addSchema(lenient, SCHEMA_KEY);
  return ajv;
}

/** A getter of compiled validators by ref, which throws for a ref the schema lacks. */
function getter(ajv: Ajv2020): <T>(ref: string) => ValidateFunction<T> {
  return <T>(ref: string): ValidateFunction<T> => {
    const v = ajv.getSchema<T>(ref);
    if (v === undefined || '$async' in v) throw new SchemaLoadError(`the schema has no usable ${ref}`);
    return v;
  };
}

/** The whole-file check's validators, compiled now. */
export function compileStrict(schema: SchemaObject): StrictValidators {
  const get = getter(strictAjv(schema, false));
  return {
    shell: get<unknown>(STRICT_REFS.shell),
    guide: get<WrittenGuide>(STRICT_REFS.guide),
    group: get<WrittenGroup>(STRICT_REFS.group),
  };
}

/** The parts' validators, compiled now. */
export function compileParts(schema: SchemaObject): PartValidators {
  const get = getter(lenientAjv(schema, false));
  return {
    account: get<WrittenAccount>(PART_REFS.account),
    prune: get<WrittenPrune>(PART_REFS.prune),
    safety: get<WrittenSafety>(PART_REFS.safety),
    guide: get<WrittenGuide>(PART_REFS.guide),
    group: get<WrittenGroup>(PART_REFS.group),
    task: get<WrittenTask>(PART_REFS.task),
  };
}

/**
 * The validators as the source of two ES modules (`strict` and `parts`), each exporting its
 * validators by the names of `StrictValidators` and `PartValidators`; what `npm run build` writes.
 * ajv's code requires a helper of its runtime (`ajv/dist/runtime/ucs2length`, code point counts)
 * even in an ES module, so each module is given a `require` of its own.
 */
export function validatorSources(schema: SchemaObject): { strict: string; parts: string } {
  const prelude =
    "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n";
  const source = (ajv: Ajv2020, refs: Readonly<Record<string, string>>): string => {
    const get = getter(ajv);
    for (const ref of Object.values(refs)) get(ref);
    return prelude + standalone.default(ajv, { ...refs });
  };
  return {
    strict: source(strictAjv(schema, true), STRICT_REFS),
    parts: source(lenientAjv(schema, true), PART_REFS),
  };
}

/** Compiles a schema object under ajv's strict mode now (the test of the schema file uses this too). */
export function compileSchemaObject(schema: SchemaObject): CompiledSchema {
  return compiledSchemaOf(schema, compileStrict(schema), () => compileParts(schema));
}

/**
 * The modules `npm run build` writes into dist/config/ for the schema file's text (the published
 * schema; its validators check the schema guidectl checks with, `checkedSchemaOf`): the validators,
 * each recording the digest of the schema they check (check-schema.ts loads them only for that).
 */
export function validatorModules(schemaText: string): Record<string, string> {
  const schema: unknown = JSON.parse(schemaText);
  if (!isSchemaObject(schema)) throw new SchemaLoadError('the schema is not a JSON Schema object');
  const sources = validatorSources(checkedSchemaOf(schema));
  const digest = `\nexport const schemaDigest = ${JSON.stringify(schemaDigest(schemaText))};\n`;
  return {
    [VALIDATOR_MODULES.strict]: sources.strict + digest,
    [VALIDATOR_MODULES.parts]: sources.parts + digest,
  };
}

/** A deep copy of a schema with every `additionalProperties: false` left out. */
function withoutAdditionalProperties(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutAdditionalProperties);
  if (!isRecord(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'additionalProperties' && v === false) continue;
    out[k] = withoutAdditionalProperties(v);
  }
  return out;
}
