import { describe, expect, it } from 'vitest';
import type { Applied } from '../../src/core/apply-run-data.js';
import type { ApplyResult, CallOutcome, CallStatus, Plan } from '../../src/core/plan-data.js';
import { callNote, renderApplyReport, renderApplyResult, renderInvited } from '../../src/report/apply.js';
import { desiredGroup, desiredGuide, desiredState, planOf } from '../helpers/plan-builder.js';
import { UNSAFE } from '../helpers/unsafe-text.js';

// renderApplyResult on a plan made by the planner and outcomes as executePlan reports them.

/** n guides (guide_000 …) and a group North holding the first: n + 2 calls to an empty account. */
function planOfGuides(n: number): Plan {
  const accounts = Array.from({ length: n }, (_, i) => `guide_${String(i).padStart(3, '0')}`);
  return planOf(
    desiredState({
      guides: accounts.map((a) => desiredGuide(a)),
      groups: [desiredGroup('North', accounts.slice(0, 1))],
    }),
  );
}

/** Outcomes in plan order: `status(i)` of each call, with a reason for all but the done. */
function resultOf(
  plan: Plan,
  status: (index: number) => CallStatus,
  reason = (i: number) => `why ${i}`,
): ApplyResult {
  const outcomes = plan.calls.map(
    (call, index): CallOutcome => ({
      index,
      operation: call.operation,
      status: status(index),
      ...(status(index) === 'done' ? {} : { reason: reason(index) }),
    }),
  );
  return { outcomes, createdGroups: new Map() };
}

