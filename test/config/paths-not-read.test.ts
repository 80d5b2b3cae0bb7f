import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/config/index.js';
import { ALICE_ALONE } from '../helpers/cli.js';
import { tempFiles } from '../helpers/temp-files.js';

// A path that cannot be read as a file is said to be what it is: a broken link, a named pipe, not UTF-8.

const { dir: tmp, write } = tempFiles('paths');

describe('paths that are not files to read', () => {
  it('a broken symbolic link is said to be one, given or in a folder', async () => {
    const folder = nodePath.join(tmp, 'links');
    mkdirSync(folder);
    writeFileSync(nodePath.join(folder, 'a.yaml'), ALICE_ALONE);
    symlinkSync('gone.yaml', nodePath.join(folder, 'b.yaml'));
    const { diagnostics } = await loadDesiredState([folder, nodePath.join(folder, 'b.yaml')]);
    expect(diagnostics.map((d) => `${nodePath.basename(d.file)} ${d.code}: ${d.message}`)).toEqual([
      'b.yaml path-not-found: this is a broken symbolic link: it leads to gone.yaml, which does not exist',
    ]);
  });

  it('a named pipe is refused before it is opened, as a path and as a recipients_file', async () => {
    const folder = nodePath.join(tmp, 'pipes');
    mkdirSync(folder);
    execFileSync('mkfifo', [nodePath.join(folder, 'pipe.yaml'), nodePath.join(folder, 'vip.csv')]);
    const given = await loadDesiredState([nodePath.join(folder, 'pipe.yaml')]);
    expect(given.diagnostics.map((d) => d.code)).toEqual(['path-unreadable']);
    const task =
      'tasks:\n  - name: t\n    guide: alice_wx\n    push_at: "2026-12-01T10:00:00Z"\n    recipients_file: vip.csv\n    materials: [{text: Hi}]\n';
    const tasks = await loadDesiredState([write(ALICE_ALONE + task, 'pipes/tasks.yaml')]);
    expect(tasks.diagnostics.map((d) => `${d.code}: ${d.message}`)).toEqual([
      'recipients-file-not-found: recipients_file "vip.csv" cannot be read: this is not a regular file (a named pipe, a device or a socket); it is not read',
    ]);
  });

  it('a recipients_file that is not UTF-8 has its own code', async () => {
    mkdirSync(nodePath.join(tmp, 'gbk'));
    writeFileSync(
      nodePath.join(tmp, 'gbk', 'vip.csv'),
      Buffer.from([0x6f, 0x43, 0x31, 0x2c, 0xd5, 0xc5, 0x0a]),
    );
    const task =
      'tasks:\n  - name: t\n    guide: alice_wx\n    push_at: "2026-12-01T10:00:00Z"\n    recipients_file: vip.csv\n    materials: [{text: Hi}]\n';
    const { diagnostics } = await loadDesiredState([write(ALICE_ALONE + task, 'gbk/tasks.yaml')]);
    expect(diagnostics.map((d) => d.code)).toEqual(['recipients-file-not-text']);
  });
});
