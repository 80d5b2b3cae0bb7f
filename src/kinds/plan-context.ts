import type { DesiredGroup, DesiredGuide, DesiredState } from '../core/desired.js';
import type { Diagnostic } from '../core/diagnostics.js';
import type { LiveGroup, LiveGuide, LiveState } from '../core/live.js';
import type { FieldChange, ResourceKind, Unmanaged } from '../core/plan-data.js';
import type { Kind } from './kind-module.js';
import type { PlanBuilder } from './plan-builder.js';

/**
 * The phases of a plan, in the order their calls go. `check` matches the files with the live
 * state and checks what they name, before any call: its errors stop the plan there. `merge`
 * deletes the copies of declared groups once their members moved, after every other deletion.
 */
export const PLAN_PHASES = ['check', 'create', 'configure', 'link', 'schedule', 'delete', 'merge'] as const;
export type PlanPhase = (typeof PLAN_PHASES)[number];

/** One kind's part of one phase: its calls and changes go to `ctx.builder`, what it finds to `ctx`. */
export type PlanStep = (ctx: PlanContext) => void;

/** A kind's steps, by phase; a phase it has no part in has no step. */
export type KindPlan = { readonly [P in PlanPhase]?: PlanStep };

/**
 * Where a kind's changes go in the plan's output: a section of their own, by rank (lowest
 * first), or inside the changes of another kind (a guide's quick replies are fields of the guide).
 */
export type ChangeSection =
  | { readonly resource: ResourceKind; readonly rank: number }
  | { readonly partOf: Kind };

/**
 * What one run of the planner shares between the kinds' steps: the states, the builder of
 * calls, and what the steps found so far. Made by `planChanges` for each plan.
 */
export interface PlanContext {
  readonly builder: PlanBuilder;
  readonly desired: DesiredState;
  readonly live: LiveState;
  /** The declared guides, by key: steps go through resources by address. */
  readonly desiredGuides: readonly DesiredGuide[];
  /** The declared groups, by name. */
  readonly desiredGroups: readonly DesiredGroup[];
  readonly liveGuides: ReadonlyMap<string, LiveGuide>;
  /** Keys of the declared guides. */
  readonly desiredKeys: ReadonlySet<string>;
  /** Accounts of the live guides that have one. */
  readonly liveAccounts: ReadonlySet<string>;
  /** Errors and warnings of the plan, in the order found: any error means no plan. */
  readonly diagnostics: Diagnostic[];
  /** Warnings about what the plan does (which copy it keeps): said only with a plan. */
  readonly planNotes: Diagnostic[];
  /** The live resources the plan leaves alone, in the order of the deletions. */
  readonly unmanaged: Unmanaged[];
  readonly facts: PlanFacts;
}

/** What a kind's step finds for later steps, by name: each set once by the step named, then read. */
export interface PlanFactValues {
  /** Group (check): the live group each declared name manages, if any. */
  readonly matchedGroups: ReadonlyMap<string, LiveGroup | undefined>;
  /** Group (check): the other live groups of a declared name, to merge into it and delete. */
  readonly duplicates: ReadonlyMap<string, readonly LiveGroup[]>;
  /** Guide (create): the field changes of each declared guide, by key; its configuration adds to them. */
  readonly guideFields: ReadonlyMap<string, FieldChange[]>;
  /** Guide (create): the index of the call that creates each guide this plan creates, by key. */
  readonly addedAt: ReadonlyMap<string, number>;
  /** Guide (create): keys of the guides that exist after the plan. */
  readonly guidesAfter: ReadonlySet<string>;
  /** Guide (create): accounts of the live guides the plan deletes. */
  readonly deletedAccounts: ReadonlySet<string>;
  /** Membership (link): per declared group name, the calls that add members to the kept group. */
  readonly moves: ReadonlyMap<string, readonly number[]>;
  /** Task (schedule): the live tasks left alone, listed after the other kinds' (delete). */
  readonly tasksLeftAlone: readonly Unmanaged[];
}

/**
 * The facts of one plan. A fact read before its step set it, or set twice, is a bug of
 * `PLAN_ORDER` and throws, rather than planning with an empty value.
 */
export class PlanFacts {
  readonly #values: Partial<PlanFactValues> = {};

  set<K extends keyof PlanFactValues>(name: K, value: PlanFactValues[K]): void {
    if (this.#values[name] !== undefined) throw new Error(`planChanges: the plan fact ${name} is set twice`);
    this.#values[name] = value;
  }

  get<K extends keyof PlanFactValues>(name: K): PlanFactValues[K] {
    const value = this.#values[name];
    if (value === undefined)
      throw new Error(
        `planChanges: the plan fact ${name} is read before the step that finds it (see PLAN_ORDER)`,
      );
    return value;
  }
}
