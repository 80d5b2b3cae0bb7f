import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executePlan } from '../../src/apply/index.js';
import { createGuideClient, type GuideClient } from '../../src/client/index.js';
import type { DesiredState } from '../../src/core/desired.js';
import { guideKey } from '../../src/core/desired.js';
import type { LiveState } from '../../src/core/live.js';
import type { Plan } from '../../src/core/plan-data.js';
import { READ_EVERYTHING, readLiveState, readOnlyClient } from '../../src/live/index.js';
import { planChanges } from '../../src/plan/index.js';
import { FAST_RETRY } from '../client/helpers.js';
import { applyToModel } from '../helpers/live-model.js';
import { planOf } from '../helpers/plan-builder.js';
import { type Case, desiredFromLive, randomCase } from '../helpers/random-states.js';
import { startTestService, type TestService } from '../helpers/service.js';

// The planner's random cases (test/plan/plan-properties.test.ts) run for real: the live state of a
// case is made on the guide service, the case's plan is applied with executePlan, and the account
// read back with readLiveState (1) plans to no changes and (2) is what the in-test model of the
// account says — so the model the property tests trust behaves as the service does.

/** The first six cases from seed 1000 on whose plans have calls (a case with plan errors has none). */
const CASES: Case[] = [];
for (let seed = 1000; CASES.length < 6; seed++) {
  const c = randomCase(seed);
  if ((planChanges(c.desired, c.live).plan?.calls.length ?? 0) > 0) CASES.push(c);
}

let t: TestService;
let client: GuideClient;

beforeAll(async () => {
  t = await startTestService();
  client = createGuideClient({ baseUrl: t.url, auth: t.service.credentials, retry: FAST_RETRY });
});
afterAll(async () => {
  await client.close();
  await t.close();
});

const read = (): Promise<LiveState> => readLiveState(readOnlyClient(client), READ_EVERYTHING);

async function run(plan: Plan): Promise<void> {
  const result = await executePlan(plan, client, { parallelism: 8 });
  const failed = result.outcomes.filter((o) => o.status !== 'done');
  if (failed.length > 0) throw new Error(`calls did not succeed: ${JSON.stringify(failed)}`);
}

/**
 * Makes `live` on the empty service: everything a file can say through a plan, then the second
 * groups of a name by hand (no plan makes those). A welcome of an unknown type cannot be made.
 */
async function makeLive(live: LiveState): Promise<void> {
  await t.sim('reset');
  const known = (w: { type: string }) => w.type !== 'unknown';
  const writable: LiveState = {
    guides: live.guides.map((g) =>
      g.config === undefined ? g : { ...g, config: { ...g.config, welcome: g.config.welcome.filter(known) } },
    ),
    groups: live.groups,
    account: { ...live.account, defaultWelcome: (live.account.defaultWelcome ?? []).filter(known) },
  };
  await run(planOf(desiredFromLive(writable, { guides: false, groups: false }, 'COVER_1'), await read()));
  const seen = new Set<string>();
  for (const group of live.groups) {
    if (!seen.has(group.name)) {
      seen.add(group.name);
      continue;
    }
    const { group_id } = await t.ok('newguidegroup', { group_name: group.name });
    for (const m of group.members ?? []) await t.ok('addguide2guidegroup', { group_id, guide_account: m });
  }
}

/** A live state with ids and list orders left out, to compare the model's with the service's. */
function shape(live: LiveState): unknown {
  const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    guides: live.guides.map((g) => ({ ...g, id: guideKey(g.id) })).sort((a, b) => byText(a.id, b.id)),
    groups: live.groups
      .map((g) => `${g.name}: ${[...(g.members ?? [])].sort(byText).join(',')}`)
      .sort(byText),
    account: { ...live.account, sensitiveWords: [...(live.account.sensitiveWords ?? [])].sort(byText) },
  };
}

describe('random plans applied to the guide service', () => {
  it.each(CASES.map((c) => [c.seed, c] as const))(
    'seed %i: converges, and the account is what the model of it says',
    async (_, c) => {
      await makeLive(c.live);
      const live = await read();
      // The service appends sensitive words; a file that says otherwise is refused elsewhere.
      const words = c.desired.account?.sensitiveWords;
      const desired: DesiredState =
        c.desired.account === undefined || words === undefined
          ? c.desired
          : {
              ...c.desired,
              account: { ...c.desired.account, sensitiveWords: { ...words, semantics: 'append' } },
            };
      const plan = planOf(desired, live);
      expect(plan.calls.length).toBeGreaterThan(0);
      await run(plan);
      const after = await read();
      expect(planChanges(desired, after).plan?.calls).toEqual([]);
      expect(shape(after)).toEqual(shape(applyToModel(live, plan)));
    },
  );
});