describe('renderApplyResult', () => {
  it('counts done, failed and not started, of all the calls; "1 call", "0 calls"', () => {
    const plan = planOfGuides(4); // newguidegroup, 4 × addguideacct, addguide2guidegroup
    expect(
      renderApplyResult(
        plan,
        resultOf(plan, () => 'done'),
      ),
    ).toBe('\nApply: 6 calls done, 0 failed, 0 not started (of 6).\n');
    const text = renderApplyResult(
      plan,
      resultOf(plan, (i) => (i === 0 ? 'done' : i === 1 ? 'failed' : 'not-started')),
    );
    expect(text.split('\n')[1]).toBe('Apply: 1 call done, 1 failed, 4 not started (of 6).');
    expect(
      renderApplyResult(
        plan,
        resultOf(plan, () => 'not-started'),
      ).split('\n')[1],
    ).toBe('Apply: 0 calls done, 0 failed, 6 not started (of 6).');
  });

  it('lists each failed call, then the calls not started, by number in the plan, with whom and why', () => {
    const plan = planOfGuides(2); // 0 newguidegroup North, 1-2 addguideacct, 3 addguide2guidegroup
    const status = (i: number): CallStatus => (i === 2 ? 'failed' : i === 3 ? 'not-started' : 'done');
    const lines = renderApplyResult(plan, resultOf(plan, status)).split('\n');
    expect(lines.slice(2)).toEqual([
      '  failed       #3 addguideacct (guide_account="guide_001"): why 2',
      '  not started  #4 addguide2guidegroup (membership guide_000 in "North"): why 3',
      '',
    ]);
  });

  it('lists every failure but the first twenty calls not started, then how many more', () => {
    const plan = planOfGuides(30); // 32 calls
    const text = renderApplyResult(
      plan,
      resultOf(plan, (i) => (i < 3 ? 'failed' : 'not-started')),
    );
    const lines = text.split('\n');
    expect(lines.filter((l) => l.startsWith('  failed ')).length).toBe(3);
    const notStarted = lines.filter((l) => l.startsWith('  not started '));
    expect(notStarted).toHaveLength(20);
    expect(notStarted[0]).toMatch(/^ {2}not started {2}#4 /);
    expect(notStarted[19]).toMatch(/^ {2}not started {2}#23 /);
    expect(lines.at(-2)).toBe('  … and 9 more not started');
    expect(lines[1]).toBe('Apply: 0 calls done, 3 failed, 29 not started (of 32).');
  });

  it('escapes control characters of the reasons (an API error echoes what it was sent)', () => {
    const plan = planOfGuides(1);
    const text = renderApplyResult(
      plan,
      resultOf(
        plan,
        (i) => (i === 1 ? 'failed' : 'done'),
        () => 'addguideacct failed: 40001 — bad nickname "\u001b[31mX\r\nfailed #9"',
      ),
    );
    expect(text).not.toMatch(UNSAFE);
    expect(text).toContain('bad nickname "\\u001b[31mX\\r\\nfailed #9"');
    expect(text.split('\n').filter((l) => l.includes('failed #'))).toHaveLength(1);
  });

  it('colours only when asked', () => {
    const plan = planOfGuides(1);
    const result = resultOf(plan, (i) => (i === 1 ? 'failed' : 'done'));
    expect(renderApplyResult(plan, result)).not.toContain('\u001b');
    expect(renderApplyResult(plan, result, { color: true })).toContain('\u001b[31mfailed\u001b[39m');
  });
});

describe('a failed apply, said once and short', () => {
  const reason = 'addguideacct failed: 9300806 — the nickname is taken';

  it('names the operation once in the failed line and in the note on stderr', () => {
    const plan = planOfGuides(1);
    const text = renderApplyResult(
      plan,
      resultOf(
        plan,
        (i) => (i === 1 ? 'failed' : 'done'),
        () => reason,
      ),
    );
    expect(text).toContain(
      '  failed       #2 addguideacct (guide_account="guide_000"): 9300806 — the nickname is taken\n',
    );
    const note = callNote({
      type: 'failed',
      index: 1,
      operation: 'addguideacct',
      error: reason,
      abandoned: false,
    });
    expect(note).toBe('guidectl: call #2 (addguideacct) failed: 9300806 — the nickname is taken\n');
  });

  it('"Still to do": counts by kind and the first five changes, not the whole plan again', () => {
    const plan = planOfGuides(30); // newguidegroup, 30 × addguideacct, addguide2guidegroup
    const result = resultOf(
      plan,
      (i) => (i === 0 ? 'failed' : 'not-started'),
      () => 'newguidegroup failed: -1',
    );
    const run: Applied = {
      status: 'applied',
      reviewed: { plan, id: 'abcdef012345', guards: [], diagnostics: [] },
      result,
      interrupted: false,
      checkDiagnostics: [],
      allDone: false,
      canCheck: true,
      verify: 'targeted',
      converged: false,
      abandoned: 0,
      drift: { plan, planId: 'abcdef012345' },
    };
    const text = renderApplyReport(run);
    const still = text.slice(text.indexOf('Still to do'));
    expect(still.split('\n')).toEqual([
      'Still to do (run apply again once the failure is fixed): 1 group to add, 30 guides to add (32 API calls).',
      '  + group North',
      '  + guide guide_000',
      '  + guide guide_001',
      '  + guide guide_002',
      '  + guide guide_003',
      '  … and 26 more: guidectl plan shows every change; apply --json holds them under "drift".',
      '',
    ]);
    expect(text).not.toContain('guidectl will make these changes');
  });
});

describe('renderInvited', () => {
  it('names the guides added, says they must accept, and how to see their status', () => {
    const plan = planOfGuides(2); // 0 newguidegroup North, 1-2 addguideacct, 3 addguide2guidegroup
    expect(
      renderInvited(
        plan,
        resultOf(plan, (i) => (i === 2 ? 'failed' : 'done')),
      ),
    ).toBe(
      `Invited 1 guide (guide_000); it serves customers once it accepts in WeChat. Status: guidectl api getguideacct '{"guide_account":"guide_000"}'\n`,
    );
    expect(
      renderInvited(
        plan,
        resultOf(plan, (i) => (i === 0 ? 'done' : 'not-started')),
      ),
    ).toBe('');
  });

  it('names three at most; many in one short line with the command for the first', () => {
    const three = planOfGuides(3);
    expect(
      renderInvited(
        three,
        resultOf(three, () => 'done'),
      ),
    ).toMatch(/^Invited 3 guides \(guide_000, guide_001, guide_002\); each serves /);
    const plan = planOfGuides(202);
    const line = renderInvited(
      plan,
      resultOf(plan, () => 'done'),
    );
    expect(line).toBe(
      `Invited 202 guides; each serves customers once it accepts in WeChat. Status: guidectl api getguideacct '{"guide_account":"guide_000"}'\n`,
    );
    expect(line.length).toBeLessThan(140);
  });

  it('a guide added by openid is named and looked up by openid', () => {
    const byOpenid = planOf(desiredState({ guides: [desiredGuide('openid oAbc_1')] }));
    expect(
      renderInvited(
        byOpenid,
        resultOf(byOpenid, () => 'done'),
      ),
    ).toContain(`(openid oAbc_1)`);
    expect(
      renderInvited(
        byOpenid,
        resultOf(byOpenid, () => 'done'),
      ),
    ).toContain(`getguideacct '{"guide_openid":"oAbc_1"}'`);
  });
});
