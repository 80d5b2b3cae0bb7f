import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/wire/json.js';
import { ONE_GUIDE, runCli, useServiceTarget } from '../helpers/cli.js';

// `guidectl show PLAN.json` prints a saved plan as plan did; every command tells a saved plan from
// a desired-state file by its content, not its name.

const target = useServiceTarget({ reset: true });
const ws = () => target.ws;
const cli = target.cli;

const DESIRED_JSON = JSON.stringify({
  version: 1,
  guides: [{ account: 'alice_wx', nickname: 'Alice', head_image_url: 'https://img.example/alice' }],
});

describe('guidectl show', () => {
  it('prints a saved plan as plan printed it, in human text, JSON and markdown', async () => {
    await ws().write('a.yaml', ONE_GUIDE);
    const human = await cli(['plan', 'a.yaml', '--out', 'saved.json']);
    expect(human.code, human.stderr).toBe(0);
    const json = await cli(['plan', 'a.yaml', '--json']);
    const markdown = await cli(['plan', 'a.yaml', '--markdown']);

    const shown = await runCli(['show', 'saved.json'], { cwd: ws().dir });
    expect(shown.code, shown.stderr).toBe(0);
    const planPart = human.stdout.slice(0, human.stdout.indexOf('\nSaved the plan'));
    expect(shown.stdout.startsWith(planPart)).toBe(true);
    expect(shown.stdout).toContain('apply exactly these calls with: guidectl apply saved.json');

    const shownJson = await runCli(['show', 'saved.json', '--json'], { cwd: ws().dir });
    // show leaves out what depends on the account and the files when applied: guards, warnings,
    // and today's quotas, which apply reads again.
    const {
      guards: _guards,
      diagnostics: _warnings,
      quota: _quota,
      ...planJson
    } = parseJson(json.stdout) as Record<string, unknown>;
    expect(parseJson(shownJson.stdout)).toEqual(planJson);

    const shownMarkdown = await runCli(['show', 'saved.json', '--markdown'], { cwd: ws().dir });
    expect(shownMarkdown.stdout.split('\n').slice(0, 2)).toEqual(markdown.stdout.split('\n').slice(0, 2));
    expect(shownMarkdown.stdout).toContain('```diff');
  });

  it('refuses what is not a saved plan, and a damaged one', async () => {
    await ws().write('a.yaml', ONE_GUIDE);
    const notPlan = await runCli(['show', 'a.yaml'], { cwd: ws().dir });
    expect(notPlan.code).toBe(1);
    expect(notPlan.stderr).toContain('"a.yaml" is not a saved plan');
    expect((await cli(['plan', 'a.yaml', '--out', 'saved.json'])).code).toBe(0);
    const text = await readFile(join(ws().dir, 'saved.json'), 'utf8');
    await ws().write('edited.json', text.replaceAll('"alice_wx"', '"mallory_wx"'));
    const edited = await runCli(['show', 'edited.json'], { cwd: ws().dir });
    expect(edited.code).toBe(1);
    expect(edited.stderr).toMatch(/edited\.json: .*plan id/);
  });
});

describe('a saved plan or a desired-state file, by content', () => {
  it('a desired-state file named *.json works in validate, plan and apply', async () => {
    await ws().write('desired.json', DESIRED_JSON);
    const validate = await runCli(['validate', 'desired.json'], { cwd: ws().dir });
    expect(validate.code, validate.stdout).toBe(0);
    const plan = await cli(['plan', 'desired.json']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('Plan: 1 to add');
    const apply = await cli(['apply', 'desired.json', '--auto-approve']);
    expect(apply.code, apply.stderr + apply.stdout).toBe(0);
    expect(apply.stdout).toContain('Converged');
  });

  it('plan and validate of a saved plan point at show and apply instead of misreading it', async () => {
    await ws().write('a.yaml', ONE_GUIDE);
    expect((await cli(['plan', 'a.yaml', '--out', 'saved.json'])).code).toBe(0);
    for (const args of [
      ['plan', 'saved.json'],
      ['plan', '--all-envs', 'saved.json'],
      ['validate', 'saved.json'],
    ]) {
      const run = args[0] === 'plan' ? await cli(args) : await runCli(args, { cwd: ws().dir });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        'guidectl: "saved.json" is a saved plan, not a desired-state file: print it with guidectl show saved.json, or apply it with guidectl apply saved.json\n',
      );
    }
    // A saved plan is recognised by its content whatever its name.
    await ws().write('reviewed-plan', await readFile(join(ws().dir, 'saved.json'), 'utf8'));
    const apply = await cli(['apply', 'reviewed-plan']);
    expect(apply.code, apply.stderr + apply.stdout).toBe(0);
    expect(apply.stdout).toContain('Applying saved plan');
  });
});
