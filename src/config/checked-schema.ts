import type { SchemaObject } from 'ajv/dist/2020.js';
import { isRecord } from '../core/records.js';
import { setOwn } from './read-block-yaml.js';

/** The `$defs` entry of the published schema that a text holding a `${name}` reference matches. */
export const VALUE_REFERENCE_DEF = 'valueReference';
const VALUE_REFERENCE_REF = `#/$defs/${VALUE_REFERENCE_DEF}`;

/**
 * The schema guidectl checks a file with, after it has put in each `${name}`'s value: the published
 * schema (schema/guidectl.schema.json, which editors check as you type, with no values to put in)
 * without its alternatives for a reference. There, a field whose pattern, length limit or list of
 * values a reference would break holds them as `anyOf: [{…}, {"$ref": "#/$defs/valueReference"}]`,
 * so that `appid: ${shop_app}` is not marked; here they are the field's own again (where the
 * `anyOf` stood), and `valueReference` is gone, so a value is held to them after substitution.
 */
export function checkedSchemaOf(published: SchemaObject): SchemaObject {
  const defs: unknown = published['$defs'];
  if (!isRecord(defs)) return published;
  const checked: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(defs)) {
    if (name !== VALUE_REFERENCE_DEF) setOwn(checked, name, withoutReferenceAlternative(def));
  }
  return { ...published, $defs: checked };
}

/** A `$defs` entry with the constraints of its reference alternative its own again. */
function withoutReferenceAlternative(def: unknown): unknown {
  if (!isRecord(def)) return def;
  const alternatives: unknown = def['anyOf'];
  if (!Array.isArray(alternatives) || alternatives.length !== 2) return def;
  const [own, reference]: unknown[] = alternatives;
  if (!isRecord(own) || !isRecord(reference) || reference['$ref'] !== VALUE_REFERENCE_REF) return def;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(def)) {
    if (key !== 'anyOf') setOwn(out, key, value);
    else for (const [k, v] of Object.entries(own)) setOwn(out, k, v);
  }
  return out;
}
