import type { PlannedOperation } from '../core/plan.js';
import type { SchemaFragment } from '../core/schema-fragment.js';
import type { SchemaMessages } from '../core/schema-messages.js';
import { ACCOUNT_MESSAGES } from './account/rules.js';
import { ACCOUNT_SCHEMA } from './account/schema.js';
import { ACCOUNT_WRITES } from './account/writes.js';
import { GROUP_MESSAGES } from './group/rules.js';
import { GROUP_SCHEMA } from './group/schema.js';
import { GROUP_WRITES } from './group/writes.js';
import { GUIDE_MESSAGES } from './guide/rules.js';
import { GUIDE_SCHEMA } from './guide/schema.js';
import { GUIDE_WRITES } from './guide/writes.js';
import { GUIDE_CONFIG_MESSAGES } from './guide-config/rules.js';
import { GUIDE_CONFIG_SCHEMA } from './guide-config/schema.js';
import { GUIDE_CONFIG_WRITES } from './guide-config/writes.js';
import type { DeletedKind, WriteEffect, WriteEffects } from './kind.js';
import { MEMBERSHIP_MESSAGES } from './membership/rules.js';
import { MEMBERSHIP_SCHEMA } from './membership/schema.js';
import { MEMBERSHIP_WRITES } from './membership/writes.js';
import { TASK_MESSAGES } from './task/rules.js';
import { TASK_SCHEMA } from './task/schema.js';
import { TASK_WRITES } from './task/writes.js';

/** The kinds of resource a file manages, each one module under `src/kinds/`. */
export type Kind = 'guide' | 'guideConfig' | 'group' | 'membership' | 'account' | 'task';

/**
 * What every kind gives the rest of guidectl in the same shape. Its other parts (what it reads,
 * how it plans, exports and fingerprints) differ in their types from kind to kind, so the rooms
 * that use them name them in the kind's own files.
 */
export interface KindModule {
  /** Its part of the file's JSON Schema: `$defs` entries. */
  readonly schema: SchemaFragment;
  /** What the schema check says when its part breaks a constraint, by `$defs` entry and keyword. */
  readonly messages: SchemaMessages;
  /** The effect of each of its writes on the account. */
  readonly writes: { readonly [O in PlannedOperation]?: WriteEffect<O> };
}

/**
 * Every kind, in the order the schema lists them. Typed by every {@link Kind}, so the compiler
 * names a kind that has no module; `satisfies` keeps each kind's own writes for
 * {@link WRITE_EFFECTS}.
 */
export const KINDS = {
  guide: { schema: GUIDE_SCHEMA, messages: GUIDE_MESSAGES, writes: GUIDE_WRITES },
  guideConfig: { schema: GUIDE_CONFIG_SCHEMA, messages: GUIDE_CONFIG_MESSAGES, writes: GUIDE_CONFIG_WRITES },
  group: { schema: GROUP_SCHEMA, messages: GROUP_MESSAGES, writes: GROUP_WRITES },
  membership: { schema: MEMBERSHIP_SCHEMA, messages: MEMBERSHIP_MESSAGES, writes: MEMBERSHIP_WRITES },
  account: { schema: ACCOUNT_SCHEMA, messages: ACCOUNT_MESSAGES, writes: ACCOUNT_WRITES },
  task: { schema: TASK_SCHEMA, messages: TASK_MESSAGES, writes: TASK_WRITES },
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

/** The operation that creates or deletes a kind, for messages that name it. */
export function operationThat(does: 'creates' | 'deletes', kind: DeletedKind): PlannedOperation | undefined {
  return Object.values(WRITE_EFFECTS).find((effect) => effect[does] === kind)?.operation;
}
