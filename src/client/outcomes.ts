import { isPlannedOperation } from '../core/plan-data.js';
import { type LostAnswerPolicy, type LostAnswerRule, RESEND, type WireBody } from '../kinds/kind.js';
import { WRITE_EFFECTS } from '../kinds/registry.js';
import { OPERATIONS, type OperationName } from '../wire/operations.js';

/**
 * What the client does with a write whose answer did not come back — the connection broke, or
 * the attempt timed out — so that the write may or may not have taken effect. A write must never
 * be applied twice, never land after a call that depends on it, and never be reported wrongly.
 *
 * **Ordering barrier (every write).** An attempt that times out is not abandoned: the server may
 * still be working on it, and a RESEND, or the next call of the plan, could then race the late
 * original (a retried "delete all quick replies" landing after the append that followed it, and
 * wiping it). The client keeps the request open for up to `settleMs` more (120 s) and waits for
 * its late answer, holding the call — and so everything that depends on it — until it comes:
 * - a late answer settles the attempt as any answer does (0: done; -1, 45011: no effect, retry);
 * - a connection that breaks meanwhile means the server is done with it: the rules below apply;
 * - nothing even then: the exchange is given up, the call fails with `CallOutcomeUnknownError`
 *   (no RESEND, no read: neither can tell what a request still in flight will do) and is counted
 *   in `GuideClient.abandonedWrites`, so that no caller declares the account converged while it
 *   could still land.
 * A write call therefore ends only when none of its attempts can land any more.
 *
 * **After a lost answer that is settled**, each write operation has one rule, written on its
 * effect (`src/kinds/<kind>/writes.ts`, `lostAnswer`) and listed for users in docs/guarantees.md
 * ("What a lost answer leads to"): an idempotent write is sent again; one that a repeat refuses
 * is sent again, and the refusal is checked by a read; a create or append is read before it is
 * sent again, and the read decides whether it landed.
 *
 * **Watching for a lost create or append.** A connection that breaks after the request was sent,
 * or a gateway that answers 502, 503 or 504, says nothing of the request itself: behind a gateway
 * that gave up (nginx after its timeout) the service may still be working on it, and apply it a
 * moment later. So a "not applied" read is not believed at once: the read is repeated (every
 * 0.25 s, doubling to 2 s) until it shows the write, or until the settle window
 * (`settleWindowMs`, 15 s) has passed; only then is the write sent again. The time watched does
 * not count towards the write's retry budget.
 *
 * An append whose state before was neither read nor given cannot be settled: a lost answer is
 * then an unknown outcome. The call also fails with `CallOutcomeUnknownError` when the retries
 * run out after a lost answer, or a confirming read fails. A -1 or 45011 answer means the call
 * had no effect (as the API documents), so it is simply retried, within the time budget.
 *
 * Limits, stated plainly: another client writing the same objects at the same moment can make a
 * confirmation see its write as ours (a group of the same name, a task with the same name, time
 * and recipients); the rules above then report the call done rather than apply it twice. A
 * connection that breaks is taken to mean that the server is done with the request, as the
 * guide service is, for the writes that may be resent; a proxy that drops the connection while
 * the server still works may then let a late original land after the resend (harmless for these:
 * each sets a whole value, or is refused on a repeat), or after the call that follows it. A
 * create or an append whose original lands only after the settle window is made twice: the next
 * plan reconciles the copies (groups and tasks of one name; a quick-reply list is set again).
 *
 * Each planned write's rule is written with its effect, in its kind's `writes.ts`.
 */
/** The operations that write. */
export type WriteOperation = {
  [Op in OperationName]: (typeof OPERATIONS)[Op]['writes'] extends true ? Op : never;
}[OperationName];

export function isWriteOperation(operation: OperationName): operation is WriteOperation {
  return OPERATIONS[operation].writes;
}

/** The rule of a write: a planned one's is its effect's; the others may be sent again. */
function ruleOf(operation: WriteOperation): LostAnswerRule {
  if (isPlannedOperation(operation)) return WRITE_EFFECTS[operation].lostAnswer;
  switch (operation) {
    case 'guidecreateqrcode':
    case 'pushshowwxapathmenu':
      return RESEND;
    default: {
      const unreachable: never = operation;
      return unreachable;
    }
  }
}

/** The rule for a write whose answer was lost (see the table above). */
export function lostAnswerPolicy(operation: WriteOperation, body: WireBody): LostAnswerPolicy {
  const rule = ruleOf(operation);
  return typeof rule === 'function' ? rule(body) : rule;
}
