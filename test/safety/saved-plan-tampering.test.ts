import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { decodeSavedPlan, encodeSavedPlan, planId, type SavedPlan } from '../../src/plan/index.js';
import { parseJson, stringifyJson } from '../../src/wire/json.js';
import { runCli, useServiceTarget } from '../helpers/cli.js';

/**
 * A saved plan edited after it was made must not change what apply does. The case that was found:
 * a plan deleting 15 of 20 guides, refused and saved; raising `max_deletes.guides` in the file to
 * 1000 let apply delete the 15 with no `--allow-delete`. Every edit is refused by the plan id, and
 * — with the files at hand — also when the editor recomputes the id, because apply plans the files
 * again and evaluates the guards from the files' `safety:` and its own flags.
 */

const target = useServiceTarget({ reset: true });
const service = () => target.service;
const ws = () => target.ws;
const cli = target.cli;

const writes = (): string[] =>
  service()
    .calls()
    .filter((c) => c.writes)
    .map((c) => c.operation);

const TWENTY = Array.from({ length: 20 }, (_, i) => `guide_${String(i).padStart(3, '0')}`);
const guides = (accounts: readonly string[]): string =>
  accounts
    .map((a) => `  - account: ${a}\n    nickname: ${a}\n    head_image_url: https://img.example/${a}\n`)
    .join('');
const KEEP_FIVE = `version: 1\nprotect:\n  guides: [guide_000]\nprune:\n  guides: true\nguides:\n${guides(TWENTY.slice(0, 5))}`;

type Json = Record<string, unknown>;

/** Edits the saved plan; with `reseal`, also writes the id the edited file hashes to. */
async function tamper(edit: (value: Json) => void, reseal: boolean): Promise<void> {
  const path = join(ws().dir, 'plan.json');
  const value = parseJson(await readFile(path, 'utf8')) as Json;
  edit(value);
  if (reseal) {
    const original = value['plan_id'];
    value['plan_id'] = '000000000000';
    let decoded: SavedPlan | undefined;
    try {
      decoded = decodeSavedPlan(value, 'plan.json');
    } catch (error) {
      const actual = /hash to ([0-9a-f]{12})/.exec(String(error))?.[1];
      value['plan_id'] = actual ?? original;
    }
    if (decoded !== undefined) throw new Error('an id of zeros matched');
    const resealed = decodeSavedPlan(value, 'plan.json');
    expect(planId(resealed.plan, resealed.basis)).toBe(value['plan_id']);
    await writeFile(path, encodeSavedPlan(resealed));
    return;
  }
  await writeFile(path, stringifyJson(value));
}

const calls = (v: Json): Json[] => v['calls'] as Json[];

