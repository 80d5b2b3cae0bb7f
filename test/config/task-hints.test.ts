import { describe, expect, it } from 'vitest';
import { runCli, useWorkspace } from '../helpers/cli.js';

// The fix a task's diagnostic names must be one that makes the file valid.

describe('validate: the hints of a task', () => {
  const ws = useWorkspace();
  const task = (line: string) =>
    [
      'version: 1',
      'guides:',
      '  - account: alice_wx',
      '    nickname: Alice',
      '    head_image_url: https://mmbiz.qpic.cn/alice/0',
      'tasks:',
      '  - name: Spring sale',
      '    guide: alice_wx',
      line,
      '    recipients: [oA]',
      '    materials:',
      '      - text: Hello',
      '',
    ].join('\n');
  const validate = async (line: string) => {
    await ws().write('tasks.yaml', task(line));
    return runCli(['validate', 'tasks.yaml'], { cwd: ws().dir });
  };

  it('push_at as Unix seconds: the accepted format, with that time written in it, not "put it in quotes"', async () => {
    const { code, stdout } = await validate('    push_at: 1796090400');
    expect(code).toBe(1);
    expect(stdout).not.toContain('put the value in quotes');
    expect(stdout).toContain(
      '  hint: push_at is a date and time with its offset, not Unix seconds: 1796090400 is "2026-12-01T02:00:00Z" (UTC), or write it in your offset, such as 2026-12-01T10:00:00+08:00\n',
    );
    // The hint's value is valid.
    expect((await validate('    push_at: "2026-12-01T02:00:00Z"')).code).toBe(0);
  });

  it('a number that quoted is still no date gets the format; one that quoted is valid gets the quotes', async () => {
    const year = await validate('    push_at: 2026');
    expect(year.stdout).toContain(
      '  hint: quoted, it is still refused: push_at "2026" is not an ISO 8601 date and time with an offset; write the date, the time and the UTC offset, such as 2026-12-01T10:00:00+08:00 (or Z for UTC)\n',
    );
    const name = await validate('    push_at: "2026-12-01T02:00:00Z"\n    remark: 12');
    expect(name.stdout).toContain('  hint: put the value in quotes: "12"\n');
  });

  it('recipients_file: "" is one error: it is empty', async () => {
    await ws().write(
      'tasks.yaml',
      task('    push_at: "2026-12-01T02:00:00Z"').replace('recipients: [oA]', 'recipients_file: ""'),
    );
    const { code, stdout } = await runCli(['validate', '--json', 'tasks.yaml'], { cwd: ws().dir });
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toEqual([
      expect.objectContaining({
        code: 'recipients-file-not-found',
        message: 'recipients_file is empty',
        line: 10,
      }),
    ]);
  });
});
