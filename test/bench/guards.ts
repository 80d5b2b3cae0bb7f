import type { LiveGuide, LiveState, LiveWelcome } from '../../src/core/live.js';
import type { Plan } from '../../src/core/plan-data.js';
import { planChanges } from '../../src/plan/index.js';
import { countListRemovals } from '../../src/plan/list-removals.js';
import { countListRemovals as referenceListRemovals } from '../kinds/reference/list-removals.js';
import { desiredState } from './reconcile.js';

/**
 * The list guards' count of what a large plan removes (`countListRemovals`, which runs every
 * call's write effect on an account model), beside the hand-written walk kept as its test oracle
 * (test/kinds/reference/). Both run in this process, taking turns, so that both meet the same load.
 * Aim: the model at most 125 ms on the 60,200-call plan of 20,000 guides onto an empty account,
 * the old walk's figure on this machine. The other plan, over 20,000 guides read, has its ratio only.
 */
const GUIDES = 20_000;
const GROUPS = 200;
const RUNS = 9;
const AIM_MS = 125;

/** The desired state of the reconcile bench, as read: every guide a changed nickname and lists. */
function readState(): LiveState {
  const desired = desiredState(GUIDES, GROUPS);
  const guides = desired.guides.map(
    (g): LiveGuide => ({
      id: g.id,
      nickname: `${g.nickname} (old)`,
      headImageUrl: g.headImageUrl,
      config: {
        quickReplies: ['An old reply.', ...(g.quickReplies ?? [])],
        welcome: [{ type: 'text', text: 'An old welcome.' } satisfies LiveWelcome],
      },
    }),
  );
  const groups = desired.groups.map((g, i) => ({
    id: String(1860131524965138433n + BigInt(2 * i)),
    name: g.name,
    members: [...(g.members ?? [])],
  }));
  return { guides, groups, account: {} };
}

interface Case {
  readonly name: string;
  readonly plan: Plan;
  readonly live: LiveState;
  readonly aimMs?: number;
}

function planOf(live: LiveState): Plan {
  const { plan } = planChanges(desiredState(GUIDES, GROUPS), live);
  if (plan === undefined) throw new Error('the bench plan has errors');
  return plan;
}

function median(xs: readonly number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
}

function timeOnce(run: () => unknown): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

function benchCase({ name, plan, live, aimMs }: Case): void {
  const model: number[] = [];
  const walk: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    model.push(timeOnce(() => countListRemovals(plan, live)));
    walk.push(timeOnce(() => referenceListRemovals(plan, live)));
  }
  const ms = median(model);
  const old = median(walk);
  const aim =
    aimMs === undefined
      ? ''
      : `; aim model <= ${aimMs} ms${ms <= aimMs ? '' : ` — ABOVE AIM by ${(ms - aimMs).toFixed(0)} ms`}`;
  console.log(
    `  ${name}, ${plan.calls.length.toLocaleString('en')} calls: model ${ms.toFixed(0)} ms, old walk ${old.toFixed(0)} ms (medians of ${RUNS}); ratio ${(ms / old).toFixed(2)}${aim}`,
  );
}

export function benchGuards(): void {
  console.log(
    `list guards (countListRemovals on ${GUIDES.toLocaleString('en')} guides, in memory, beside the old hand-written walk)`,
  );
  const empty: LiveState = { guides: [], groups: [], account: {} };
  const read = readState();
  const cases: Case[] = [
    { name: 'onto an empty account', plan: planOf(empty), live: empty, aimMs: AIM_MS },
    { name: 'every guide read and its lists rewritten', plan: planOf(read), live: read },
  ];
  for (const c of cases) benchCase(c);
}
