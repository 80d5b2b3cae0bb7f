import type { JsonValue } from './plan-data.js';

/**
 * Part of `schema/guidectl.schema.json`: `$defs` entries by name, in the order the file lists them.
 * Each kind writes its own (`kinds/<kind>/schema.ts`) and `config/file-schema.ts` puts them together.
 */
export type SchemaFragment = { readonly [def: string]: { readonly [keyword: string]: JsonValue } };
