// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${name} in plain strings is the syntax under test
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type SchemaObject } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { findSchemaFile, SCHEMA_MESSAGES } from '../../src/config/check-schema.js';
import { checkedSchemaOf, VALUE_REFERENCE_DEF } from '../../src/config/checked-schema.js';
import { compileSchemaObject } from '../../src/config/compile-schema.js';
import { loadDesiredState } from '../../src/config/index.js';
import { parseYaml } from '../../src/config/parse-yaml.js';
import * as rules from '../../src/core/guide-rules.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCHEMA_FILE = nodePath.join(ROOT, 'schema', 'guidectl.schema.json');
/** The file: the schema editors check with, where a `${name}` may stand for a value. */
const published: SchemaObject = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'));
/** What guidectl checks a file with, after it has put in the values. */
const schema: SchemaObject = checkedSchemaOf(published);
const defs: Record<string, SchemaObject> = schema['$defs'];

/** Keywords that constrain a value (as opposed to describing or structuring it). */
const CONSTRAINTS = [
  'minLength',
  'maxLength',
  'pattern',
  'maxItems',
  'minItems',
  'minProperties',
  'maxProperties',
  'enum',
  'oneOf',
  'not',
  'minimum',
  'maximum',
];
/** Handled generically, with their own codes: unknown-key, missing-key, wrong-type. */
const GENERIC = [
  'additionalProperties',
  'patternProperties',
  'required',
  'type',
  'properties',
  'items',
  '$ref',
];

/** Every schema object in the file, with its JSON pointer. */
function* walk(node: SchemaObject, pointer = ''): Generator<[string, SchemaObject]> {
  yield [pointer, node];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' || key === '$defs') {
      for (const [name, sub] of Object.entries(value as Record<string, unknown>)) {
        if (typeof sub === 'object' && sub !== null)
          yield* walk(sub as SchemaObject, `${pointer}/${key}/${name}`);
      }
    } else if (key === 'items') {
      yield* walk(value as SchemaObject, `${pointer}/items`);
    } else if (key === 'oneOf' || key === 'anyOf' || key === 'allOf') {
      for (const [i, sub] of (value as SchemaObject[]).entries()) yield* walk(sub, `${pointer}/${key}/${i}`);
    }
  }
}

