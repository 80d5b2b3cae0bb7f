import { describe, expect, it } from 'vitest';
import type { GuardResult } from '../../src/core/safety.js';
import { checkDeleteGuards, resolveGuardPolicy } from '../../src/plan/index.js';
import { noPlanOutput } from '../../src/report/apply-output.js';
import { failureToJson } from '../../src/report/plan.js';
import {
  planErrorOutput,
  planFailureOutput,
  planVerdict,
  stderrLines,
} from '../../src/report/plan-output.js';
import { deleteCounts, desiredGuide, desiredState, planOf } from '../helpers/plan-builder.js';

const changes = planOf(desiredState({ guides: [desiredGuide('alice_wx')] }));
const none = planOf(desiredState());
/** The guides' guard refusing 3 deletions of 3 live guides, where the limit is 1. */
const refused = checkDeleteGuards(
  deleteCounts({ guides: 3 }),
  deleteCounts({ guides: 3 }),
  resolveGuardPolicy(undefined, { maxDeletes: { guides: 1 } }),
).find((g) => g.status === 'refused') as GuardResult;
const flags = { expectNoChanges: false, detailedExitcode: false };

describe('planVerdict', () => {
  it('0 with changes by default, 2 with --detailed-exitcode, 0 without changes either way', () => {
    expect(planVerdict('human', changes, [], flags)).toEqual({ exit: 0, messages: [] });
    expect(planVerdict('human', changes, [], { ...flags, detailedExitcode: true }).exit).toBe(2);
    expect(planVerdict('human', none, [], { ...flags, detailedExitcode: true }).exit).toBe(0);
  });

  it('1 on drift under --expect-no-changes, counting changes and calls', () => {
    const verdict = planVerdict('json', changes, [], { ...flags, expectNoChanges: true });
    expect(verdict.exit).toBe(1);
    expect(stderrLines(verdict.messages)).toBe(
      'guidectl: drift: the account differs from the files (1 change, 1 API call to bring it back); expected no changes\n',
    );
  });

  it('1 when a guard refuses, whatever else is asked; the machine formats name the refusal on stderr too', () => {
    const human = planVerdict('human', changes, [refused], { ...flags, detailedExitcode: true });
    expect(human).toEqual({
      exit: 1,
      messages: ['the plan is refused by a deletion guard; apply would not make it'],
    });
    expect(stderrLines(human.messages)).toBe(
      'guidectl: the plan is refused by a deletion guard; apply would not make it\n',
    );
    const json = planVerdict('json', changes, [refused], flags);
    expect(stderrLines(json.messages).split('\n')).toHaveLength(3);
    expect(stderrLines(json.messages)).toMatch(/^guidectl: .*guides/);
    expect(json.messages).toHaveLength(2);
  });
});

describe('planFailureOutput and planErrorOutput', () => {
  it('give the machine formats a body that says why there is no plan, and human text nothing', () => {
    const failure = { diagnostics: [] };
    expect(planFailureOutput('human', 'the files have errors', failure)).toBe('');
    expect(planFailureOutput('markdown', 'the files have errors', failure)).toContain(
      'guidectl plan failed: the files have errors',
    );
    expect(JSON.parse(planFailureOutput('json', 'the files have errors', failure))).toEqual({
      format_version: 1,
      error: 'the files have errors',
      diagnostics: [],
    });
    expect(planErrorOutput('human', 'no answer')).toBe('');
    const markdown = planErrorOutput('markdown', 'line\u001b[31m');
    expect(markdown).toContain('guidectl plan failed');
    expect(markdown).toContain('guidectl: line');
    expect(markdown).not.toContain('\u001b');
    expect(JSON.parse(planErrorOutput('json', 'no answer'))).toMatchObject({ error: 'no answer' });
  });

  it('name the environment as far as it is known, after format_version, as failureToJson puts it', () => {
    const before = { name: 'staging', target: undefined };
    const after = { name: 'staging', target: 'https://api.example' };
    const failed = failureToJson('no answer', [], { environment: before });
    expect(Object.keys(failed)).toEqual(['format_version', 'environment', 'error', 'diagnostics']);
    expect(failed['environment']).toStrictEqual({ name: 'staging' });
    expect(failureToJson('no answer', [], { environment: after })['environment']).toStrictEqual(after);
    // plan --json's failures and apply --json's give it the environment as it is known.
    const bodies = [
      planErrorOutput('json', 'no answer', before),
      planFailureOutput('json', 'no answer', { diagnostics: [], environment: before }),
      ...noPlanOutput('no answer', [], { format: 'json', cwd: '/w', environment: before }).map((c) => c.text),
    ];
    for (const body of bodies) expect(JSON.parse(body)).toMatchObject({ environment: { name: 'staging' } });
    expect(bodies.map((b) => Object.keys(JSON.parse(b).environment))).toEqual([['name'], ['name'], ['name']]);
  });
});
