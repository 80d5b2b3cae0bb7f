// Part of `npm run build`, after tsc. First it writes schema/guidectl.schema.json from the kinds'
// fragments (dist/config/file-schema.js), so that the published schema states the code's limits;
// a test holds the committed file to them. Then it writes the schema's validators as JavaScript
// beside the compiled config code (dist/config/schema-*.js), so that the installed program loads
// them instead of compiling the schema with ajv on every start (issue 10, goal 4). Each module
// records the digest of the schema it was made from; the program compiles the schema itself when
// the digest does not match (an edited schema, a build without this step).
import { readFile, writeFile } from 'node:fs/promises';
import { validatorModules } from '../dist/config/compile-schema.js';
import { fileSchemaText } from '../dist/config/file-schema.js';

const root = new URL('../', import.meta.url);
const schemaFile = new URL('schema/guidectl.schema.json', root);
const text = fileSchemaText();
// Written only when it changed, so that a build leaves an unchanged file's time alone.
if ((await readFile(schemaFile, 'utf8').catch(() => '')) !== text) await writeFile(schemaFile, text);
const modules = validatorModules(text);
for (const [name, source] of Object.entries(modules)) {
  await writeFile(new URL(`dist/config/${name}`, root), source);
}
