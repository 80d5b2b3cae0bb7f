// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${name} in plain strings is the syntax under test
import { readFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type ConfigFs, loadConfig, loadDesiredState } from '../../src/config/index.js';
import { readBlockYaml } from '../../src/config/read-block-yaml.js';
import type { DesiredState } from '../../src/core/desired.js';
import { UsageError } from '../../src/core/errors.js';

const FIXTURES = fileURLToPath(new URL('./environments/', import.meta.url));
const TWO = nodePath.join(FIXTURES, 'two-accounts.yaml');
const BAD = nodePath.join(FIXTURES, 'bad-production-value.yaml');

function guidesOf(state: DesiredState | undefined): string[] {
  return (state?.guides ?? []).map(
    (g) => `${g.id.kind === 'account' ? g.id.account : g.id.openid} ${g.nickname}`,
  );
}

describe('a file with environments', () => {
  it('is read by the fast YAML reader', () => {
    expect(readBlockYaml(readFileSync(TWO, 'utf8'))).toBeDefined();
  });

  it('lists its environments with their targets and no values', async () => {
    const config = await loadConfig([TWO]);
    expect(config.environments).toEqual([
      {
        name: 'staging',
        baseUrl: 'https://staging.example.com',
        credentialsPrefix: 'STAGING',
        source: { file: TWO, line: 4, column: 3, endLine: 4, endColumn: 10 },
      },
      {
        name: 'production',
        credentialsPrefix: 'PROD',
        source: { file: TWO, line: 11, column: 3, endLine: 11, endColumn: 13 },
      },
    ]);
  });

  it('checks every environment, and gives each its desired state', async () => {
    const result = await loadDesiredState([TWO]);
    expect(result.diagnostics).toEqual([]);
    expect(result.state).toBeUndefined();
    expect([...(result.states?.keys() ?? [])]).toEqual(['staging', 'production']);
    const staging = result.states?.get('staging');
    const production = result.states?.get('production');
    // only_in: the QA guide and group in staging only; bob_wx defined once per environment.
    expect(guidesOf(staging)).toEqual(['alice_wx Alice', 'qa_bot_wx QA', 'bob_wx Bob (test)']);
    expect(guidesOf(production)).toEqual(['alice_wx Alice', 'bob_wx Bob']);
    expect(staging?.groups.map((g) => g.name)).toEqual(['Flagship', 'QA']);
    expect(production?.groups.map((g) => g.name)).toEqual(['Flagship']);
    // Each environment's values, and $${ as a literal ${.
    expect(production?.guides[0]?.quickReplies).toEqual([
      'Hello, I am Alice.',
      'Prices in ${currency} are shown at checkout',
    ]);
    expect(staging?.guides[0]?.quickReplies?.[0]).toBe('Hello from staging, I am Alice.');
    expect(production?.guides[0]?.welcome).toEqual([
      {
        type: 'miniprogram',
        appid: 'wx2222222222222222',
        title: 'New arrivals',
        path: 'pages/new/index',
        mediaId: 'PROD_COVER',
      },
    ]);
    expect(staging?.guides[0]?.welcome?.[0]).toMatchObject({
      appid: 'wx1111111111111111',
      mediaId: 'STAGING_COVER',
    });
    // Positions are those of the file.
    expect(production?.guides[1]?.source).toMatchObject({ file: TWO, line: 38, column: 5 });
  });

  it('loaded once, gives the state of each environment', async () => {
    const config = await loadConfig([TWO]);
    const production = config.desiredState('production');
    expect(production.diagnostics).toEqual([]);
    expect(guidesOf(production.state)).toEqual(['alice_wx Alice', 'bob_wx Bob']);
    expect(guidesOf(config.desiredState('staging').state)).toHaveLength(3);
    expect((await loadDesiredState([TWO], { environment: 'staging' })).state?.guides).toHaveLength(3);
  });

  it('an environment the files do not declare is a usage error naming the environments', async () => {
    const config = await loadConfig([TWO]);
    expect(() => config.desiredState('prod')).toThrow(UsageError);
    expect(() => config.desiredState('prod')).toThrow(
      'no environment "prod" in the files (did you mean "production"?); the environments are: staging, production',
    );
    expect(() => config.desiredState('stagin')).toThrow('did you mean "staging"?');
    const plain = await loadConfig([nodePath.join(FIXTURES, '..', 'fixtures', 'member-unknown.yaml')]);
    expect(() => plain.desiredState('staging')).toThrow('the files declare no environments');
  });

  it('a value that makes a field invalid in one environment: at the ${…}, naming the environment and the value', async () => {
    const result = await loadDesiredState([BAD]);
    expect(result.states).toEqual(new Map());
    expect(result.diagnostics).toEqual([
      {
        severity: 'error',
        code: 'appid-invalid',
        message:
          'in environment production (${shop_app} = "wx2222"): appid "wx2222" is not a mini-program appid',
        hint: expect.any(String),
        file: BAD,
        line: 15,
        column: 18,
        endLine: 15,
        endColumn: 29,
        environments: ['production'],
      },
    ]);
    // Staging alone is valid.
    const staging = await loadDesiredState([BAD], { environment: 'staging' });
    expect(staging.diagnostics).toEqual([]);
    expect(staging.state?.guides).toHaveLength(1);
  });

  it('a value missing in one environment is reported for that environment only', async () => {
    const file = nodePath.join(FIXTURES, '..', 'fixtures', 'env-value-missing.yaml');
    const all = await loadDesiredState([file]);
    expect(
      all.diagnostics.map((d) => `${d.code} ${d.line}:${d.column} ${d.environments?.join(',')}`),
    ).toEqual(['env-value-missing 19:16 production', 'env-value-missing 21:42 production']);
    expect(all.diagnostics[0]?.message).toBe(
      'in environment production: there is no value "cover" (staging has one)',
    );
    const staging = await loadDesiredState([file], { environment: 'staging' });
    expect(staging.diagnostics).toEqual([]);
    expect(staging.state?.guides.map((g) => g.welcome?.[0])).toEqual([
      { type: 'image', mediaId: 'STAGING_COVER' },
      { type: 'image', mediaId: 'QA_COVER' },
    ]);
  });

  it('the same problem in every environment is reported once, without naming them', async () => {
    const text = readFileSync(TWO, 'utf8').replace('nickname: Alice\n', 'nickname: Alexandra the Great\n');
    const { fs, path } = memoryFile(text);
    const { diagnostics } = await loadDesiredState([path], { fs });
    expect(diagnostics.map((d) => `${d.code} ${d.line}:${d.column} ${d.message}`)).toEqual([
      'nickname-too-long 19:15 nickname "Alexandra the Great" is 19 characters; the limit is 16',
    ]);
  });

  it('environments declared in one file of a folder serve the others', async () => {
    const result = await loadDesiredState([nodePath.join(FIXTURES, 'split')]);
    expect(result.diagnostics).toEqual([]);
    expect(guidesOf(result.states?.get('staging'))).toEqual(['alice_wx Alice (staging)']);
    expect(guidesOf(result.states?.get('production'))).toEqual(['alice_wx Alice']);
  });
});

