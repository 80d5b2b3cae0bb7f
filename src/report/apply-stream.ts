import type { Applied, CallsEvent } from '../core/apply-run-data.js';
import type { Diagnostic } from '../core/diagnostics.js';
import type { PlannedOperation, PlanSummary } from '../core/plan-data.js';
import { ifDefined } from '../core/records.js';
import { diagnosticsToJson } from './diagnostic-text.js';
import type { EnvironmentSoFar } from './plan.js';
import { quotaShortfallToJson } from './quota.js';

/**
 * `apply --json-stream`: one JSON object a line on stdout as the apply goes, for CI logs and
 * dashboards. Every event carries `format_version` (this one, raised only when a field changes
 * meaning or goes away; new events and fields may be added) and `type`; `index` is the call's
 * place in the plan's `calls` array, from 0, as in `plan --json`. docs/machine-output.md lists the events.
 */
export const APPLY_STREAM_FORMAT_VERSION = 1;

export type ApplyStreamEvent =
  | {
      readonly type: 'plan';
      readonly plan_id: string;
      /**
       * With `--env NAME`: the environment's name, as every event of `apply --all-envs
       * --json-stream` names it (a stream's `environment` is always the name).
       */
      readonly environment?: string;
      /** The target read, in words (as a saved plan's `target`), with or without an environment. */
      readonly target?: string;
      readonly calls: number;
      /** As in `plan --json`: add, change, delete, calls. */
      readonly summary: PlanSummary;
    }
  | { readonly type: 'call_start'; readonly index: number; readonly operation: PlannedOperation }
  | {
      readonly type: 'call_retry';
      readonly index: number;
      readonly operation: string;
      /** The attempt that failed, from 1. */
      readonly attempt: number;
      readonly delay_ms: number;
      readonly reason: string;
      readonly errcode?: number;
    }
  | { readonly type: 'call_done'; readonly index: number; readonly operation: PlannedOperation }
  | {
      readonly type: 'call_failed';
      readonly index: number;
      readonly operation: PlannedOperation;
      readonly error: string;
      /** The call was on the wire when the run was abandoned: it may have taken effect. */
      readonly abandoned?: true;
    }
  | {
      readonly type: 'call_not_started';
      readonly index: number;
      readonly operation: PlannedOperation;
      readonly reason: string;
    }
  | {
      readonly type: 'interrupt';
      /** `stop`: the first Ctrl-C (nothing new starts); `abandon`: the second. */
      readonly action: 'stop' | 'abandon';
      readonly in_flight: number;
    }
  | {
      readonly type: 'diagnostics';
      /** With `--env NAME`, once the files are read for it: its name, and its target once resolved (as the `plan` event). */
      readonly environment?: string;
      readonly target?: string;
      /** Why no plan was made: `the files have errors`, `the plan cannot be made`. */
      readonly error: string;
      /** As `validate --json` gives them. */
      readonly diagnostics: readonly Record<string, unknown>[];
    }
  | {
      readonly type: 'summary';
      /** Absent when no plan was made (the `diagnostics` event before says why). */
      readonly plan_id?: string;
      /** The plan's calls, as its `plan` event said, made or not (0 without a `plan` event). */
      readonly calls: number;
      readonly done: number;
      readonly failed: number;
      readonly not_started: number;
      readonly interrupted: boolean;
      /**
       * true: the account was read again and matched the files; null: calls were made but it could
       * not be checked (interrupted, the check failed, writes abandoned, a saved plan without its
       * files); false otherwise, nothing written included (no plan, refused, stale, cancelled).
       */
      readonly converged: boolean | null;
      /** What the check read again (`--verify`): `targeted` or `full`; present when it was made. */
      readonly verify?: 'targeted' | 'full';
      /** Calls a plan made after the apply would still make (drift), when it was checked. */
      readonly drift_calls?: number;
      /** Why the read after the writes failed, when it did. */
      readonly check_error?: string;
      /** Writes given up without an answer that may still take effect (convergence not claimed). */
      readonly abandoned_writes?: number;
      /** Why nothing was written: refusals of the guards, a stale saved plan. */
      readonly refused?: readonly string[];
      /** What the daily quotas left undone, when a call met one used up (as `apply --json`). */
      readonly quota_shortfall?: Readonly<Record<string, unknown>>;
      readonly exit_code: 0 | 1;
    };

/**
 * The events of an apply that made no plan — invalid files, or a plan that cannot be made: the
 * diagnostics (also on stderr, for people), then the summary, so that the stream still ends with
 * one, and a reader of stdout alone learns why.
 */
