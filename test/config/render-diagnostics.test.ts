import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/core/diagnostics.js';
import { displayPath } from '../../src/core/paths.js';
import {
  displayWidth,
  renderDiagnostics,
  renderDiagnosticsJson,
  renderSummary,
} from '../../src/report/diagnostic-text.js';

const diagnostic: Diagnostic = {
  severity: 'error',
  code: 'nickname-too-long',
  message: 'nickname "导购导购导购导购导购导购导购导购导" is 17 characters; the limit is 16',
  file: '/repo/guides/east.yaml',
  line: 2,
  column: 13,
  endLine: 2,
  endColumn: 30,
  hint: 'shorten it',
};
const sources = new Map([
  ['/repo/guides/east.yaml', '- account: a\n  nickname: 导购导购导购导购导购导购导购导购导\n'],
]);

describe('renderDiagnostics', () => {
  it('prints file:line:col, the line with wide characters underlined, and the hint', () => {
    expect(renderDiagnostics([diagnostic], { cwd: '/repo', sources })).toBe(
      [
        'guides/east.yaml:2:13: error: nickname "导购导购导购导购导购导购导购导购导" is 17 characters; the limit is 16 [nickname-too-long]',
        '  2 |   nickname: 导购导购导购导购导购导购导购导购导',
        `    |             ${'^'.repeat(34)}`,
        '  hint: shorten it',
        '',
      ].join('\n'),
    );
  });

  it('prints nothing for no diagnostics, and no source line without sources', () => {
    expect(renderDiagnostics([])).toBe('');
    const plain: Diagnostic = {
      severity: 'error',
      code: 'nickname-too-long',
      message: diagnostic.message,
      file: diagnostic.file,
      line: 2,
      column: 13,
    };
    expect(renderDiagnostics([plain])).toBe(
      `${diagnostic.file}:2:13: error: ${diagnostic.message} [nickname-too-long]\n`,
    );
  });

  it('puts the carets under the marked text after emoji and Chinese, as terminals draw them', () => {
    const line = '  welcome: 🚀 中文 ✅☕ hello';
    const column = line.indexOf('hello') + 1;
    const rocket: Diagnostic = {
      severity: 'warning',
      code: 'nickname-too-long',
      message: 'too long',
      file: '/repo/w.yaml',
      line: 1,
      column,
      endLine: 1,
      endColumn: column + 'hello'.length,
    };
    const shown = renderDiagnostics([rocket], {
      cwd: '/repo',
      sources: new Map([['/repo/w.yaml', `${line}\n`]]),
    });
    // 11 columns of "  welcome: ", then 🚀 2, space, 中文 4, space, ✅ 2, ☕ 2, space: 24.
    expect(shown.split('\n').slice(1, 3)).toEqual([`  1 | ${line}`, `    | ${' '.repeat(24)}^^^^^`]);
  });

  it('colours only when asked', () => {
    expect(renderDiagnostics([diagnostic], { color: true })).toContain('\u001b[31m');
    expect(renderDiagnostics([diagnostic], { color: false })).not.toContain('\u001b[');
  });
});

describe('renderDiagnosticsJson', () => {
  it('is an array of objects with stable keys and paths relative to cwd', () => {
    const json = renderDiagnosticsJson([diagnostic], { cwd: '/repo' });
    expect(json.endsWith('\n')).toBe(true);
    const [first] = JSON.parse(json);
    expect(Object.keys(first)).toEqual([
      'severity',
      'code',
      'message',
      'file',
      'line',
      'column',
      'endLine',
      'endColumn',
      'hint',
    ]);
    expect(first.file).toBe('guides/east.yaml');
  });
});

describe('renderSummary', () => {
  it('counts the files the errors are in, of those read', () => {
    const error = { ...diagnostic, severity: 'error' } as const;
    const two = [
      { ...error, file: 'a.yaml' },
      { ...error, file: 'b.yaml' },
    ];
    expect(renderSummary(two, { files: 3 })).toBe('2 errors in 2 of 3 files\n');
    expect(renderSummary(two, { files: 2 })).toBe('2 errors in 2 files\n');
  });

  const warning: Diagnostic = { ...diagnostic, severity: 'warning', code: 'member-unknown' };
  it('counts errors and warnings, or says what is valid', () => {
    expect(renderSummary([diagnostic, diagnostic, warning], { files: 3 })).toBe(
      '2 errors, 1 warning in 1 of 3 files\n',
    );
    expect(renderSummary([], { files: 1, guides: 10000, groups: 1 })).toBe(
      'valid: 1 file, 10,000 guides, 1 group\n',
    );
    expect(renderSummary([warning], { files: 2, guides: 0, groups: 2 })).toBe(
      'valid with 1 warning: 2 files, 0 guides, 2 groups\n',
    );
  });
});

describe('displayPath and displayWidth', () => {
  it('shows paths inside cwd relative, others absolute', () => {
    expect(displayPath('/repo/a/b.yaml', '/repo')).toBe('a/b.yaml');
    expect(displayPath('/elsewhere/b.yaml', '/repo')).toBe('/elsewhere/b.yaml');
    expect(displayPath('/repo/..b/c.yaml', '/repo')).toBe('..b/c.yaml');
    expect(displayPath('relative.yaml', '/repo')).toBe('relative.yaml');
  });

  it('counts terminal columns', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('导购')).toBe(4);
    expect(displayWidth('😀')).toBe(2);
    expect(displayWidth('🚀✅☕')).toBe(6);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('\t')).toBe(4);
  });
});
