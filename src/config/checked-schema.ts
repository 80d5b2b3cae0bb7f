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
 * `anyOf` stood), and `valueReference` is gone, so a value is held to them after substitution; and
 * a list's `null`, read as none before the check, is no longer among its types.
 */
export function checkedSchemaOf(published: SchemaObject): SchemaObject {
  const lists = listsOnly(published);
  if (!isRecord(lists)) return published;
  const defs: unknown = lists['$defs'];
  if (!isRecord(defs)) return lists;
  const checked: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(defs)) {
    if (name !== VALUE_REFERENCE_DEF) setOwn(checked, name, withoutReferenceAlternative(def));
  }
  return { ...lists, $defs: checked };
}

/**
 * The schema with `"type": ["array", "null"]` as `"array"` again: guidectl reads such a `null` as
 * `[]` before it checks a file (`nullListsAsNone`), so a value there is a list or a mistake, and
 * its message and hint say "a list".
 */
function listsOnly(node: unknown): unknown {
  if (Array.isArray(node)) {
    const items = node.map(listsOnly);
    return items.every((item, i) => item === node[i]) ? node : items;
  }
  if (!isRecord(node)) return node;
  let out: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(node)) {
    const nullableList =
      key === 'type' &&
      Array.isArray(value) &&
      value.length === 2 &&
      value[0] === 'array' &&
      value[1] === 'null';
    const next = nullableList ? 'array' : listsOnly(value);
    if (next === value) continue;
    // Copied only where something changed: the rest of the schema is shared as it is.
    out ??= { ...node };
    setOwn(out, key, next);
  }
  return out ?? node;
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
