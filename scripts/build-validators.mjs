// Part of `npm run build`, after tsc: writes the schema's validators as JavaScript beside the
// compiled config code (dist/config/schema-*.js), so that the installed program loads them instead
// of compiling the schema with ajv on every start (issue 10, goal 4). Each module records the
// digest of the schema it was made from; the program compiles the schema itself when the digest
// does not match (an edited schema, a build without this step).
import { readFile, writeFile } from 'node:fs/promises';
import { validatorModules } from '../dist/config/compile-schema.js';

const root = new URL('../', import.meta.url);
const text = await readFile(new URL('schema/guidectl.schema.json', root), 'utf8');
const modules = validatorModules(text);
for (const [name, source] of Object.entries(modules)) {
  await writeFile(new URL(`dist/config/${name}`, root), source);
}
