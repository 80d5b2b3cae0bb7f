import { compareText } from '../core/compare-text.js';
import type {
  CallBody,
  Change,
  Plan,
  PlannedCall,
  PlannedOperation,
  ResourceKind,
} from '../core/plan-data.js';
import { ifDefined } from '../core/records.js';
import type { SubjectNames, WriteEffect } from './kind.js';

/** What a call may add to its order besides its effect's: calls it must follow for a plan's own reason. */
export interface PlannedCallOptions {
  readonly after?: readonly number[];
  /** The name of the group a group creation makes, for the calls that name it. */
  readonly createsGroup?: string;
}

/**
 * Collects calls with their subjects and order. A call depends on the previous call on the
 * resource its effect touches, on the calls of this plan that create what it needs, and on those
 * its options name. `names` names the live groups and tasks a body names by id; `sections` puts
 * the changes' resources in the order the output shows them (`CHANGE_ORDER` of the registry).
 */
export class PlanBuilder {
  readonly calls: PlannedCall[] = [];
  private readonly changes: Change[] = [];
  private readonly lastOn = new Map<string, number>();
  private readonly creator = new Map<string, number>();

  constructor(
    private readonly names: SubjectNames,
    private readonly sections: readonly ResourceKind[],
  ) {}

  call<O extends PlannedOperation>(
    effect: WriteEffect<O>,
    body: CallBody,
    options: PlannedCallOptions = {},
  ): void {
    const resource = effect.touches(body, this.names);
    const deps = new Set<number>();
    const previous = this.lastOn.get(resource);
    if (previous !== undefined) deps.add(previous);
    for (const need of effect.needs?.(body, this.names) ?? []) {
      const made = this.creator.get(need);
      if (made !== undefined) deps.add(made);
    }
    for (const d of options.after ?? []) deps.add(d);
    const subject = effect.subject(body, this.names);
    // The planner writes every body it names a subject from, so this is a bug of the planner's.
    if (subject === undefined) throw new Error(`planChanges: a ${effect.operation} call without its subject`);
    this.lastOn.set(resource, this.calls.length);
    if (effect.creates !== undefined) this.creator.set(resource, this.calls.length);
    this.calls.push({
      operation: effect.operation,
      body,
      subject,
      dependsOn: [...deps].sort((x, y) => x - y),
      ...ifDefined('createsGroup', options.createsGroup),
    });
  }

  change(change: Change): void {
    this.changes.push(change);
  }

  /** The changes by section, then address. */
  sortedChanges(): Change[] {
    const rank = new Map(this.sections.map((resource, i) => [resource, i]));
    const rankOf = (change: Change): number => {
      const found = rank.get(change.resource);
      // The registry gives every resource a section, so this is a bug of the caller's.
      if (found === undefined) throw new Error(`PlanBuilder: no section for ${change.resource} changes`);
      return found;
    };
    return [...this.changes].sort((a, b) => rankOf(a) - rankOf(b) || compareText(a.address, b.address));
  }

  summary(): Plan['summary'] {
    const count = (action: Change['action']): number =>
      this.changes.filter((c) => c.action === action).length;
    return {
      add: count('create'),
      change: count('update'),
      delete: count('delete'),
      calls: this.calls.length,
    };
  }
}
