import { QuotaExhaustedError } from '../client/call-errors.js';
import type { GuideClient } from '../client/index.js';
import { toId64 } from '../client/wire-names.js';
import { countOf } from '../core/count.js';
import { callsPastQuota } from '../core/daily-quota.js';
import { type GuideId, guideIdFrom } from '../core/desired.js';
import { errorMessage } from '../core/errors.js';
import type { LiveGuide, LiveState } from '../core/live.js';
import {
  type ApplyResult,
  type CallBody,
  type CallOutcome,
  type CallStatus,
  type Plan,
  type PlannedOperation,
  wireBody,
} from '../core/plan-data.js';
import { ifDefined } from '../core/records.js';
import { AccountModel } from '../kinds/account-model.js';
import { WRITE_EFFECTS } from '../kinds/registry.js';

export type { ApplyResult, CallOutcome, CallStatus };

/**
 * The one write method apply needs: a raw call of any operation. A `GuideClient` is one; the
 * index (of the call in the plan) lets a wrapper tie what the client reports to the plan's call.
 */
export interface PlanWriter {
  call(
    operation: Parameters<GuideClient['call']>[0],
    body: Parameters<GuideClient['call']>[1],
    options: Parameters<GuideClient['call']>[2],
    index: number,
  ): ReturnType<GuideClient['call']>;
}

export interface ApplyEvent {
  readonly type: 'start' | 'done' | 'failed';
  readonly index: number;
  readonly operation: PlannedOperation;
  readonly error?: string;
}

export interface ExecuteOptions {
  /**
   * Most calls in flight at once (the client bounds it too); a function when the bound moves
   * (the client's adaptive limit), read each time a call may start.
   */
  readonly parallelism: number | (() => number);
  /** After a failure, go on with the calls that do not depend on it (default: start nothing new). */
  readonly continueOnError?: boolean;
  readonly onEvent?: (event: ApplyEvent) => void;
  /** When aborted (Ctrl-C), nothing new starts; the calls in flight end as they end. */
  readonly signal?: AbortSignal;
  /**
   * The account as the plan read it: what a lost answer of an append is settled against (see
   * {@link appendsKnownBefore}). Without it, a lost task add is an unknown outcome.
   */
  readonly live?: LiveState;
  /**
   * What remains today of each operation's daily quota, as read before the calls: of an operation
   * named here, only its first `remain` calls in plan order start (see {@link callsPastQuota}).
   */
  readonly quotaRemain?: ReadonlyMap<string, number>;
}

/**
 * Runs exactly the plan's calls. A call starts once every call it depends on is done; up to
 * `parallelism` run at once, in plan order. After a failure nothing new starts (or, with
 * `continueOnError`, only calls that do not depend on a failed one). Of an operation whose quota
 * left is given, the calls past it do not start; after a 45009, no more of its calls start. Every call ends done,
 * failed or not started, and the result says which and why. Groups created by the plan fill
 * the placeholders of later calls with their new ids.
 */
