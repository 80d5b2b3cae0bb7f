import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadDesiredState } from '../../src/config/index.js';
import { NONE_LIST_PATHS } from '../../src/config/none-lists.js';

// The file format's rule: a key present states the exact value, and [] and null mean none. A list
// key with nothing after its colon (the last task deleted, say) was refused as "no value"
// (issue 23); it means none, as [], for every list key that may be empty, and editors agree.

const SCHEMA_FILE = fileURLToPath(new URL('../../schema/guidectl.schema.json', import.meta.url));
const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Record<string, unknown>;
const editor = new Ajv2020({ allErrors: true, strict: false }).compile(schema);

const tmp = mkdtempSync(join(tmpdir(), 'guidectl-null-lists-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
/** The file, always at the same path: the states compared name it. */
function write(text: string): string {
  const path = join(tmp, 'f.yaml');
  writeFileSync(path, text);
  return path;
}

const GUIDE =
  '  - account: alice_wx\n    nickname: Alice\n    head_image_url: https://mmbiz.qpic.cn/alice/0\n';

/** One file per kind of list key, `LIST` standing for its value. */
const KINDS: Readonly<Record<string, string>> = {
  groups: 'groups: LIST\n',
  guides: 'guides: LIST\n',
  tasks: `guides:\n${GUIDE}tasks: LIST\n`,
  members: `guides:\n${GUIDE}groups:\n  - name: Flagship\n    members: LIST\n`,
  quick_replies: `guides:\n${GUIDE}    quick_replies: LIST\n`,
  welcome: `guides:\n${GUIDE}    welcome: LIST\n`,
  default_welcome: 'account:\n  default_welcome: LIST\n',
  words: 'account:\n  sensitive_words:\n    semantics: append\n    words: LIST\n',
  'protect.guides': 'protect:\n  guides: LIST\n',
  'protect.guide_openids': 'protect:\n  guide_openids: LIST\n',
  'protect.groups': 'protect:\n  groups: LIST\n',
  'protect.tasks': 'protect:\n  tasks: LIST\n',
};

describe('null means none, as [] does, for every list key that may be empty', () => {
  it.each(Object.entries(KINDS))('%s', async (_kind, text) => {
    const file = (value: string): string => `version: 1\n${text.replace(' LIST', value)}`;
    const empty = await loadDesiredState([write(file(' []'))]);
    expect(empty.diagnostics).toEqual([]);
    for (const none of ['', ' ~', ' null']) {
      const loaded = await loadDesiredState([write(file(none))]);
      expect(loaded.diagnostics, JSON.stringify(none)).toEqual([]);
      expect(loaded.state).toEqual(empty.state);
      // As editors check it, with the published schema.
      expect(editor(parse(file(none))), JSON.stringify(editor.errors)).toBe(true);
    }
  });

  it('a list that may not be empty refuses null as it refuses [], in guidectl and in editors', async () => {
    const task = (recipients: string): string =>
      `version: 1\nguides:\n${GUIDE}tasks:\n  - name: Sale\n    guide: alice_wx\n    push_at: "2026-12-01T10:00:00+08:00"\n    recipients:${recipients}\n    materials: [{text: Hi}]\n`;
    for (const value of [' []', '']) {
      const { diagnostics } = await loadDesiredState([write(task(value))]);
      expect(diagnostics.map((d) => d.severity)).toEqual(['error']);
      expect(editor(parse(task(value)))).toBe(false);
    }
  });

  it('the published schema allows null at exactly the lists guidectl reads it as none', () => {
    const defs = schema['$defs'] as Record<string, Record<string, unknown>>;
    const resolve = (node: Record<string, unknown>): Record<string, unknown> => {
      const ref = node['$ref'];
      return typeof ref === 'string' ? resolve(defs[ref.replace('#/$defs/', '')] ?? {}) : node;
    };
    const at = (path: readonly string[]): Record<string, unknown> => {
      let node: Record<string, unknown> = schema;
      for (const step of path) {
        node = resolve(node);
        const next =
          step === '*' ? node['items'] : (node['properties'] as Record<string, unknown> | undefined)?.[step];
        node = next as Record<string, unknown>;
      }
      return resolve(node);
    };
    for (const path of NONE_LIST_PATHS) expect(at(path)['type'], path.join('.')).toEqual(['array', 'null']);
    const nullable = readFileSync(SCHEMA_FILE, 'utf8').match(/"type": \["array", "null"\]/g) ?? [];
    expect(nullable.length).toBe(NONE_LIST_PATHS.length);
    expect(Object.keys(KINDS).length).toBe(NONE_LIST_PATHS.length);
  });
});
