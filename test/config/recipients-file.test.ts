import { describe, expect, it } from 'vitest';
import { parseRecipients } from '../../src/config/recipients-file.js';

const read = (text: string) => {
  const { openids, diagnostics } = parseRecipients('vip.csv', text);
  return {
    openids,
    problems: diagnostics.map((d) => `${d.severity} ${d.code} ${d.line}:${d.column} ${d.message}`),
  };
};

describe('recipients files', () => {
  it('reads one openid a line, skipping blank lines and # comments, as a sorted set', () => {
    expect(read('# VIPs\noB\n\n  oA  \r\noC\n')).toEqual({ openids: ['oA', 'oB', 'oC'], problems: [] });
  });

  it('reads the openid column of a CSV file, quoted fields and all, whatever its place', () => {
    const csv = 'name,OpenID,phone\n"Lee, Ann",oA,1\n"Bo ""B"" Li", "oB" ,2\n';
    expect(read(csv)).toEqual({ openids: ['oA', 'oB'], problems: [] });
    expect(read('openid\noA\n')).toEqual({ openids: ['oA'], problems: [] });
  });

  it('warns of a repeated openid at its line, naming the first', () => {
    expect(read('oA\noB\noA\n').problems).toEqual([
      'warning recipient-duplicate 3:1 recipient oA is listed twice (first at line 1); it is sent once',
    ]);
  });

  it('points at the line and column of a bad value, every one of them', () => {
    expect(read('name,openid\nAnn,oA\nBo,o B\nCy,\n').problems).toEqual([
      'error recipients-file-bad-line 3:4 "o B" is not an openid; an openid has 1 to 64 letters, digits, "_" or "-"',
      'error recipients-file-bad-line 4:4 this line has no openid',
    ]);
  });

  it('refuses a CSV header without an openid column, and a file without openids', () => {
    expect(read('name,phone\nAnn,1\n').problems).toEqual([
      'error recipients-file-bad-line 1:1 this CSV header has no "openid" column (it has "name", "phone")',
    ]);
    expect(read('# nobody yet\n\n').problems).toEqual([
      'error recipients-file-empty 1:1 the recipients file lists no openid; a task is sent to at least one customer',
    ]);
    expect(read('openid\n').problems.map((p) => p.split(' ')[1])).toEqual(['recipients-file-empty']);
  });
});
