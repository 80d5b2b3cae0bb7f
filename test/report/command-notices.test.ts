import { describe, expect, it } from 'vitest';
import { exportWrittenNotice } from '../../src/report/export.js';
import { pathMenuSentNotice } from '../../src/report/path-menu.js';
import { liveGroup, liveGuide } from '../helpers/plan-builder.js';

describe('what the account commands say when done', () => {
  it('export -o counts what it wrote', () => {
    const live = { guides: [liveGuide('alice_wx'), liveGuide('bob_wx')], groups: [liveGroup('1', 'North')] };
    expect(exportWrittenNotice('out.yaml', live)).toBe('guidectl: wrote out.yaml: 2 guides, 1 group\n');
    // Tasks read but none pending: not named.
    expect(exportWrittenNotice('out.yaml', { ...live, tasks: [] })).toBe(
      'guidectl: wrote out.yaml: 2 guides, 1 group\n',
    );
  });

  it('path-menu names the program and the guide', () => {
    expect(pathMenuSentNotice('wx0123456789abcdef', { kind: 'account', account: 'alice_wx' })).toBe(
      'Sent the page-path menu of wx0123456789abcdef to alice_wx: they may copy its page paths for 60 days.\n',
    );
  });
});
