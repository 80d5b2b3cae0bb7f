import { compareText } from '../core/compare-text.js';
import type { CallBody, CallSubject, Change, Plan, PlannedCall, PlannedOperation } from '../core/plan.js';
import { ifDefined } from '../core/records.js';

export type Lane = 'group' | 'guide' | 'membership' | 'account' | 'task';

/** The subject of a call from its body, as the plan's live state names groups and tasks. */
export type SubjectOf = (operation: PlannedOperation, body: CallBody) => CallSubject | undefined;

/**
 * Collects calls with their dependencies (each call depends on the previous call of its lane)
 * and their subjects; `subjectOf` names them, given by the planner, which knows the live names.
 */
export class PlanBuilder {
  readonly calls: PlannedCall[] = [];
  private readonly changes: Change[] = [];
  private readonly lastOfLane = new Map<string, number>();

  constructor(private readonly subjectOf: SubjectOf) {}

  call(
    lane: Lane,
    key: string,
    operation: PlannedOperation,
    body: CallBody,
    extraDeps: ReadonlyArray<number | undefined> = [],
    createsGroup?: string,
  ): void {
    const laneKey = `${lane}\u0000${key}`;
    const deps = new Set<number>();
    const previous = this.lastOfLane.get(laneKey);
    if (previous !== undefined) deps.add(previous);
    for (const d of extraDeps) if (d !== undefined) deps.add(d);
    const subject = this.subjectOf(operation, body);
    // The planner writes every body it names a subject from, so this is a bug of the planner's.
    if (subject === undefined) throw new Error(`planChanges: a ${operation} call without its subject`);
    this.lastOfLane.set(laneKey, this.calls.length);
    this.calls.push({
      operation,
      body,
      subject,
      dependsOn: [...deps].sort((x, y) => x - y),
      ...ifDefined('createsGroup', createsGroup),
    });
  }

  /** Index of the last call so far in a lane, if any. */
  last(lane: Lane, key: string): number | undefined {
    return this.lastOfLane.get(`${lane}\u0000${key}`);
  }

  change(change: Change): void {
    this.changes.push(change);
  }

  sortedChanges(): Change[] {
    const rank = { account: 0, group: 1, guide: 2, task: 3 } as const;
    return [...this.changes].sort(
      (a, b) => rank[a.resource] - rank[b.resource] || compareText(a.address, b.address),
    );
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