export async function executePlan(
  plan: Plan,
  writer: PlanWriter,
  options: ExecuteOptions,
): Promise<ApplyResult> {
  const calls = plan.calls;
  const status: (CallStatus | 'running')[] = calls.map(() => 'not-started');
  const reasons = new Map<number, string>();
  const createdGroups = new Map<string, string>();
  const vouched = new Set<number>();
  const before = appendsKnownBefore(plan, options.live);
  let stopped = false;
  let next = 0; // every call before `next` has been started or settled as not started
  const running = new Set<Promise<void>>();
  // Operations whose daily quota a call found used up (45009): no more of their calls start today.
  const exhausted = new Set<PlannedOperation>();
  const capped = settlePastQuota(calls, options.quotaRemain, reasons);

  const blockedBy = (index: number): number | undefined =>
    calls[index]?.dependsOn.find((d) => status[d] === 'failed' || reasons.has(d));
  const ready = (index: number): boolean =>
    (calls[index]?.dependsOn ?? []).every((d) => status[d] === 'done');

  const run = async (index: number): Promise<void> => {
    const call = calls[index];
    if (call === undefined) return;
    status[index] = 'running';
    options.onEvent?.({ type: 'start', index, operation: call.operation });
    try {
      const known = before.get(index);
      let firstAnswer = false;
      const answer = await writer.call(
        call.operation,
        fillBody(call.body, createdGroups),
        {
          ...ifDefined('before', known),
          onAnswered: (a) => {
            firstAnswer = a.attempts === 1 && !a.confirmed && !a.held;
          },
        },
        index,
      );
      if (call.createsGroup !== undefined) {
        const id = toId64(answer['group_id']);
        if (id === undefined) throw new Error(`${call.operation} answered without a group_id`);
        createdGroups.set(call.createsGroup, id);
      }
      status[index] = 'done';
      if (firstAnswer) vouched.add(index);
      options.onEvent?.({ type: 'done', index, operation: call.operation });
    } catch (error) {
      const message = failureReason(call.operation, error);
      status[index] = 'failed';
      reasons.set(index, message);
      if (error instanceof QuotaExhaustedError) exhausted.add(call.operation);
      else if (options.continueOnError !== true) stopped = true;
      options.onEvent?.({ type: 'failed', index, operation: call.operation, error: message });
    }
  };

  const settled = (i: number): boolean =>
    status[i] === 'done' || status[i] === 'failed' || (status[i] === 'not-started' && reasons.has(i));
  for (;;) {
    while (next < calls.length && settled(next)) next++;
    // Start what may start, in plan order, up to the parallelism; a Ctrl-C seen while starting
    // (from an event listener) stops the starting at once.
    const interrupted = (): boolean => options.signal?.aborted === true;
    const parallelism = options.parallelism;
    const limit = typeof parallelism === 'number' ? parallelism : parallelism();
    for (let i = next; i < calls.length && running.size < limit && !stopped && !interrupted(); i++) {
      if (status[i] !== 'not-started' || reasons.has(i)) continue;
      const operation = calls[i]?.operation;
      if (operation !== undefined && exhausted.has(operation)) {
        reasons.set(i, `not started: the daily quota of ${operation} is used up (45009) until it resets`);
        continue;
      }
      const blocker = blockedBy(i);
      if (blocker !== undefined) {
        reasons.set(i, blockedReason(blocker, calls[blocker]?.operation ?? ''));
        continue;
      }
      if (!ready(i)) continue;
      const promise = run(i).finally(() => running.delete(promise));
      running.add(promise);
    }
    if (running.size === 0) break;
    await Promise.race(running);
  }

  const outcomes = outcomesOf(calls, status, reasons, options.signal?.aborted === true);
  const quotaExhausted = new Set([...capped, ...exhausted]);
  return { outcomes, createdGroups, vouched, ...(quotaExhausted.size === 0 ? {} : { quotaExhausted }) };
}

/**
 * Settles as not started, with why in `reasons`, the calls past what remained of their quota when
 * it was read (`remain`), before any call starts: what is made is then the plan's first calls of
 * each operation, whatever order they end in. Returns the operations that have such calls.
 */
function settlePastQuota(
  calls: Plan['calls'],
  remain: ReadonlyMap<string, number> | undefined,
  reasons: Map<number, string>,
): Set<PlannedOperation> {
  const capped = new Set<PlannedOperation>();
  for (const index of callsPastQuota(calls, remain ?? new Map())) {
    const operation = calls[index]?.operation;
    if (operation === undefined) continue;
    capped.add(operation);
    reasons.set(index, pastQuotaReason(operation, remain?.get(operation) ?? 0));
  }
  return capped;
}

/** Why a call failed: the client's words, but of a used-up quota only the code and its meaning. */
function failureReason(operation: PlannedOperation, error: unknown): string {
  // What to do about the quota is the report's to say, once for all such calls.
  if (error instanceof QuotaExhaustedError)
    return `${operation} failed: ${error.errcode} — daily quota reached`;
  return errorMessage(error);
}

