import { describe, expect, it } from 'vitest';
import type { CallOutcome, Plan, PlannedCall } from '../../src/core/plan-data.js';
import { renderApplyResult, renderInterrupted } from '../../src/report/apply.js';
import { renderPlan, renderUnmanaged } from '../../src/report/plan.js';
import { ONE_GUIDE, runCli, useServiceTarget } from '../helpers/cli.js';

// Human output: colour only when wanted, nouns in the singular for one, counts with separators.

const ESC = '\u001b';

const target = useServiceTarget({ reset: true });
const ws = () => target.ws;
const cli = target.cli;

function planOf(summary: Plan['summary'], unmanaged: Plan['unmanaged'] = []): Plan {
  return { formatVersion: 1, summary, changes: [], calls: [], unmanaged };
}

describe('--no-color', () => {
  it('turns colour off on a terminal, for validate, plan and the diagnostics on stderr', async () => {
    await ws().write('bad.yaml', 'version: 1\nguides:\n  - account: ab\n');
    await ws().write('good.yaml', ONE_GUIDE);
    const coloured = await cli(['plan', 'good.yaml'], { tty: true });
    expect(coloured.stdout).toContain(ESC);
    for (const [code, ...args] of [
      [0, 'plan', 'good.yaml', '--no-color'],
      [0, '--no-color', 'plan', 'good.yaml'],
      [1, 'plan', 'bad.yaml', '--no-color'],
    ] as const) {
      const run = await cli([...args], { tty: true });
      expect(run.code, run.stderr).toBe(code);
      expect(run.stdout + run.stderr).toContain(code === 0 ? 'Plan: 2 to add' : 'bad.yaml:3:');
      expect(run.stdout + run.stderr).not.toContain(ESC);
    }
    const validate = await runCli(['validate', 'bad.yaml', '--no-color'], { cwd: ws().dir, tty: true });
    expect(validate.code).toBe(1);
    expect(validate.stdout).not.toContain(ESC);
    const withEnv = await runCli(['validate', 'bad.yaml'], {
      cwd: ws().dir,
      tty: true,
      env: { NO_COLOR: '1' },
    });
    expect(withEnv.stdout).not.toContain(ESC);
  });

  it('is listed in the help', async () => {
    const help = await runCli(['--help']);
    expect(help.stdout).toContain('--no-color');
  });
});

describe('counts and plurals', () => {
  it('the summary line separates thousands and says "1 API call"', () => {
    expect(renderPlan(planOf({ add: 2020, change: 1, delete: 0, calls: 12345 }))).toContain(
      'Plan: 2,020 to add, 1 to change, 0 to delete (12,345 API calls).',
    );
    expect(renderPlan(planOf({ add: 1, change: 0, delete: 0, calls: 1 }))).toContain(
      'Plan: 1 to add, 0 to change, 0 to delete (1 API call).',
    );
  });

  it('left alone: "1 group", "1,200 guides"', () => {
    const guides = Array.from({ length: 1200 }, (_, i) => ({ resource: 'guide' as const, address: `g${i}` }));
    const text = renderUnmanaged(
      planOf({ add: 0, change: 0, delete: 0, calls: 0 }, [...guides, { resource: 'group', address: 'Old' }]),
    );
    expect(text).toContain('1,200 guides (g0, ');
    expect(text).toContain('and 1,190 more) and 1 group (Old)');
  });

  it('the apply result: "1 call done", thousands separated', () => {
    const call: PlannedCall = {
      operation: 'addguideacct',
      body: {},
      subject: { kind: 'guide', address: 'alice_wx' },
      dependsOn: [],
    };
    const plan = (n: number): Plan => ({
      ...planOf({ add: n, change: 0, delete: 0, calls: n }),
      calls: Array.from({ length: n }, () => call),
    });
    const done = (n: number) => ({
      createdGroups: new Map<string, string>(),
      outcomes: Array.from({ length: n }, (_, index) => ({
        index,
        operation: 'addguideacct' as const,
        status: 'done' as const,
      })),
    });
    expect(renderApplyResult(plan(1), done(1))).toContain(
      'Apply: 1 call done, 0 failed, 0 not started (of 1).',
    );
    expect(renderApplyResult(plan(1234), done(1234))).toContain(
      'Apply: 1,234 calls done, 0 failed, 0 not started (of 1,234).',
    );
    // Interrupted: several calls abandoned in flight, several not started.
    const outcomes = [0, 1, 2, 3, 4].map(
      (index): CallOutcome =>
        index < 3
          ? { index, operation: 'addguideacct', status: 'failed', abandoned: true }
          : { index, operation: 'addguideacct', status: 'not-started' },
    );
    expect(renderInterrupted({ createdGroups: new Map(), outcomes })).toBe(
      'Interrupted: calls #1, #2 and #3 were abandoned in flight: each may have taken effect, or may still (their outcome is unknown); the 2 calls not started were not made, and convergence was not checked. Run guidectl plan to see where the account stands, then apply again to finish.\n',
    );
    expect(renderInterrupted({ createdGroups: new Map(), outcomes: outcomes.slice(3) })).toBe(
      'Interrupted: the 2 calls not started were not made, and convergence was not checked; run apply again to finish.\n',
    );
  });

  it('export says "1 guide, 1 group"; the prompt asks for "this call"', async () => {
    await ws().write('one.yaml', ONE_GUIDE);
    expect((await cli(['apply', 'one.yaml', '--auto-approve'])).code).toBe(0);
    const exported = await cli(['export', '-o', 'out.yaml']);
    expect(exported.stderr).toContain('wrote out.yaml: 1 guide, 1 group\n');
    await ws().write('one.yaml', ONE_GUIDE.replace('nickname: Alice', 'nickname: Alicia'));
    const questions: string[] = [];
    const { code } = await cli(['apply', 'one.yaml'], {
      ask: async (question) => {
        questions.push(question);
        return 'no';
      },
    });
    expect(code).toBe(1);
    expect(questions).toEqual(["\nMake this call? Only 'yes' is accepted: "]);
  });
});
