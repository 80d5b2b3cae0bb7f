import { describe, expect, it } from 'vitest';
import type { StaleReport } from '../../src/core/safety.js';
import { diffCalls, diffLiveFingerprints, liveFingerprints } from '../../src/plan/index.js';
import { renderStale } from '../../src/report/stale.js';
import {
  desiredGuide,
  desiredState,
  liveGroup,
  liveGuide,
  liveState,
  planOf,
} from '../helpers/plan-builder.js';
import { UNSAFE } from '../helpers/unsafe-text.js';

// renderStale on reports made as apply makes them: the live differences from the fingerprints of
// two reads, the call differences of two plans from the planner.

const before = liveState({
  guides: [liveGuide('alice_wx'), liveGuide('bob_wx')],
  groups: [liveGroup('1860131524965138433', 'North', ['alice_wx'])],
  account: { offlineAutoReply: null },
});
const after = liveState({
  guides: [liveGuide('alice_wx', { nickname: 'Alicia' }), liveGuide('carol_wx')],
  groups: [liveGroup('1860131524965138433', 'North', ['alice_wx', 'carol_wx'])],
  account: { offlineAutoReply: 'Back soon' },
});
const desired = desiredState({
  guides: [desiredGuide('alice_wx'), desiredGuide('dave_wx')],
  prune: { guides: true, groups: false },
});
const saved = planOf(desired, before);
const now = planOf(desired, after);

const report: StaleReport = {
  savedPlanId: 'aaaaaaaaaaaa',
  live: diffLiveFingerprints(liveFingerprints(before), liveFingerprints(after)),
  filesChanged: true,
  paths: ['guides.yaml', 'more.yaml'],
  now: { planId: 'bbbbbbbbbbbb', calls: diffCalls(saved.calls, now.calls) },
};

describe('renderStale', () => {
  const lines = renderStale(report).split('\n');

  it('says why, since which plan, and that nothing was changed', () => {
    expect(lines[0]).toBe(
      'plan is stale: the live state changed and the files (guides.yaml, more.yaml) changed since plan aaaaaaaaaaaa was made; nothing was changed.',
    );
    const { live: _live, ...filesOnly } = report;
    expect(renderStale(filesOnly).split('\n')[0]).toBe(
      'plan is stale: the files (guides.yaml, more.yaml) changed since plan aaaaaaaaaaaa was made; nothing was changed.',
    );
  });

  it('lists what changed in the account: account settings, then groups, then guides, each by name', () => {
    const start = lines.indexOf('What changed in the account (of what the plan read):');
    expect(lines.slice(start + 1, start + 7)).toEqual([
      '  ~ account offline_auto_reply (changed)',
      '  ~ group North (id 1860131524965138433) (changed)',
      '  ~ guide alice_wx (changed)',
      '  - guide bob_wx (removed)',
      '  + guide carol_wx (added)',
      '',
    ]);
  });

  it('lists the calls a plan made now would no longer make, then those it would add', () => {
    const start = lines.indexOf('A plan made now (id bbbbbbbbbbbb) differs from the saved one:');
    expect(start).toBeGreaterThan(0);
    expect(lines.slice(start + 1, start + 5)).toEqual([
      '  - delguideacct (guide_account="bob_wx")  (saved, no longer planned)',
      '  + updateguideacct (guide_account="alice_wx")  (planned now, not saved)',
      '  + delguideacct (guide_account="carol_wx")  (planned now, not saved)',
      '',
    ]);
    expect(lines.at(-2)).toBe(
      'Make the plan again (guidectl plan … --out FILE), review it, and apply that one.',
    );
  });

  it('says when a plan made now makes the same calls, or fails', () => {
    const same = renderStale({
      ...report,
      now: { planId: 'cccccccccccc', calls: diffCalls(saved.calls, saved.calls) },
    });
    expect(same).toContain(
      '\nA plan made now (id cccccccccccc) makes the same calls in another order or with other dependencies.\n',
    );
    const { now: _, ...withoutNow } = report;
    expect(renderStale({ ...withoutNow, nowErrors: 1 })).toContain(
      '\nA plan made now fails: 1 plan error; run guidectl plan to see them\n',
    );
    expect(renderStale({ ...withoutNow, nowErrors: 2 })).toContain('fails: 2 plan errors;');
  });

  it('lists twenty of each kind, then how many more', () => {
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => liveGuide(`guide_${String(i).padStart(3, '0')}`));
    const fewer = liveState({ guides: many(25) });
    const more = planOf(
      desiredState({
        guides: many(45).map((g) => desiredGuide(g.id.kind === 'account' ? g.id.account : '')),
      }),
    );
    const text = renderStale({
      ...report,
      live: diffLiveFingerprints(liveFingerprints(liveState()), liveFingerprints(fewer)),
      now: { planId: 'dddddddddddd', calls: diffCalls(saved.calls, more.calls) },
    });
    const out = text.split('\n');
    expect(out.filter((l) => l.endsWith('(added)'))).toHaveLength(20);
    expect(out).toContain('  … and 5 more');
    expect(out.filter((l) => l.endsWith('(planned now, not saved)'))).toHaveLength(20);
    expect(out).toContain('  … and 25 more calls planned now');
    expect(out.filter((l) => l.endsWith('(saved, no longer planned)'))).toHaveLength(2);
  });

  it('escapes control characters of paths and names', () => {
    const text = renderStale({
      savedPlanId: 'aaaaaaaaaaaa',
      live: [{ resource: 'group', address: 'Ops\u001b[2J (id 1)', change: 'added' }],
      filesChanged: true,
      paths: ['evil\n.yaml'],
    });
    expect(text).not.toMatch(UNSAFE);
    expect(text).toContain('the files (evil\\n.yaml) changed');
    expect(text).toContain('  + group Ops\\u001b[2J (id 1) (added)');
  });
});
