import { link, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWholeFile, writeWholeFile } from '../../src/core/whole-file.js';
import { ONE_GUIDE, useServiceTarget, workspace } from '../helpers/cli.js';

// Every file guidectl writes for the user (saved plans, exports) is written whole or not at all:
// a write cut short leaves the file as it was, and the file it replaces is never opened for writing.

describe('writeWholeFile and openWholeFile', () => {
  it('replaces the file, leaving no hidden file; a hard link to the old file keeps the old text', async () => {
    const ws = await workspace();
    try {
      const path = await ws.write('out.yaml', 'old\n');
      await link(path, join(ws.dir, 'old.yaml'));
      await writeWholeFile(path, 'new\n', 'out.yaml');
      expect(await readFile(path, 'utf8')).toBe('new\n');
      expect(await readFile(join(ws.dir, 'old.yaml'), 'utf8')).toBe('old\n');
      expect((await readdir(ws.dir)).sort()).toEqual(['old.yaml', 'out.yaml']);
    } finally {
      await ws.remove();
    }
  });

  it('a write cut short (abandoned after a piece) leaves the old file as it was, and no hidden file', async () => {
    const ws = await workspace();
    try {
      const path = await ws.write('chats.csv', 'old,whole\n');
      const file = await openWholeFile(path, 'chats.csv');
      await file.write('new,half');
      expect(await readFile(path, 'utf8')).toBe('old,whole\n');
      await file.abandon();
      expect(await readFile(path, 'utf8')).toBe('old,whole\n');
      expect(await readdir(ws.dir)).toEqual(['chats.csv']);
    } finally {
      await ws.remove();
    }
  });

  it('a file that cannot be put in place is a user error naming it; nothing is left behind', async () => {
    const ws = await workspace();
    try {
      // A folder that is not empty cannot be renamed over.
      await mkdir(join(ws.dir, 'plan.json'));
      await writeFile(join(ws.dir, 'plan.json', 'x'), '');
      await expect(writeWholeFile(join(ws.dir, 'plan.json'), '{}', 'plan.json')).rejects.toThrow(
        /^cannot write plan\.json: E[A-Z]+ \(does its folder exist, and may it be written\?\)$/,
      );
      expect(await readdir(ws.dir)).toEqual(['plan.json']);
      await expect(writeWholeFile(join(ws.dir, 'no', 'p.json'), '{}', 'no/p.json')).rejects.toThrow(
        'cannot write no/p.json: ENOENT',
      );
    } finally {
      await ws.remove();
    }
  });
});

describe('export -o', () => {
  const target = useServiceTarget({ reset: true });

  it('writes a new file in place of the old one, never into it', async () => {
    await target.ws.write('one.yaml', ONE_GUIDE);
    expect((await target.cli(['apply', 'one.yaml', '--auto-approve'])).code).toBe(0);
    const out = await target.ws.write('out.yaml', 'old\n');
    await link(out, join(target.ws.dir, 'before.yaml'));
    const exported = await target.cli(['export', '-o', 'out.yaml']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(await readFile(out, 'utf8')).toContain('alice_wx');
    expect(await readFile(join(target.ws.dir, 'before.yaml'), 'utf8')).toBe('old\n');
    expect((await readdir(target.ws.dir)).sort()).toEqual(['before.yaml', 'one.yaml', 'out.yaml']);
  });
});