/** Why a call past what remained of its operation's quota today was not started. */
function pastQuotaReason(operation: string, remain: number): string {
  const left =
    remain === 0
      ? `nothing was left today of the daily quota of ${operation}`
      : `it is beyond the ${countOf(remain, 'call')} left today of the daily quota of ${operation}, which the calls before it use`;
  return `not started: ${left}; apply again after the quota resets`;
}

/** How each call ended, with why for those that failed or did not start. */
function outcomesOf(
  calls: Plan['calls'],
  status: readonly (CallStatus | 'running')[],
  reasons: ReadonlyMap<number, string>,
  interrupted: boolean,
): CallOutcome[] {
  return calls.map((call, index) => {
    const s = status[index];
    const settled: CallStatus = s === 'done' || s === 'failed' ? s : 'not-started';
    const reason =
      reasons.get(index) ??
      (settled !== 'not-started'
        ? undefined
        : interrupted
          ? 'not started: apply was interrupted'
          : 'not started: apply stopped after a failed call');
    return { index, operation: call.operation, status: settled, ...ifDefined('reason', reason) };
  });
}

/** The wire body of a call: group placeholders replaced by the created ids; ids as bare numbers. */
export function fillBody(
  body: CallBody,
  createdGroups: ReadonlyMap<string, string>,
): Record<string, unknown> {
  return wireBody(body, (ref) => {
    const id = createdGroups.get(ref.$group);
    if (id === undefined) throw new Error(`group "${ref.$group}" was not created`);
    return BigInt(id);
  });
}

/**
 * What the plan knew, when it was made, of the state each of its appends changes: the client
 * settles a lost answer of an append by one read after it, against this (see the client's
 * `outcomes.ts`), instead of reading before every append. It is the state the write effects
 * give before the call (see `WriteEffect.knownBefore`), from `live` as the plan read it:
 * - a group creation: the plan creates a group only when no live group has its name: none.
 * - a quick-reply append: the guide's quick replies as read, or nothing after the plan's
 *   delete-all or for a guide it creates. Without `live`, as the plan's changes recorded them.
 * - a task add, given the live state the plan was made from with its tasks read: the ids of the
 *   guide's tasks as read (none for a guide the plan creates). The plan adds a task only when
 *   none of the guide's tasks is it, so a lost add is settled by one read of them.
 */
export function appendsKnownBefore(plan: Plan, live?: LiveState): Map<number, readonly string[]> {
  const model = new AccountModel(live ?? readByPlan(plan));
  const known = new Map<number, readonly string[]>();
  plan.calls.forEach((call, index) => {
    const effect = WRITE_EFFECTS[call.operation];
    const before = effect.knownBefore?.(model, call);
    if (before !== undefined) known.set(index, before);
    effect.apply(model, call);
  });
  return known;
}

/** The guides' quick replies as the plan's changes record them before, when no live state is given. */
function readByPlan(plan: Plan): LiveState {
  const ids = new Map<string, GuideId>();
  for (const call of plan.calls) {
    const id = guideIdFrom(call.body['guide_account'], call.body['guide_openid']);
    if (call.subject.kind === 'guide' && id !== undefined) ids.set(call.subject.address, id);
  }
  const guides = plan.changes.flatMap((change): LiveGuide[] => {
    const id = ids.get(change.address);
    if (change.resource !== 'guide' || change.action === 'create' || id === undefined) return [];
    const before = change.fields.find((f) => f.field === 'quick_replies')?.before;
    const quickReplies = Array.isArray(before) ? before.filter((r) => typeof r === 'string') : [];
    return [{ id, nickname: '', headImageUrl: '', config: { quickReplies, welcome: [] } }];
  });
  return { guides, groups: [], account: {} };
}

/**
 * Why a call was not started: the call it depends on failed, named as people count calls (#1
 * first) and as JSON indexes them (from 0), so that neither reader misreads it.
 */
function blockedReason(blocker: number, operation: string): string {
  return `not started: it depends on call #${blocker + 1} ${operation} (index ${blocker}), which did not succeed`;
}
