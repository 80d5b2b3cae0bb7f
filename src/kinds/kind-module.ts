import type { DesiredState } from '../core/desired.js';
import type { LiveReadScope } from '../core/live.js';
import type { PlannedOperation } from '../core/plan-data.js';
import type { SchemaFragment } from '../core/schema-fragment.js';
import type { SchemaMessages } from '../core/schema-messages.js';
import type { KindCheck, KindDesiredDigest, KindNormalise } from './config-port.js';
import type { WriteEffect } from './kind.js';
import type { KindDigest, KindExport } from './live-part.js';
import type { KindRead } from './live-read.js';
import type { ChangeSection, KindPlan } from './plan-context.js';

/** The kinds of resource a file manages, each one module under `src/kinds/`. */
export type Kind = 'guide' | 'guideConfig' | 'group' | 'membership' | 'account' | 'task';

/**
 * What every kind gives the rest of guidectl, in the same shape: each kind's `index.ts` makes one,
 * and the registry lists them all.
 */
export interface KindModule {
  /** Its part of the file's JSON Schema: `$defs` entries. */
  readonly schema: SchemaFragment;
  /** What the schema check says when its part breaks a constraint, by `$defs` entry and keyword. */
  readonly messages: SchemaMessages;
  /** The effect of each of its writes on the account. */
  readonly writes: { readonly [O in PlannedOperation]?: WriteEffect<O> };

  // Config and the desired digest: what config/ and plan/digest.ts ask of every kind.
  /** Its rules across entries and files, which `config/check-rules.ts` runs in `RULE_ORDER`. */
  readonly check: KindCheck;
  /** Its section of one checked file, into the desired state. */
  readonly normalise: KindNormalise;
  /** Its section of the desired state as the desired digest covers it. */
  readonly desiredDigest: KindDesiredDigest;
  // Planning: plan/plan-changes.ts runs the steps, the plan's output orders changes by section.
  /** Its steps of a plan, by phase (`PLAN_ORDER` in the registry puts the kinds of a phase in order). */
  readonly plan: KindPlan;
  /** Where its changes go in the plan's output. */
  readonly changeSection: ChangeSection;
  // Its part of the live state: what is read for it and how, the live digest, and export.
  /** Its part of what a plan of `desired` reads (`readWhole` when its list is always read whole). */
  readonly readScope: (desired: DesiredState) => Partial<LiveReadScope>;
  /** How it is read: once for the account, for each guide, or inside another kind's read. */
  readonly read: KindRead;
  /** Its part of the live digest and the fingerprints, or the kind whose part holds it. */
  readonly digest: KindDigest;
  /** Its section of an exported file, or the kind whose section holds it. */
  readonly export: KindExport;
}
