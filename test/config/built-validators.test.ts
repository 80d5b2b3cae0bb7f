import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CompiledSchema,
  checkSchema,
  compiledSchemaOf,
  findSchemaFile,
  isSchemaObject,
  schemaDigest,
  VALIDATOR_MODULES,
  validatorsOfModules,
} from '../../src/config/check-schema.js';
import { checkedSchemaOf } from '../../src/config/checked-schema.js';
import { compileSchemaObject, validatorModules } from '../../src/config/compile-schema.js';
import { parseYaml } from '../../src/config/parse-yaml.js';

// `npm run build` writes the schema's validators as JavaScript (dist/config/schema-*.js) so that
// the program does not compile the schema on every start (issue 10, goal 4). Those validators
// must say exactly what the compiled ones say: every fixture is checked with both.

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
// Inside the package, so that the modules' require of ajv's runtime resolves as in dist/.
const CACHE = fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url));

let text = '';
let dir = '';
let compiled: CompiledSchema;
let built: CompiledSchema;

beforeAll(async () => {
  text = await readFile(await findSchemaFile(), 'utf8');
  const published: unknown = JSON.parse(text);
  if (!isSchemaObject(published)) throw new Error('the schema is not an object');
  // What the loader does with the file: check against the schema without the reference alternatives.
  const schema = checkedSchemaOf(published);
  compiled = compileSchemaObject(schema);
  await mkdir(CACHE, { recursive: true });
  dir = await mkdtemp(nodePath.join(CACHE, 'guidectl-validators-'));
  for (const [name, source] of Object.entries(validatorModules(text))) {
    await writeFile(nodePath.join(dir, name), source);
  }
  const load = (name: string): Promise<unknown> => import(pathToFileURL(nodePath.join(dir, name)).href);
  const modules = await Promise.all([load(VALIDATOR_MODULES.strict), load(VALIDATOR_MODULES.parts)]);
  const validators = validatorsOfModules(modules[0], modules[1], schemaDigest(text));
  if (validators === undefined) throw new Error('the built modules were refused');
  built = compiledSchemaOf(schema, validators.strict, () => validators.parts);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function yamlFixtures(): Promise<string[]> {
  const entries = await readdir(FIXTURES, { recursive: true });
  return entries.filter((e) => /\.(ya?ml|txt)$/.test(e) && !e.endsWith('expect.txt')).sort();
}

describe('the validators built with the package', () => {
  it('give every fixture the diagnostics and salvaged parts of the compiled ones', async () => {
    const files = await yamlFixtures();
    expect(files.length).toBeGreaterThan(50);
    let checked = 0;
    for (const file of files) {
      const { parsed } = parseYaml(file, await readFile(nodePath.join(FIXTURES, file), 'utf8'));
      if (parsed === undefined) continue;
      const a = checkSchema(parsed, compiled);
      const b = checkSchema(parsed, built);
      expect(b, file).toEqual(a);
      checked++;
    }
    expect(checked).toBeGreaterThan(40);
  });

  it('are refused for another schema text, or modules without a digest', () => {
    const modules = { shell: () => true, guide: () => true, group: () => true };
    const parts = {
      account: () => true,
      prune: () => true,
      safety: () => true,
      guide: () => true,
      group: () => true,
      task: () => true,
    };
    const digest = schemaDigest(text);
    expect(
      validatorsOfModules({ ...modules, schemaDigest: digest }, { ...parts, schemaDigest: digest }, digest),
    ).toBeDefined();
    expect(validatorsOfModules(modules, parts, digest)).toBeUndefined();
    const other = schemaDigest(`${text} `);
    expect(
      validatorsOfModules({ ...modules, schemaDigest: other }, { ...parts, schemaDigest: other }, digest),
    ).toBeUndefined();
    expect(
      validatorsOfModules({ schemaDigest: digest }, { ...parts, schemaDigest: digest }, digest),
    ).toBeUndefined();
  });
});