describe('a saved plan edited after it was made', () => {
  let id = '';
  beforeEach(async () => {
    await ws().write('all.yaml', `version: 1\nguides:\n${guides(TWENTY)}`);
    expect((await cli(['apply', 'all.yaml', '--auto-approve'])).code).toBe(0);
    await ws().write('g.yaml', KEEP_FIVE);
    const plan = await cli(['plan', 'g.yaml', '--out', 'plan.json']);
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain('refused: the plan deletes 15 guides (of 20 live)');
    id = /^Plan id: ([0-9a-f]{12})$/m.exec(plan.stdout)?.[1] ?? '';
    service().resetCalls();
  });

  const edits: Array<[string, (v: Json) => void]> = [
    [
      'its guard raised (safety.max_deletes.guides: 1000)',
      (v) => ((v['safety'] as Json)['max_deletes'] = { guides: 1000 }),
    ],
    ['its guard share raised to 100%', (v) => ((v['safety'] as Json)['max_delete_share'] = 1)],
    ['a protection removed', (v) => ((v['protect'] as Json)['guides'] = [])],
    [
      'a call body changed (another guide deleted)',
      (v) => ((calls(v)[0]?.['body'] as Json)['guide_account'] = 'guide_000'),
    ],
    [
      'a deletion hidden from review (its change removed, the summary lowered)',
      (v) => {
        (v['changes'] as Json[]).pop();
        (v['summary'] as Json)['delete'] = Number((v['summary'] as Json)['delete']) - 1;
      },
    ],
    [
      'a call added (the protected guide deleted too)',
      (v) => {
        calls(v).push({ operation: 'delguideacct', body: { guide_account: 'guide_000' }, depends_on: [] });
        (v['summary'] as Json)['calls'] = calls(v).length;
      },
    ],
  ];

  it.each(edits)('is refused when %s, with nothing written', async (_name, edit) => {
    await tamper(edit, false);
    const run = await cli(['apply', 'plan.json', '--allow-delete', 'guides=16']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('plan.json: it does not match its plan id');
    expect(writes()).toEqual([]);
  });

  it.each(edits)('is refused when %s and the id recomputed, the files being at hand', async (_name, edit) => {
    await tamper(edit, true);
    const run = await cli(['apply', 'plan.json', '--allow-delete', 'guides=16']);
    expect(run.code, run.stdout).toBe(1);
    expect(run.stderr).toMatch(
      /refused: plan\.json says plan [0-9a-f]{12}, but its files make plan [0-9a-f]{12} against the same account: the saved plan was edited/,
    );
    expect(writes()).toEqual([]);
  });

  it('evaluates the guards from the files and the flags given to apply, never from the saved file', async () => {
    // Unedited: refused without the acknowledgement, whatever plan was given.
    const refused = await cli(['apply', 'plan.json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('refused: the plan deletes 15 guides (of 20 live)');
    expect(writes()).toEqual([]);
    // The guard raised and the id recomputed, without the files: the id no longer is the reviewed one.
    await tamper((v) => ((v['safety'] as Json)['max_deletes'] = { guides: 1000 }), true);
    await rm(join(ws().dir, 'g.yaml'));
    const pinned = await cli(['apply', 'plan.json', '--plan-id', id]);
    expect(pinned.code).toBe(1);
    expect(pinned.stderr).toContain(`holds plan`);
    expect(pinned.stderr).toContain(`not ${id} (--plan-id)`);
    expect(writes()).toEqual([]);
  });

  it('without the files, takes the guard limits from the defaults and the flags, never from the saved file', async () => {
    // The limits raised in the file and the id recomputed with the library, the files gone: the
    // defaults still hold the 15 deletions back, and only apply's own flag lets them through.
    await tamper((v) => {
      (v['safety'] as Json)['max_deletes'] = { guides: 1000 };
      (v['safety'] as Json)['max_delete_share'] = 1;
    }, true);
    await rm(join(ws().dir, 'g.yaml'));
    const refused = await cli(['apply', 'plan.json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('refused: the plan deletes 15 guides (of 20 live)');
    expect(writes()).toEqual([]);
    const allowed = await cli(['apply', 'plan.json', '--allow-delete', 'guides=15']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(writes()).toEqual(Array(15).fill('delguideacct'));
  });

  it('without the files, checks the saved protections on the saved calls', async () => {
    await tamper((v) => {
      calls(v).push({ operation: 'delguideacct', body: { guide_account: 'guide_000' }, depends_on: [] });
      (v['summary'] as Json)['calls'] = calls(v).length;
    }, true);
    await rm(join(ws().dir, 'g.yaml'));
    const run = await cli(['apply', 'plan.json', '--allow-delete', 'guides=16']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('refused: guide guide_000 is protected, but the plan would delete it');
    expect(writes()).toEqual([]);
  });

  it('shows what it applies: show refuses a plan whose changes were edited, and a recomputed id is not the reviewed one', async () => {
    const hide = (v: Json): void => {
      v['changes'] = [];
      (v['summary'] as Json)['delete'] = 0;
    };
    await tamper(hide, false);
    const shown = await runCli(['show', 'plan.json'], { cwd: ws().dir });
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain('plan.json: it does not match its plan id: its calls, changes,');
    expect(shown.stdout).not.toContain('0 to delete');
    // The editor recomputes the id: show then prints another id than the one reviewed, and an
    // apply pinned to the reviewed id refuses, the files gone or not.
    await cli(['plan', 'g.yaml', '--out', 'plan.json']);
    await tamper(hide, true);
    const resealed = await runCli(['show', 'plan.json'], { cwd: ws().dir });
    expect(resealed.code, resealed.stderr).toBe(0);
    expect(resealed.stdout).toContain('0 to delete');
    expect(resealed.stdout).not.toContain(id);
    await rm(join(ws().dir, 'g.yaml'));
    const pinned = await cli(['apply', 'plan.json', '--plan-id', id, '--allow-delete', 'guides=15']);
    expect(pinned.code).toBe(1);
    expect(pinned.stderr).toContain(`not ${id} (--plan-id)`);
    expect(writes()).toEqual([]);
  });

  it('is applied when unedited and acknowledged at apply', async () => {
    const run = await cli(['apply', 'plan.json', '--allow-delete', 'guides=15']);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(writes()).toEqual(Array(15).fill('delguideacct'));
  });
});
