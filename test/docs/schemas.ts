import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import { ROOT } from './pages.js';

/** The output schemas of schema/ (all but the desired-state file's), by file name. */
export const ajv = new Ajv2020({ allErrors: true, strict: false });
const schemas = new Map<string, Record<string, unknown>>();
for (const name of readdirSync(join(ROOT, 'schema')).filter(
  (n) => n.endsWith('.schema.json') && n !== 'guidectl.schema.json',
)) {
  const schema = JSON.parse(readFileSync(join(ROOT, 'schema', name), 'utf8'));
  schemas.set(name, schema);
  ajv.addSchema(schema);
}

/** `value` is valid against `schema`, and every key it prints is one `schema` declares. */
export function expectValid(schema: string, value: unknown, what: string): void {
  const validate = ajv.getSchema(schema);
  if (validate === undefined) throw new Error(`no schema ${schema}`);
  expect(validate(value) ? [] : validate.errors, `${what} against ${schema}`).toEqual([]);
  expect(undeclaredKeys(schema, value), `${what}: keys printed that ${schema} does not declare`).toEqual([]);
}

/** The schema `ref` names (`x.schema.json`, `x.schema.json#/$defs/y`, or `#/$defs/y` within `base`). */
function resolve(ref: string, base: string): { id: string; node: Record<string, unknown> } {
  const [file, pointer = ''] = ref.split('#');
  const id = file === '' || file === undefined ? base : file;
  let node: unknown = schemas.get(id);
  for (const step of pointer.split('/').filter((s) => s !== ''))
    node = (node as Record<string, unknown>)[step];
  if (node === undefined) throw new Error(`no schema ${ref} from ${base}`);
  return { id, node: node as Record<string, unknown> };
}

/**
 * The top-level keys of `value` that no branch of the schema `ref` it is valid against declares:
 * the schemas allow keys they do not name, so a key printed but left out of a schema is caught
 * here. Of an array, the keys of its items.
 */
export function undeclaredKeys(ref: string, value: unknown, base = ref.split('#')[0] ?? ref): string[] {
  const { id, node } = resolve(ref, base);
  // A schema that is another's (`tasks`, an array of `task`): that one, whatever the value.
  if (typeof node['$ref'] === 'string') return undeclaredKeys(node['$ref'], value, id);
  if (Array.isArray(value)) {
    const items = node['items'] as Record<string, unknown> | undefined;
    if (items === undefined) return [];
    const itemRef = typeof items['$ref'] === 'string' ? items['$ref'] : `${id}#${pointerOf(ref)}/items`;
    return [...new Set(value.flatMap((v) => undeclaredKeys(itemRef, v, id)))];
  }
  if (typeof value !== 'object' || value === null) return [];
  const branches = node['anyOf'] ?? node['oneOf'];
  if (Array.isArray(branches)) {
    const missing = branches
      .map((_, i) => `${id}#${pointerOf(ref)}/${node['anyOf'] === undefined ? 'oneOf' : 'anyOf'}/${i}`)
      .filter((branch) => ajv.getSchema(branch)?.(value) === true)
      .map((branch) => undeclaredKeys(branch, value, id));
    return missing.find((m) => m.length === 0) ?? missing[0] ?? [];
  }
  const properties = (node['properties'] as Record<string, Record<string, unknown>> | undefined) ?? {};
  const map = node['additionalProperties'];
  const here = `${id}#${pointerOf(ref)}`;
  return Object.entries(value).flatMap(([key, v]) => {
    // A map (`environments`): each value against the schema of its values.
    if (typeof map === 'object' && map !== null && properties[key] === undefined)
      return undeclaredKeys(`${here}/additionalProperties`, v, id).map((k) => `${key}.${k}`);
    const property = properties[key];
    if (property === undefined) return [key];
    // A key whose value has keys of its own (`plan`, `environments`, a list of objects): those too.
    if (hasKeysBelow(property))
      return undeclaredKeys(`${here}/properties/${key}`, v, id).map((k) => `${key}.${k}`);
    return [];
  });
}

/** Whether a property's schema says what keys its value (or its value's items) may hold. */
function hasKeysBelow(property: Record<string, unknown>): boolean {
  return (
    ['$ref', 'properties', 'items', 'anyOf', 'oneOf'].some((key) => property[key] !== undefined) ||
    typeof property['additionalProperties'] === 'object'
  );
}

function pointerOf(ref: string): string {
  return ref.split('#')[1] ?? '';
}
