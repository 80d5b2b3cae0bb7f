import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/wire/json.js';
import { guideEntries, jsonLines, useServiceTarget } from '../helpers/cli.js';

// An apply that writes nothing (refused, not approved, a stale saved plan) says so alike in every
// case: the stream's summary counts the calls its plan event announced, none made, and
// `converged` is false; the refusal's words point at the plan where this format shows it.

const target = useServiceTarget({ reset: true });
const FILE = `version: 1\nguides:\n${guideEntries(3)}`;

type Json = Record<string, unknown>;
const events = (stdout: string): Json[] => jsonLines(stdout);

describe('apply that writes nothing: the summary and the JSON', () => {
  it('refused by --plan-id or not approved: the summary has the calls of the plan event, none made', async () => {
    await target.ws.write('a.yaml', FILE);
    for (const extra of [['--auto-approve', '--plan-id', '000000000000'], []]) {
      const run = await target.cli(['apply', 'a.yaml', '--json-stream', ...extra]);
      expect(run.code).toBe(1);
      const [plan, summary] = events(run.stdout);
      expect(plan).toMatchObject({ type: 'plan', calls: 3 });
      expect(summary).toMatchObject({
        type: 'summary',
        plan_id: plan?.['plan_id'],
        calls: 3,
        done: 0,
        failed: 0,
        not_started: 0,
        converged: false,
        exit_code: 1,
      });
    }
  });

  it('a stale saved plan: converged is false, in the stream as in --json, as for any apply that wrote nothing', async () => {
    await target.ws.write('a.yaml', FILE);
    expect((await target.cli(['plan', 'a.yaml', '--out', 'p.json'])).code).toBe(0);
    await target.ok('addguideacct', {
      guide_account: 'someone_wx',
      guide_headimgurl: 'https://img.example/s',
      guide_nickname: 'S',
    });
    const stream = await target.cli(['apply', 'p.json', '--json-stream']);
    expect(stream.code).toBe(1);
    expect(events(stream.stdout).at(-1)).toMatchObject({ type: 'summary', converged: false, exit_code: 1 });
    const json = await target.cli(['apply', 'p.json', '--json']);
    expect(json.code).toBe(1);
    expect(parseJson(json.stdout)).toMatchObject({ stale: true, outcomes: [], converged: false });
  });

  it('--plan-id mismatch: the refusal points at the plan where the format shows it, not "above"', async () => {
    await target.ws.write('a.yaml', FILE);
    const args = ['apply', 'a.yaml', '--auto-approve', '--plan-id', '000000000000'];
    const json = await target.cli([...args, '--json']);
    expect(json.code).toBe(1);
    const [refused] = (parseJson(json.stdout) as { refused: string[] }).refused;
    expect(refused).toContain('Review the plan made now (the "plan" of this JSON object); to apply it');
    expect(json.stderr).not.toContain('above');
    const stream = await target.cli([...args, '--json-stream']);
    expect(JSON.stringify(events(stream.stdout).at(-1)?.['refused'])).toContain('(the \\"plan\\" event)');
    const human = await target.cli(args);
    expect(human.stderr).toContain('Review the plan above; to apply it');
  });
});

describe('a plan a deletion guard refuses, saved with --out', () => {
  it('names the command that applies it, with the allowance it needs, and that command applies it', async () => {
    await target.ws.write('a.yaml', `version: 1\nguides:\n${guideEntries(12)}`);
    expect((await target.cli(['apply', 'a.yaml', '--auto-approve'])).code).toBe(0);
    await target.ws.write('b.yaml', `version: 1\nprune: {guides: true}\nguides:\n${guideEntries(1)}`);
    const plan = await target.cli(['plan', 'b.yaml', '--out', 'g.json']);
    expect(plan.code).toBe(1);
    const told = /apply exactly these calls with: (guidectl apply .*)\n/.exec(plan.stdout)?.[1];
    expect(told).toBe(`guidectl apply g.json --base-url ${target.service.url} --allow-delete guides=11`);
    const apply = await target.cli((told ?? '').split(' ').slice(1));
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Converged');
  });
});
