import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/wire/json.js';
import { runCli, useServiceTarget } from '../helpers/cli.js';

// Diagnostics are listed by file, line and column, in text and JSON; the underline of a plan error
// at a `protect` entry covers that entry only.

const target = useServiceTarget();
const ws = () => target.ws;
const cli = target.cli;

const LIVE = `version: 1
groups:
  - name: Flagship
    members: [alice_wx, bob_wx]
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://img.example/alice
  - account: bob_wx
    nickname: Bob
    head_image_url: https://img.example/bob
`;

const PROTECTING = `version: 1
protect:
  guides: [alice_wx, bob_wx]
  groups: [Flagship]
prune:
  guides: true
  groups: true
guides: []
`;

describe('plan errors at protect entries', () => {
  it('are sorted by line and column, and each underline covers its entry only', async () => {
    await ws().write('live.yaml', LIVE);
    expect((await cli(['apply', 'live.yaml', '--auto-approve'])).code).toBe(0);
    await ws().write('p.yaml', PROTECTING);
    const run = await cli(['plan', 'p.yaml']);
    expect(run.code).toBe(1);
    const places = [...run.stderr.matchAll(/^p\.yaml:(\d+:\d+): error: .*\[([a-z-]+)\]$/gm)].map(
      (m) => `${m[1]} ${m[2]}`,
    );
    expect(places).toEqual([
      '3:12 protected-guide-delete',
      '3:12 protected-member-remove',
      '3:22 protected-guide-delete',
      '3:22 protected-member-remove',
      '4:12 protected-group-delete',
    ]);
    const underlines = [...run.stderr.matchAll(/^ {4}\| ( *\^+)$/gm)].map((m) => m[1]);
    expect(underlines).toEqual([
      '           ^^^^^^^^',
      '           ^^^^^^^^',
      '                     ^^^^^^',
      '                     ^^^^^^',
      '           ^^^^^^^^',
    ]);

    const json = await cli(['plan', 'p.yaml', '--json']);
    const diagnostics = (parseJson(json.stdout) as { diagnostics: Array<Record<string, unknown>> })
      .diagnostics;
    expect(diagnostics.map((d) => [d['line'], d['column'], d['endColumn']])).toEqual([
      [3, 12, 20],
      [3, 12, 20],
      [3, 22, 28],
      [3, 22, 28],
      [4, 12, 20],
    ]);
  });
});

describe('validate', () => {
  it('lists the diagnostics of several files by file, line and column', async () => {
    await ws().write(
      'b.yaml',
      'version: 1\nguides:\n  - account: bob_wx\n    nickname: ""\n    head_image_url: https://x.example/b\n',
    );
    await ws().write(
      'a.yaml',
      'version: 1\nguides:\n  - account: alice_wx\n    nickname: ""\n    head_image_url: ftp://x\n',
    );
    const run = await runCli(['validate', 'b.yaml', 'a.yaml', '--json'], { cwd: ws().dir });
    const diagnostics = parseJson(run.stdout) as Array<{ file: string; line: number; column: number }>;
    const places = diagnostics.map((d) => `${d.file}:${d.line}:${d.column}`);
    expect(places.length).toBeGreaterThanOrEqual(3);
    expect(places).toEqual(
      [...diagnostics]
        .sort((x, y) => x.file.localeCompare(y.file) || x.line - y.line || x.column - y.column)
        .map((d) => `${d.file}:${d.line}:${d.column}`),
    );
    expect(places[0]?.startsWith('a.yaml:')).toBe(true);
  });
});
