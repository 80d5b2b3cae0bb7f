import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useWorkspace } from '../helpers/cli.js';

// The same file reached through a symbolic link is one file: read once, not a file whose guides
// are all defined twice.

const GUIDE = `version: 1
guides:
  - account: alice_wx
    nickname: Alice
    head_image_url: https://example.com/a.png
`;

describe('validate: a file reached through a symbolic link is read once', () => {
  const ws = useWorkspace();

  it('a file and a link to it, a folder and a link to it, a folder holding a link to its own file', async () => {
    const dir = ws().dir;
    mkdirSync(join(dir, 'f'));
    await ws().write('f/a.yaml', GUIDE);
    symlinkSync('a.yaml', join(dir, 'f', 'alink.yaml'));
    symlinkSync('f', join(dir, 'flink'));
    for (const args of [
      ['f/a.yaml', 'f/alink.yaml'],
      ['f/alink.yaml', 'f/a.yaml'],
      ['f', 'flink'],
      ['f'],
      ['flink/a.yaml', 'f/'],
    ]) {
      const run = await runCli(['validate', ...args], { cwd: dir });
      expect(run.stdout + run.stderr, args.join(' ')).toBe('valid: 1 file, 1 guide, 0 groups\n');
      expect(run.code, args.join(' ')).toBe(0);
    }
  });
});
