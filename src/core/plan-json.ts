import { type Plan, type PlannedCall, wireBody } from './plan-data.js';
import { ifDefined } from './records.js';

/**
 * The plan's own content as JSON, the one encoding shared by `plan --json` (`report/plan.ts`) and
 * the saved plan (`plan/saved-plan.ts`), so that the two cannot drift apart: `summary`,
 * `sensitive_word_semantics`?, `changes`, `calls` and `unmanaged`. `calls` is the exact ordered
 * list apply makes, each `body` the exact wire body: ids as bare JSON numbers, and
 * `{"$group": name}` for the id of a group this plan creates — the group creation call with that
 * `creates_group` gives it.
 */
export function planContentToJson(plan: Plan): Record<string, unknown> {
  return {
    summary: plan.summary,
    ...(plan.sensitiveWordSemantics === undefined
      ? {}
      : { sensitive_word_semantics: plan.sensitiveWordSemantics }),
    changes: plan.changes.map((c) => ({
      resource: c.resource,
      action: c.action,
      address: c.address,
      fields: c.fields,
    })),
    calls: plan.calls.map(callToJson),
    unmanaged: plan.unmanaged,
  };
}

/**
 * One planned call as JSON: `{"operation", "body", "depends_on", "creates_group"?, "target"}`,
 * `target` being `{"kind", "address"}` (`CallSubject`, whom the call is about).
 */
export function callToJson(call: PlannedCall): Record<string, unknown> {
  return {
    operation: call.operation,
    body: wireBody(call.body, (ref) => ref),
    depends_on: call.dependsOn,
    ...ifDefined('creates_group', call.createsGroup),
    target: { kind: call.subject.kind, address: call.subject.address },
  };
}
