import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/core/shell-word.js';
import { readSavedPlan, refuseSavedPlans } from '../../src/reconcile/index.js';
import { renderInvited } from '../../src/report/apply.js';
import { formatSavedPlan, savedPlanNotice } from '../../src/report/plan-output.js';
import { ROOT } from '../docs/pages.js';
import { runCli, type Workspace, workspace } from '../helpers/cli.js';
import { desiredGuide, desiredState, planOf } from '../helpers/plan-builder.js';

// The commands hints print for the user to copy are read back by a real POSIX shell: each word
// must come back as guidectl meant it, whatever it holds (', spaces, $, ", \, `).

/** The words `sh` reads in `command`, as a program it runs would get them. */
function wordsOf(command: string): string[] {
  const out = execFileSync('sh', ['-c', `printf '%s\\0' ${command}`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

/** The command after `guidectl ` in `text`, to the end of its line or sentence. */
function commandIn(text: string, end = /\n|$/): string {
  const start = text.indexOf('guidectl ');
  expect(start, text).toBeGreaterThanOrEqual(0);
  const rest = text.slice(start + 'guidectl '.length);
  const stop = rest.search(end);
  return stop === -1 ? rest : rest.slice(0, stop);
}

const NAMES = ["it's.json", 'my plans.json', '$HOME.json', `o'n "$x" \`y\` \\z !.json`, ''];

describe('shellWord', () => {
  it('gives back each word through sh, and leaves plain words as they are', () => {
    for (const name of NAMES) expect(wordsOf(shellWord(name)), name).toEqual([name]);
    expect(shellWord('plans/p-1.json')).toBe('plans/p-1.json');
    expect(shellWord("it's")).toBe("'it'\\''s'");
  });
});

describe('hints that print a command', () => {
  it('plan --out FILE and show FILE: the saved plan file, quoted', () => {
    const plan = planOf(desiredState({ guides: [desiredGuide('alice_wx')] }));
    const target = { description: 't', identity: { kind: 'embedded', database: '/w/t.db' } } as const;
    for (const name of NAMES.filter((n) => n !== '')) {
      const notice = savedPlanNotice('human', name).text;
      expect(wordsOf(commandIn(notice)), notice).toEqual(['apply', name]);
      const shown = formatSavedPlan(
        'human',
        { planId: 'abcdef012345', plan, paths: [], target },
        name,
        false,
      );
      expect(wordsOf(commandIn(shown.slice(shown.lastIndexOf('Saved plan')))), shown).toEqual([
        'apply',
        name,
        '--local-db',
        '/w/t.db',
      ]);
    }
  });

  it('the JSON argument of the status of an invited guide, whatever its name holds', () => {
    for (const name of ["o'brien", 'a b', '$x']) {
      const plan = planOf(desiredState({ guides: [desiredGuide(`openid ${name}`)] }));
      const outcomes = plan.calls.map((call, index) => ({
        index,
        operation: call.operation,
        status: 'done' as const,
      }));
      const line = renderInvited(plan, { outcomes, createdGroups: new Map() });
      const words = wordsOf(commandIn(line));
      expect(words, line).toEqual(['api', 'getguideacct', JSON.stringify({ guide_openid: name })]);
    }
  });

  it('a saved plan that does not exist: the command that makes it names the file quoted', async () => {
    const ws = await workspace();
    try {
      for (const name of NAMES.filter((n) => n !== '')) {
        const missing = await readSavedPlan(join(ws.dir, 'none.json'), name).then(
          () => 'read',
          (e: Error) => e.message,
        );
        expect(wordsOf(commandIn(missing, /\)$/)), missing).toEqual(['plan', 'PATH…', '--out', name]);
      }
    } finally {
      await ws.remove();
    }
  });
});

describe('plan --out with a file name a shell must quote', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await workspace();
    await ws.write('store.yaml', readFileSync(join(ROOT, 'examples', 'small-store.yaml'), 'utf8'));
  });
  afterAll(() => ws.remove());

  it("prints an apply command that, read by sh, applies that file; plan refuses it naming show's and apply's", async () => {
    const name = "it's my $plan.json";
    const db = ['--local-db', 'store.db'];
    const planned = await runCli(['plan', 'store.yaml', '--out', name, ...db], { cwd: ws.dir });
    expect(planned.code, planned.stderr).toBe(0);
    const words = wordsOf(commandIn(planned.stdout.slice(planned.stdout.indexOf('Saved the plan'))));
    expect(words).toEqual(['apply', name, ...db]);
    const applied = await runCli(words, { cwd: ws.dir });
    expect(applied.code, applied.stderr).toBe(0);

    const refused = await runCli(['plan', name, ...db], { cwd: ws.dir });
    expect(refused.code).toBe(1);
    await expect(refuseSavedPlans(ws.dir, [name])).rejects.toThrow(/saved plan/);
    const message = refused.stderr;
    expect(wordsOf(commandIn(message, /, or /)), message).toEqual(['show', name]);
    expect(wordsOf(commandIn(message.slice(message.indexOf('apply it')), /\n/)), message).toEqual([
      'apply',
      name,
    ]);
  });
});
