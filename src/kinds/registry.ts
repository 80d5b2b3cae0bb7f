import type { PlannedOperation, ResourceKind } from '../core/plan-data.js';
import { ACCOUNT_KIND } from './account/index.js';
import { GROUP_KIND } from './group/index.js';
import { GUIDE_KIND } from './guide/index.js';
import { GUIDE_CONFIG_KIND } from './guide-config/index.js';
import type { DeletedKind, WriteEffects } from './kind.js';
import type { Kind, KindModule } from './kind-module.js';
import { MEMBERSHIP_KIND } from './membership/index.js';
import type { PlanPhase } from './plan-context.js';
import { TASK_KIND } from './task/index.js';

export type { Kind, KindModule } from './kind-module.js';

/**
 * Every kind, in the order the schema lists them. Typed by every {@link Kind}, so the compiler
 * names a kind that has no module; `satisfies` keeps each kind's own writes for
 * {@link WRITE_EFFECTS}.
 */
export const KINDS = {
  guide: GUIDE_KIND,
  guideConfig: GUIDE_CONFIG_KIND,
  group: GROUP_KIND,
  membership: MEMBERSHIP_KIND,
  account: ACCOUNT_KIND,
  task: TASK_KIND,
} as const satisfies { readonly [K in Kind]: KindModule };

/**
 * The effect of every planned operation, each written once in its kind's `writes.ts`. Typed by
 * every operation, so the compiler names one that no kind writes.
 */
export const WRITE_EFFECTS: WriteEffects<PlannedOperation> = {
  ...KINDS.guide.writes,
  ...KINDS.guideConfig.writes,
  ...KINDS.group.writes,
  ...KINDS.membership.writes,
  ...KINDS.account.writes,
  ...KINDS.task.writes,
};

/**
 * The order `config/` runs the kinds' rules in: the guides first, since the rules of groups and
 * tasks read who the guides are (`RuleContext`); then in the order their diagnostics have
 * always come, so that problems of equal place keep their order.
 */
export const RULE_ORDER: readonly Kind[] = ['guide', 'guideConfig', 'group', 'membership', 'task', 'account'];

/**
 * The kinds that take part in each phase of a plan, in the order their calls go: groups before
 * the guides are created, guides before groups are deleted. Every step of every kind is listed
 * once (test/kinds/plan-order.test.ts).
 */
export const PLAN_ORDER: { readonly [P in PlanPhase]: readonly Kind[] } = {
  check: ['group', 'membership'],
  create: ['group', 'guide'],
  configure: ['guideConfig', 'guide', 'account'],
  link: ['membership'],
  schedule: ['task'],
  delete: ['guide', 'group', 'task'],
  merge: ['group'],
};

/** The sections of a plan's changes in the order the output shows them: each kind's own, by rank. */
export const CHANGE_ORDER: readonly ResourceKind[] = Object.values(KINDS)
  .flatMap((kind) => ('resource' in kind.changeSection ? [kind.changeSection] : []))
  .sort((a, b) => a.rank - b.rank)
  .map((section) => section.resource);

/** The operation that creates or deletes a kind, for messages that name it. */
export function operationThat(does: 'creates' | 'deletes', kind: DeletedKind): PlannedOperation | undefined {
  return Object.values(WRITE_EFFECTS).find((effect) => effect[does] === kind)?.operation;
}

/**
 * Every kind once, in the order of the live state's parts as guidectl shows them: export writes
 * its sections so, and a stale plan lists what changed so. A kind whose part is inside another's
 * (a `partOf` digest and export) comes right after that kind.
 */
export const LIVE_ORDER: readonly Kind[] = ['account', 'group', 'membership', 'guide', 'guideConfig', 'task'];
