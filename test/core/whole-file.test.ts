import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  chmod,
  chown,
  link,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { checkOutputPath, openWholeFile, writeWholeFile } from '../../src/core/whole-file.js';
import { guideEntries, ONE_GUIDE, useServiceTarget, workspace } from '../helpers/cli.js';
import { NO_TINY_DISK, useTinyDisk } from '../helpers/tiny-disk.js';

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

  it("keeps the replaced file's mode (0600 stays 0600), and its owner and group where the process may set them", async () => {
    const ws = await workspace();
    try {
      const path = await ws.write('chats.csv', 'old\n');
      await chmod(path, 0o600);
      const root = process.getuid?.() === 0;
      if (root) await chown(path, 4321, 4322);
      const file = await openWholeFile(path, 'chats.csv');
      // The hidden file holds the new text with the old mode from the first byte on.
      const hidden = (await readdir(ws.dir)).find((name) => name.startsWith('.'));
      expect(hidden).toBeDefined();
      expect((await stat(join(ws.dir, hidden ?? ''))).mode & 0o777).toBe(0o600);
      await file.write('new\n');
      await file.commit();
      const after = await stat(path);
      expect(after.mode & 0o7777).toBe(0o600);
      if (root) expect([after.uid, after.gid]).toEqual([4321, 4322]);
      // A new file keeps the default mode (0644 less the umask), as a file made by hand would.
      await writeWholeFile(join(ws.dir, 'new.csv'), 'x\n', 'new.csv');
      await writeFile(join(ws.dir, 'by-hand.csv'), 'x\n', { mode: 0o644 });
      const modeOf = async (name: string) => (await stat(join(ws.dir, name))).mode & 0o7777;
      expect(await modeOf('new.csv')).toBe(await modeOf('by-hand.csv'));
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

describe('writing through a link, and to what is not a file', () => {
  it('a symbolic link is kept: the file it points to is replaced, or made when it does not exist yet', async () => {
    const ws = await workspace();
    try {
      await mkdir(join(ws.dir, 'real'));
      const real = await ws.write('real/plan.json', 'old\n');
      await symlink(real, join(ws.dir, 'plan.json'));
      await writeWholeFile(join(ws.dir, 'plan.json'), 'new\n', 'plan.json');
      expect((await lstat(join(ws.dir, 'plan.json'))).isSymbolicLink()).toBe(true);
      expect(await readFile(real, 'utf8')).toBe('new\n');
      expect((await readdir(ws.dir)).sort()).toEqual(['plan.json', 'real']);
      // A link to a file not made yet (relative, as ln -s writes it): the file is made there.
      await symlink('real/next.json', join(ws.dir, 'next.json'));
      await checkOutputPath(join(ws.dir, 'next.json'), 'next.json', { flag: '--out', example: 'plan.json' });
      await writeWholeFile(join(ws.dir, 'next.json'), '{}\n', 'next.json');
      expect(await readlink(join(ws.dir, 'next.json'))).toBe('real/next.json');
      expect(await readFile(join(ws.dir, 'real', 'next.json'), 'utf8')).toBe('{}\n');
    } finally {
      await ws.remove();
    }
  });

  it('a named pipe (as /dev/stdout may be) is written to, not replaced by a plain file', async () => {
    const ws = await workspace();
    const fifo = join(ws.dir, 'out.pipe');
    await promisify(execFile)('mkfifo', [fifo]);
    const reader = spawn('cat', [fifo]);
    try {
      let read = '';
      reader.stdout.on('data', (chunk: Buffer) => {
        read += chunk.toString();
      });
      const ended = new Promise((done) => reader.on('close', done));
      await checkOutputPath(fifo, 'out.pipe', { flag: '-o', example: 'chats.jsonl' });
      await writeWholeFile(fifo, 'line 1\nline 2\n', 'out.pipe');
      await ended;
      expect(read).toBe('line 1\nline 2\n');
      expect((await lstat(fifo)).isFIFO()).toBe(true);
      expect(await readdir(ws.dir)).toEqual(['out.pipe']);
    } finally {
      reader.kill();
      await ws.remove();
    }
  });

  it('a device is accepted as it is; "-" is refused with how to print instead', async () => {
    const flag = { flag: '-o', example: 'guides.yaml' };
    await checkOutputPath('/dev/null', '/dev/null', flag);
    await expect(checkOutputPath('/work/-', '-', flag)).rejects.toThrow(
      '-o -: to print to standard output, leave -o out; else name a file, e.g. -o guides.yaml',
    );
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

  it('replacing a chmod 600 file keeps it 0600', async () => {
    await target.ws.write('one.yaml', ONE_GUIDE);
    expect((await target.cli(['apply', 'one.yaml', '--auto-approve'])).code).toBe(0);
    const out = await target.ws.write('out.yaml', 'old\n');
    await chmod(out, 0o600);
    const exported = await target.cli(['export', '-o', 'out.yaml']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(await readFile(out, 'utf8')).toContain('alice_wx');
    expect((await stat(out)).mode & 0o7777).toBe(0o600);
  });

  it.runIf(existsSync('/dev/full'))(
    'on a full disk (ENOSPC), says the disk is full, not to check the folder',
    async () => {
      await target.ws.write('one.yaml', ONE_GUIDE);
      expect((await target.cli(['apply', 'one.yaml', '--auto-approve'])).code).toBe(0);
      // /dev/full takes no byte: every write fails with ENOSPC.
      const exported = await target.cli(['export', '-o', '/dev/full']);
      expect(exported.code).toBe(1);
      expect(exported.stderr).toContain(
        'guidectl: cannot write /dev/full: the disk is full (ENOSPC); free some space, or write it elsewhere\n',
      );
      expect(exported.stderr).not.toContain('may it be written');
    },
  );
});

describe('on a nearly full disk (a 64 KiB tmpfs of its own), every byte is written or the command fails', () => {
  const target = useServiceTarget({ reset: true });
  const disk = useTinyDisk('64k');
  const MANY = `version: 1\nguides:\n${guideEntries(120)}`;

  /** The disk's files but the filler: what a failed write must not leave behind. */
  const filesOn = async (dir: string) => (await readdir(dir)).filter((name) => name !== 'filler').sort();

  it('plan --out of a plan bigger than the room left fails loudly, keeping the old plan byte for byte', async (ctx) => {
    const dir = disk.dir;
    if (dir === undefined) return ctx.skip(NO_TINY_DISK);
    await target.ws.write('one.yaml', ONE_GUIDE);
    await target.ws.write('many.yaml', MANY);
    const out = join(dir, 'p.json');
    const first = await target.cli(['plan', 'one.yaml', '--out', out]);
    expect(first.code, first.stderr).toBe(0);
    const old = await readFile(out);
    await disk.fill(8192);
    const plan = await target.cli(['plan', 'many.yaml', '--out', out]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      `guidectl: cannot write the plan to ${out}: the disk is full (ENOSPC); the old file is kept as it was; free some space, or write it elsewhere\n`,
    );
    expect(plan.stdout + plan.stderr).not.toContain('Saved the plan');
    expect(await readFile(out)).toEqual(old);
    expect(await filesOn(dir)).toEqual(['p.json']);
  });

  it('export -o of more than the room left fails loudly, keeping the old file; a new file is not made', async (ctx) => {
    const dir = disk.dir;
    if (dir === undefined) return ctx.skip(NO_TINY_DISK);
    await target.ws.write('many.yaml', MANY);
    const applied = await target.cli(['apply', 'many.yaml', '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    const out = join(dir, 'guides.yaml');
    await writeFile(out, 'version: 1\n# the good file\n');
    await disk.fill(4096);
    const exported = await target.cli(['export', '-o', out]);
    expect(exported.code).toBe(1);
    expect(exported.stderr).toContain(
      `guidectl: cannot write ${out}: the disk is full (ENOSPC); the old file is kept as it was; free some space, or write it elsewhere\n`,
    );
    expect(exported.stderr).not.toContain('wrote');
    expect(await readFile(out, 'utf8')).toBe('version: 1\n# the good file\n');
    expect(await filesOn(dir)).toEqual(['guides.yaml']);
    const fresh = await target.cli(['export', '-o', join(dir, 'new.yaml')]);
    expect(fresh.code).toBe(1);
    expect(fresh.stderr).toContain('the disk is full (ENOSPC); no file was made; free some space');
    expect(await filesOn(dir)).toEqual(['guides.yaml']);
  });
});

describe('an output path is checked before any work', () => {
  const target = useServiceTarget({ reset: true });
  const PLAN = { flag: '--out', example: 'plan.json' };

  it('checkOutputPath: an empty name, a folder, a missing folder, a file as folder; each names the flag and the fix', async () => {
    const ws = target.ws;
    const at = (p: string) => join(ws.dir, p);
    await mkdir(at('plans'));
    await ws.write('file.txt', '');
    await expect(checkOutputPath(at(''), '', PLAN)).rejects.toThrow(
      '--out is empty; name the file to write, e.g. --out plan.json',
    );
    await expect(checkOutputPath(at('plans'), 'plans', PLAN)).rejects.toThrow(
      '--out plans is a folder; name a file in it, e.g. --out plans/plan.json',
    );
    await expect(checkOutputPath(at('no/p.json'), 'no/p.json', PLAN)).rejects.toThrow(
      '--out no/p.json: the folder no does not exist; create it first, or name a file in a folder that exists',
    );
    await expect(checkOutputPath(at('file.txt/p.json'), 'file.txt/p.json', PLAN)).rejects.toThrow(
      '--out file.txt/p.json: file.txt is a file, not a folder',
    );
    await expect(checkOutputPath(at('plans/p.json'), 'plans/p.json', PLAN)).resolves.toBeUndefined();
    await ws.write('plans/p.json', 'old');
    await expect(checkOutputPath(at('plans/p.json'), 'plans/p.json', PLAN)).resolves.toBeUndefined();
  });

  it('plan --out, export -o and chats -o refuse such a path before reading the account: nothing printed, no call', async () => {
    await target.ws.write('one.yaml', ONE_GUIDE);
    await mkdir(join(target.ws.dir, 'out'));
    target.service.resetCalls();
    const runs = [
      [
        ['plan', 'one.yaml', '--out', '/nonexistent/p.json'],
        '--out /nonexistent/p.json: the folder /nonexistent does not exist; create it first, or name a file in a folder that exists',
      ],
      [['export', '-o', 'out'], '-o out is a folder; name a file in it, e.g. -o out/guides.yaml'],
      [['export', '-o', ''], '-o is empty; name the file to write, e.g. -o guides.yaml'],
      [
        ['chats', 'alice_wx', '--format', 'csv', '-o', 'out'],
        '-o out is a folder; name a file in it, e.g. -o out/chats.csv',
      ],
    ] as const;
    for (const [args, message] of runs) {
      const run = await target.cli(args);
      expect(run, args.join(' ')).toEqual({ code: 1, stdout: '', stderr: `guidectl: ${message}\n` });
    }
    expect(target.service.calls()).toEqual([]);
  });
});
