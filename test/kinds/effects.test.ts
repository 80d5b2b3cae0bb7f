import { describe, expect, it } from 'vitest';
import { appendsKnownBefore } from '../../src/apply/execute-plan.js';
import { guideKey } from '../../src/core/desired.js';
import type { LiveState } from '../../src/core/live.js';
import type { ApplyResult, CallOutcome, Plan, PlannedCall } from '../../src/core/plan-data.js';
import { READ_EVERYTHING } from '../../src/live/index.js';
import { planChanges } from '../../src/plan/index.js';
import { countListRemovals } from '../../src/plan/list-removals.js';
import { verifyRead } from '../../src/reconcile/index.js';
import { applyToModel, fullLive } from '../helpers/live-model.js';
import { Random, randomCase } from '../helpers/random-states.js';
import { appendsKnownBefore as referenceKnownBefore } from './reference/known-before.js';
import { countListRemovals as referenceListRemovals } from './reference/list-removals.js';
import { applyToModel as referenceModel } from './reference/live-model.js';
import { verifyRead as referenceVerifyRead } from './reference/verify.js';

// The write effects of src/kinds, run by the deletion guards, the check after apply and the
// tests' model, agree with a second implementation of each (test/kinds/reference/) on every plan
// the property generator makes: from the states as generated (parts unread) and read whole.

const CASES = Array.from({ length: 200 }, (_, i) => randomCase(i + 1)).flatMap((c) => {
  const plan = planChanges(c.desired, c.live).plan;
  return plan === undefined ? [] : [{ seed: c.seed, plan, live: c.live }];
});

/** What a run gives: its result, or that it throws. */
function outcome(run: () => LiveState): LiveState | 'throws' {
  try {
    return run();
  } catch {
    return 'throws';
  }
}

/** Call outcomes for a plan: every call done, or a seeded mix of done, failed and not started. */
function results(plan: Plan, r: Random): ApplyResult[] {
  const all = (status: CallOutcome['status']): CallOutcome[] =>
    plan.calls.map((call, index) => ({ index, operation: call.operation, status }));
  const mixed = plan.calls.map(
    (call, index): CallOutcome => ({
      index,
      operation: call.operation,
      status: r.pick(['done', 'done', 'failed', 'not-started']),
    }),
  );
  const indices = plan.calls.map((_, index) => index);
  const doneOf = (outcomes: CallOutcome[]) => outcomes.flatMap((o) => (o.status === 'done' ? [o.index] : []));
  return [
    { outcomes: all('done'), createdGroups: new Map(), vouched: new Set(indices) },
    { outcomes: all('done'), createdGroups: new Map() },
    { outcomes: all('done'), createdGroups: new Map(), vouched: new Set(r.subset(indices, 0.8)) },
    { outcomes: mixed, createdGroups: new Map(), vouched: new Set(doneOf(mixed)) },
    { outcomes: mixed, createdGroups: new Map(), vouched: new Set(r.subset(doneOf(mixed), 0.7)) },
    { outcomes: all('failed'), createdGroups: new Map() },
  ];
}

/** Every guide the plan's calls or the live state name, by key. */
function guideKeys(plan: Plan, live: LiveState): Set<string> {
  const keys = new Set(live.guides.map((g) => guideKey(g.id)));
  for (const call of plan.calls) {
    const account = call.body['guide_account'];
    const openid = call.body['guide_openid'];
    if (typeof account === 'string') keys.add(guideKey({ kind: 'account', account }));
    else if (typeof openid === 'string') keys.add(guideKey({ kind: 'openid', openid }));
  }
  return keys;
}

describe('write effects against a second implementation', () => {
  it('the generator gives plans to compare', () => {
    expect(CASES.length).toBeGreaterThan(120);
  });

  it('count the same list removals for the deletion guards', () => {
    for (const { seed, plan, live } of CASES) {
      for (const state of [live, fullLive(live)]) {
        for (const semantics of ['append', 'replace'] as const) {
          const p = { ...plan, sensitiveWordSemantics: semantics };
          expect(countListRemovals(p, state), `seed ${seed}`).toEqual(referenceListRemovals(p, state));
        }
      }
    }
  });

  it('give the check after apply the same reads and the same vouched configurations', () => {
    for (const { seed, plan, live } of CASES) {
      const r = new Random(seed);
      const scope = { ...READ_EVERYTHING, guideConfigs: guideKeys(plan, live) };
      for (const state of [live, fullLive(live)]) {
        for (const result of results(plan, r)) {
          for (const mode of ['targeted', 'full'] as const) {
            const now = verifyRead(mode, scope, plan, result, state);
            const reference = referenceVerifyRead(mode, scope, plan, result, state);
            expect(now, `seed ${seed}`).toEqual(reference);
          }
        }
      }
    }
  });

  it('give apply the same state before each append, with the live state and without', () => {
    let known = 0;
    for (const { seed, plan, live } of CASES) {
      for (const state of [live, fullLive(live)]) {
        const now = appendsKnownBefore(plan, state);
        expect(now, `seed ${seed}`).toEqual(referenceKnownBefore(plan, state));
        known += now.size;
      }
      expect(appendsKnownBefore(plan), `seed ${seed}`).toEqual(referenceKnownBefore(plan));
    }
    expect(known).toBeGreaterThan(100);
  });

  it('make the same account in the tests model, in plan order and in a random order', () => {
    for (const { seed, plan, live } of CASES) {
      const pick = (r: Random) => (ready: readonly number[]) => r.pick(ready);
      expect(applyToModel(live, plan), `seed ${seed}`).toEqual(referenceModel(live, plan));
      expect(applyToModel(live, plan, pick(new Random(seed))), `seed ${seed}`).toEqual(
        referenceModel(live, plan, pick(new Random(seed))),
      );
    }
  });

  it('refuse in the tests model what the second implementation refuses: a repeat, a call with nothing to do', () => {
    let refused = 0;
    for (const { seed, plan, live } of CASES.slice(0, 60)) {
      for (const [index, call] of plan.calls.entries()) {
        // The call made twice: most calls are then refused, or change nothing the second time.
        const calls: PlannedCall[] = [...plan.calls, { ...call, dependsOn: [index] }];
        const twice = { ...plan, calls };
        const now = outcome(() => applyToModel(live, twice));
        expect(now, `seed ${seed} call ${index}`).toEqual(outcome(() => referenceModel(live, twice)));
        if (now === 'throws') refused++;
      }
    }
    expect(refused).toBeGreaterThan(50);
  });
});