describe('a file without environments', () => {
  it('is read as before: one state, no environments, ${…} kept as written with a warning that says how to write it', async () => {
    const text =
      'version: 1\nguides:\n  - account: alice_wx\n    nickname: Alice\n    head_image_url: https://mmbiz.qpic.cn/a/0\n    quick_replies: ["${x} and $${y}"]\n';
    const { fs, path } = memoryFile(text);
    const result = await loadDesiredState([path], { fs });
    expect(result.environments).toBeUndefined();
    expect(result.states).toBeUndefined();
    expect(result.state?.guides[0]?.quickReplies).toEqual(['${x} and ${y}']);
    expect(result.diagnostics.map((d) => `${d.severity} ${d.code} ${d.line}:${d.column} ${d.hint}`)).toEqual([
      'warning environments-undeclared 6:22 declare the environments with a value "x" under "environments:", or give the file that declares them too; for the text ${x} itself, write $${x}',
    ]);
  });

  it('$${ is a literal ${ there too: no warning, and the text ${…} itself', async () => {
    const text = [
      'version: 1',
      'guides:',
      '  - account: alice_wx',
      '    nickname: $${nick}',
      '    head_image_url: https://mmbiz.qpic.cn/a/0',
      '    quick_replies: ["Prices in $${currency}", "cost: $5, $$5", "$$${a}", "${not a name"]',
      '',
    ].join('\n');
    const { fs, path } = memoryFile(text);
    const result = await loadDesiredState([path], { fs });
    expect(result.diagnostics).toEqual([]);
    expect(result.state?.guides[0]?.nickname).toBe('${nick}');
    expect(result.state?.guides[0]?.quickReplies).toEqual([
      'Prices in ${currency}',
      'cost: $5, $$5',
      '$${a}',
      '${not a name',
    ]);
  });

  it('a value made from $${ is checked as the text it makes, at its place in the file', async () => {
    const text =
      'version: 1\nguides:\n  - account: alice_wx\n    nickname: $${seventeen_chars}\n    head_image_url: https://mmbiz.qpic.cn/a/0\n';
    const { fs, path } = memoryFile(text);
    const { diagnostics } = await loadDesiredState([path], { fs });
    expect(diagnostics.map((d) => `${d.code} ${d.line}:${d.column} ${d.message}`)).toEqual([
      'nickname-too-long 4:15 nickname "${seventeen_chars}" is 18 characters; the limit is 16',
    ]);
  });
});

/** One file held in memory, through the loader's injected file-system reads. */
function memoryFile(text: string): { fs: ConfigFs; path: string } {
  const path = '/memory/guides.yaml';
  const bytes = new TextEncoder().encode(text);
  return {
    path,
    fs: {
      stat: async () => ({ isFile: () => true, isDirectory: () => false, size: bytes.length }),
      readdir: async () => [],
      readFile: async () => bytes,
    },
  };
}
