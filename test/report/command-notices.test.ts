import { describe, expect, it } from 'vitest';
import type { LiveState } from '../../src/core/live.js';
import { exportWrittenNotice, renderExport } from '../../src/report/export.js';
import { pathMenuSentNotice } from '../../src/report/path-menu.js';
import { liveGroup, liveGuide, liveState } from '../helpers/plan-builder.js';

describe('what the account commands say when done', () => {
  it('export -o counts what it wrote', () => {
    const live = liveState({
      guides: [liveGuide('alice_wx'), liveGuide('bob_wx')],
      groups: [liveGroup('1', 'North')],
    });
    const written = (state: LiveState) => exportWrittenNotice('out.yaml', renderExport(state).counts);
    expect(written(live)).toBe('guidectl: wrote out.yaml: 2 guides, 1 group\n');
    // Tasks read but none pending: not named.
    expect(written({ ...live, tasks: [] })).toBe('guidectl: wrote out.yaml: 2 guides, 1 group\n');
  });

  it('path-menu names the program and the guide', () => {
    expect(pathMenuSentNotice('wx0123456789abcdef', { kind: 'account', account: 'alice_wx' })).toBe(
      'Sent the page-path menu of wx0123456789abcdef to alice_wx: they may copy its page paths for 60 days.\n',
    );
  });
});