describe('schema/guidectl.schema.json', () => {
  it('is the file the loader finds', async () => {
    expect(await findSchemaFile()).toBe(SCHEMA_FILE);
  });

  it('compiles under ajv strict mode', () => {
    expect(() => compileSchemaObject(schema)).not.toThrow();
    // Strict in every respect; union types are allowed for `offline_auto_reply` (text or null).
    for (const s of [published, schema]) {
      const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
      expect(() => ajv.compile(s)).not.toThrow();
      expect(s['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
    }
  });

  it('gives every constraint a code and a message of its own', () => {
    const missing: string[] = [];
    for (const [name, def] of Object.entries(defs)) {
      for (const keyword of Object.keys(def)) {
        if (CONSTRAINTS.includes(keyword) && SCHEMA_MESSAGES[`${name}/${keyword}`] === undefined) {
          missing.push(`${name}/${keyword}`);
        }
      }
    }
    // Constraints outside $defs would have no name to map from.
    for (const [pointer, node] of walk(schema)) {
      const inDef = /^\/\$defs\/[^/]+$/.test(pointer);
      const inOneOfBranch = /\/oneOf\/\d+$/.test(pointer);
      for (const keyword of Object.keys(node)) {
        if (CONSTRAINTS.includes(keyword) && !inDef && !inOneOfBranch) missing.push(`${pointer}/${keyword}`);
        if (!CONSTRAINTS.includes(keyword) && !GENERIC.includes(keyword)) {
          expect(['$schema', 'title', 'description', 'examples', 'default', '$defs', 'const']).toContain(
            keyword,
          );
        }
      }
    }
    expect(missing).toEqual([]);
    for (const key of Object.keys(SCHEMA_MESSAGES)) {
      const [name, keyword] = key.split('/');
      expect(defs[name ?? '']?.[keyword ?? ''], key).toBeDefined();
    }
  });

  it('describes every property, for editors to show on hover', () => {
    const undescribed: string[] = [];
    for (const [pointer, node] of walk(published)) {
      const properties: unknown = node['properties'];
      if (typeof properties !== 'object' || properties === null) continue;
      for (const [key, value] of Object.entries(properties as Record<string, SchemaObject | boolean>)) {
        // oneOf branches restate a property as `true` only to require it.
        if (typeof value === 'boolean') continue;
        const ref: unknown = value['$ref'];
        const target = typeof ref === 'string' ? defs[ref.replace('#/$defs/', '')] : undefined;
        if (value['description'] === undefined && target?.['description'] === undefined) {
          undescribed.push(`${pointer}/properties/${key}`);
        }
      }
    }
    expect(undescribed).toEqual([]);
  });

  it('closes every mapping: additionalProperties is false', () => {
    for (const [pointer, node] of walk(published)) {
      if (node['type'] === 'object' && !/\/oneOf\/\d+$/.test(pointer)) {
        expect(node['additionalProperties'], pointer).toBe(false);
      }
    }
  });

  it("states the service's rules with the constants of core/guide-rules.ts, which the service enforces", () => {
    expect(defs['guideAccount']?.['pattern']).toBe(rules.WECHAT_ID.source);
    expect(defs['openid']?.['pattern']).toBe(rules.OPENID.source);
    // Members are held to the WeChat ID shape after the schema (to name an openid as such).
    expect(defs['member']?.['pattern']).toBe(rules.OPENID.source);
    expect(defs['mediaId']?.['pattern']).toBe(rules.MEDIA_ID.source);
    expect(defs['mediaId']?.['not']).toEqual({ const: rules.UNKNOWN_MEDIA_ID });
    expect(defs['appid']?.['pattern']).toBe(rules.APPID.source);
    expect(defs['nickname']?.['maxLength']).toBe(rules.NICKNAME_MAX_CHARS);
    expect(defs['headImageUrl']?.['maxLength']).toBe(rules.HEAD_IMAGE_URL_MAX_CHARS);
    // The same expression: a RegExp's source writes `/` as `\/`, the schema's pattern need not.
    expect(new RegExp(String(defs['headImageUrl']?.['pattern'])).source).toBe(rules.HEAD_IMAGE_URL.source);
    expect(defs['miniprogramTitle']?.['maxLength']).toBe(rules.CARD_TITLE_MAX_CHARS);
    expect(defs['offlineAutoReply']?.['maxLength']).toBe(rules.OFFLINE_REPLY_MAX_CHARS);
    expect(defs['quickReplies']?.['maxItems']).toBe(rules.MAX_QUICK_REPLIES);
    expect(defs['sensitiveWordList']?.['maxItems']).toBe(rules.MAX_SENSITIVE_WORDS);
    expect(defs['groupName']?.['maxLength']).toBe(rules.GROUP_NAME_MAX_CHARS);
    expect(defs['welcome']?.['maxItems']).toBe(rules.MAX_WELCOME_MESSAGES);
    expect(defs['defaultWelcome']?.['maxItems']).toBe(rules.MAX_WELCOME_MESSAGES);
  });

  it('counts lengths in code points', () => {
    const { errorsOf } = compileSchemaObject(schema);
    const validate = (value: unknown) => errorsOf(value).length === 0;
    const guide = (nickname: string) => ({
      version: 1,
      guides: [{ account: 'alice_wx', nickname, head_image_url: 'https://x.example/a' }],
    });
    expect(validate(guide('😀'.repeat(16)))).toBe(true);
    expect(validate(guide('😀'.repeat(17)))).toBe(false);
    expect(validate(guide('导'.repeat(16)))).toBe(true);
  });
});

/**
 * The `$defs` entries that can hold a string guidectl puts values into: every part of the file but
 * `version`, `environments`, the `x-` keys, `only_in` and `recipients_file` (as findStringUses).
 */
function substitutedDefs(): Set<string> {
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    const n = node as SchemaObject;
    const ref: unknown = n['$ref'];
    if (typeof ref === 'string') {
      const name = ref.replace('#/$defs/', '');
      if (found.has(name) || name === VALUE_REFERENCE_DEF) return;
      found.add(name);
      visit(defs[name]);
    }
    for (const [key, value] of Object.entries((n['properties'] ?? {}) as Record<string, unknown>)) {
      if (key !== 'only_in' && key !== 'recipients_file') visit(value);
    }
    visit(n['items']);
    for (const list of ['oneOf', 'anyOf', 'allOf'])
      for (const sub of (n[list] ?? []) as unknown[]) visit(sub);
  };
  for (const [key, value] of Object.entries(schema['properties'] as Record<string, unknown>)) {
    if (key !== 'version' && key !== 'environments') visit(value);
  }
  return found;
}

describe('the published schema (for editors) and the one guidectl checks with', () => {
  const validatorsOf = (s: SchemaObject) => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
    ajv.addSchema(s, 'schema');
    return {
      def: (name: string) => (value: unknown) => ajv.validate(`schema#/$defs/${name}`, value),
      file: (value: unknown) => ajv.validate('schema', value),
    };
  };
  const editor = validatorsOf(published);
  const checked = validatorsOf(schema);
  const substituted = substitutedDefs();
  /** The defs a reference could break: a pattern, a length limit or a list of values. */
  const constrained = Object.keys(defs).filter((name) =>
    ['pattern', 'maxLength', 'enum'].some((k) => defs[name]?.[k] !== undefined),
  );

  it('the checked one is the published one without the reference alternatives', () => {
    expect(JSON.stringify(schema)).not.toContain(VALUE_REFERENCE_DEF);
    expect(JSON.stringify(schema)).not.toContain('anyOf');
    expect(defs['appid']?.['pattern']).toBe(rules.APPID.source);
    expect(published['$defs']['appid']['pattern']).toBeUndefined();
    // A list whose null is none (read as [] before the check) is a list only.
    expect(published['$defs']['members']['type']).toEqual(['array', 'null']);
    expect(defs['members']?.['type']).toBe('array');
    // Every other entry is the same (but for its lists' null).
    for (const [name, def] of Object.entries(defs)) {
      const text = JSON.stringify(published['$defs'][name]);
      if (published['$defs'][name]['anyOf'] !== undefined) continue;
      if (text.includes('["array","null"]'))
        expect(JSON.stringify(def), name).toBe(text.replaceAll('["array","null"]', '"array"'));
      else expect(def, name).toBe(published['$defs'][name]);
    }
  });

  it('lets a ${name} stand in every field guidectl puts values into that a reference would break', () => {
    const reference = '${shop_app}';
    const long = `${reference}${'x'.repeat(2100)}`;
    const lifted = constrained.filter((name) => substituted.has(name));
    expect(lifted).toEqual(
      expect.arrayContaining(['appid', 'mediaId', 'guideAccount', 'nickname', 'pushAt']),
    );
    for (const name of lifted) {
      expect(editor.def(name)(reference), name).toBe(true);
      expect(editor.def(name)(`a ${reference} b`), name).toBe(true);
      // guidectl holds the value to the constraint: a long text with a reference breaks it there.
      expect(checked.def(name)(long), name).toBe(false);
      expect(editor.def(name)(long), name).toBe(true);
    }
    // Where no value is put in (environments, only_in, recipients_file), the two agree.
    for (const name of constrained.filter((n) => !substituted.has(n))) {
      expect(published['$defs'][name]['anyOf'], name).toBeUndefined();
    }
  });

  it('agree on every value without a reference', () => {
    const probes: unknown[] = [
      '',
      ' ',
      'x',
      'alice_wx',
      'wx1111111111111111',
      'wx2222',
      'Alexandra the Great',
      'https://x.example/a',
      'append',
      'UNKNOWN_MEDIA_ID',
      '2026-12-01T10:00:00+08:00',
      '25%',
      'x'.repeat(301),
      '$${shop_app}',
      '$$${shop_app}',
      '${two words}',
      '${',
      '$shop_app',
      0.5,
      null,
    ];
    for (const name of constrained) {
      for (const probe of probes) {
        expect(editor.def(name)(probe), `${name} ${JSON.stringify(probe)}`).toBe(checked.def(name)(probe));
      }
    }
  });

  it('agree on every fixture file without a reference; the published one takes those with one', async () => {
    const dir = fileURLToPath(new URL('./fixtures/', import.meta.url));
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml'));
    let compared = 0;
    for (const file of files) {
      const { parsed } = parseYaml(file, readFileSync(nodePath.join(dir, file), 'utf8'));
      if (parsed === undefined) continue;
      const value = parsed.value;
      if (/(?:^|[^$])\$\{[A-Za-z_]/.test(JSON.stringify(value))) {
        if (checked.file(value)) expect(editor.file(value), file).toBe(true);
        continue;
      }
      expect(editor.file(value), file).toBe(checked.file(value));
      compared++;
    }
    expect(compared).toBeGreaterThan(50);
  });

  it('an editor takes appid: ${shop_app}; guidectl checks the value each environment gives it', async () => {
    const file = nodePath.join(ROOT, 'test', 'config', 'environments', 'bad-production-value.yaml');
    const { parsed } = parseYaml(file, readFileSync(file, 'utf8'));
    expect(editor.file(parsed?.value)).toBe(true);
    expect(checked.file(parsed?.value)).toBe(false);
    const { diagnostics } = await loadDesiredState([file]);
    expect(diagnostics.map((d) => `${d.severity} ${d.code} ${d.line}:${d.column} ${d.message}`)).toEqual([
      'error appid-invalid 15:18 in environment production (${shop_app} = "wx2222"): appid "wx2222" is not a mini-program appid',
    ]);
    const two = nodePath.join(ROOT, 'test', 'config', 'environments', 'two-accounts.yaml');
    expect(editor.file(parseYaml(two, readFileSync(two, 'utf8')).parsed?.value)).toBe(true);
  });
});

describe('examples', () => {
  const EXAMPLES = nodePath.join(ROOT, 'examples');
  const yamlFiles = [
    'small-store.yaml',
    ...readdirSync(nodePath.join(EXAMPLES, 'retail-chain')).map((f) => `retail-chain/${f}`),
  ];

  it.each(['small-store.yaml', 'retail-chain'])('%s validates with no diagnostic', async (example) => {
    const { diagnostics, state } = await loadDesiredState([nodePath.join(EXAMPLES, example)]);
    expect(diagnostics).toEqual([]);
    expect(state).toBeDefined();
  });

  it('retail-chain has several groups and about 50 guides split by region', async () => {
    const { state, files } = await loadDesiredState([nodePath.join(EXAMPLES, 'retail-chain')]);
    expect(files.length).toBeGreaterThanOrEqual(4);
    expect(state?.guides.length).toBeGreaterThanOrEqual(45);
    expect(state?.groups.length).toBeGreaterThanOrEqual(5);
  });

  it('small-store uses every feature', async () => {
    const { state } = await loadDesiredState([nodePath.join(EXAMPLES, 'small-store.yaml')]);
    const welcome = [
      ...(state?.account?.defaultWelcome ?? []),
      ...(state?.guides ?? []).flatMap((g) => g.welcome ?? []),
    ];
    expect(new Set(welcome.map((w) => w.type))).toEqual(new Set(['text', 'image', 'miniprogram']));
    expect(state?.account?.offlineAutoReply).toBeTypeOf('string');
    expect(state?.account?.sensitiveWords?.words.length).toBeGreaterThan(0);
    expect(new Set(state?.guides.map((g) => g.id.kind))).toEqual(new Set(['account', 'openid']));
    expect(state?.guides.some((g) => (g.quickReplies?.length ?? 0) > 0)).toBe(true);
    expect(state?.groups).toHaveLength(1);
  });

  it.each(yamlFiles)('%s carries the yaml-language-server modeline, pointing at the schema', (file) => {
    const text = readFileSync(nodePath.join(EXAMPLES, file), 'utf8');
    const match = /^# yaml-language-server: \$schema=(\S+)$/m.exec(text);
    expect(match, 'modeline').not.toBeNull();
    const target = nodePath.resolve(nodePath.dirname(nodePath.join(EXAMPLES, file)), match?.[1] ?? '');
    expect(target).toBe(SCHEMA_FILE);
    expect(existsSync(target)).toBe(true);
  });

  it('the CI example validates on pull requests and applies on main with secrets', () => {
    const text = readFileSync(nodePath.join(EXAMPLES, 'ci', 'github-actions.yml'), 'utf8');
    expect(text).toContain('pull_request:');
    expect(text).toContain('branches: [main]');
    expect(text).toMatch(/guidectl validate/);
    expect(text).toMatch(/guidectl plan/);
    expect(text).toMatch(/guidectl apply .*--auto-approve/);
    // Each account's secrets are looked up by its prefix: WECHAT_* for one account, PREFIX_* per environment.
    expect(text).toContain("${{ secrets[format('{0}_APPID', matrix.prefix)] }}");
    expect(text).toContain("${{ secrets[format('{0}_SECRET', matrix.prefix)] }}");
  });
});