export function noPlanEvents(
  error: string,
  diagnostics: readonly Diagnostic[],
  cwd: string,
  environment?: EnvironmentSoFar,
  /** What the summary can say already: the plan announced before the failure, a Ctrl-C. */
  known: {
    readonly plan?: { readonly id: string; readonly calls: number };
    readonly interrupted?: boolean;
  } = {},
): ApplyStreamEvent[] {
  const { name, target } = environment ?? {};
  const { plan, interrupted = false } = known;
  return [
    {
      type: 'diagnostics',
      ...ifDefined('environment', name),
      ...ifDefined('target', target),
      error,
      diagnostics: diagnosticsToJson(diagnostics, { cwd }),
    },
    { ...emptySummary(plan?.id, plan?.calls), interrupted, converged: false, exit_code: 1 },
  ];
}

/** One event as the object its line of the stream is. */
export function streamEventJson(event: ApplyStreamEvent): Readonly<Record<string, unknown>> {
  return { format_version: APPLY_STREAM_FORMAT_VERSION, ...event };
}

/**
 * The `summary` event of an apply that made no call (refused, stale, nothing to do, no plan), but
 * for its verdict; without a plan, it has no `plan_id`. `calls` is what the `plan` event said (0
 * when there was none): the plan's calls, none of them made.
 */
export function emptySummary(
  id?: string,
  calls = 0,
): Omit<Extract<ApplyStreamEvent, { type: 'summary' }>, 'converged' | 'exit_code'> {
  return {
    type: 'summary',
    ...ifDefined('plan_id', id),
    calls,
    done: 0,
    failed: 0,
    not_started: 0,
    interrupted: false,
  };
}

/**
 * `converged` as both JSON outputs of an apply that made its calls say it: null when that could
 * not be checked — interrupted, the check failed, writes abandoned (held past the settling time,
 * or by a second Ctrl-C: they may still land), a saved plan applied without its files.
 */
export function convergedToJson(run: Applied, checkMessage: string | undefined): boolean | null {
  const unchecked = !run.canCheck || run.interrupted || checkMessage !== undefined || run.abandoned > 0;
  return unchecked ? null : run.converged;
}

/** The `summary` event of an apply that made its calls. */
export function appliedSummary(
  run: Applied,
  checkMessage: string | undefined,
  exit: 0 | 1,
  timeZone?: string,
): ApplyStreamEvent {
  const { drift, abandoned, converged, interrupted, quotaShortfall } = run;
  const count = (status: string): number => run.result.outcomes.filter((o) => o.status === status).length;
  return {
    type: 'summary',
    plan_id: run.reviewed.id,
    calls: run.reviewed.plan.calls.length,
    done: count('done'),
    failed: count('failed'),
    not_started: count('not-started'),
    interrupted,
    converged: convergedToJson(run, checkMessage),
    ...(drift === undefined ? {} : { verify: run.verify }),
    ...(drift === undefined || converged ? {} : { drift_calls: drift.plan.calls.length }),
    ...ifDefined('check_error', checkMessage),
    ...(abandoned === 0 ? {} : { abandoned_writes: abandoned }),
    ...(quotaShortfall === undefined
      ? {}
      : { quota_shortfall: quotaShortfallToJson(quotaShortfall, timeZone) }),
    exit_code: exit,
  };
}

/** The stream's event for what happened to a call (see `CallsEvent`). */
export function streamEventOf(event: CallsEvent): ApplyStreamEvent {
  switch (event.type) {
    case 'start':
      return { type: 'call_start', index: event.index, operation: event.operation };
    case 'done':
      return { type: 'call_done', index: event.index, operation: event.operation };
    case 'failed': {
      const { index, operation, error } = event;
      return {
        type: 'call_failed',
        index,
        operation,
        error,
        ...(event.abandoned ? { abandoned: true } : {}),
      };
    }
    case 'retry': {
      const { index, operation, attempt, reason, errcode } = event;
      const code = errcode === undefined ? {} : { errcode };
      return { type: 'call_retry', index, operation, attempt, delay_ms: event.delayMs, reason, ...code };
    }
    case 'not-started':
      return {
        type: 'call_not_started',
        index: event.index,
        operation: event.operation,
        reason: event.reason,
      };
    case 'stop':
    case 'abandon':
      return { type: 'interrupt', action: event.type, in_flight: event.inFlight };
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}
