import type { Applied, CallsEvent, Reviewed } from '../core/apply-run-data.js';
import { countOf, formatCount } from '../core/count.js';
import { type OperationNeed, QUOTA_RESET } from '../core/daily-quota.js';
import type { ApplyResult, CallOutcome, Change, ChangeAction, Plan } from '../core/plan-data.js';
import { ifDefined } from '../core/records.js';
import type { Refusal } from '../core/safety.js';
import { shellWord } from '../core/shell-word.js';
import type { TargetNow } from '../core/target-identity.js';
import { shortLocalTime } from '../core/wall-time.js';
import { WRITE_EFFECTS } from '../kinds/registry.js';
import { convergedToJson } from './apply-stream.js';
import { escapeControls } from './escape.js';
import { paint } from './paint.js';
import {
  changeLines,
  type EnvironmentInWords,
  guardMessage,
  type PlanExtras,
  planToJson,
  renderPlan,
  subjectText,
} from './plan.js';
import { quotaShortfallToJson, renderQuotaShortfall } from './quota.js';

const MOST_LISTED = 20;

/**
 * The outcome of an apply for people: a summary line, then every failed call with its error, every
 * call abandoned in flight, and the calls not started (the first twenty), each with its number in
 * the plan.
 */
export function renderApplyResult(
  plan: Plan,
  result: ApplyResult,
  options: { readonly color?: boolean } = {},
): string {
  const p = paint(options.color === true);
  const done = result.outcomes.filter((o) => o.status === 'done').length;
  const failed = result.outcomes.filter((o) => o.status === 'failed' && o.abandoned !== true);
  const abandoned = result.outcomes.filter((o) => o.abandoned === true);
  const notStarted = result.outcomes.filter((o) => o.status === 'not-started');
  const lines = [
    '',
    p.bold(
      `Apply: ${countOf(done, 'call')} done, ${formatCount(failed.length)} failed, ${abandoned.length === 0 ? '' : `${formatCount(abandoned.length)} abandoned, `}${formatCount(notStarted.length)} not started (of ${formatCount(plan.calls.length)}).`,
    ),
  ];
  for (const o of failed)
    lines.push(
      `  ${p.red('failed')}       #${o.index + 1} ${o.operation} ${subjectText(plan.calls[o.index]?.subject)}: ${escapeControls(reasonAfter(o.operation, o.reason ?? ''))}`,
    );
  // The client's reason says what a caller of the library should do; here the closing line does.
  for (const o of abandoned)
    lines.push(
      `  ${p.red('abandoned')}    #${o.index + 1} ${o.operation} ${subjectText(plan.calls[o.index]?.subject)}: in flight when abandoned; its outcome is unknown`,
    );
  for (const o of notStarted.slice(0, MOST_LISTED)) {
    lines.push(
      `  ${p.yellow('not started')}  #${o.index + 1} ${o.operation} ${subjectText(plan.calls[o.index]?.subject)}: ${escapeControls(o.reason ?? '')}`,
    );
  }
  if (notStarted.length > MOST_LISTED)
    lines.push(`  … and ${formatCount(notStarted.length - MOST_LISTED)} more not started`);
  return `${lines.join('\n')}\n`;
}

/**
 * A call's failure as the client words it (`<operation> failed: 40001 — …`), without the
 * operation: the lines that show it name the call already.
 */
function reasonAfter(operation: string, reason: string): string {
  const prefix = `${operation} failed: `;
  return reason.startsWith(prefix) ? reason.slice(prefix.length) : reason;
}

/**
 * The closing line of an interrupted apply. Calls not started were not made; but calls abandoned
 * in flight may have landed (or may still), so it names them and sends the reader to `plan`.
 */
export function renderInterrupted(result: ApplyResult): string {
  const notStarted = result.outcomes.filter((o) => o.status === 'not-started').length;
  const abandoned = result.outcomes.filter((o) => o.abandoned === true).map((o) => `#${o.index + 1}`);
  // Every call was made (the stop came during the convergence check): nothing is left to finish.
  if (result.outcomes.every((o) => o.status === 'done'))
    return 'Interrupted: every call was made, but convergence was not checked; run guidectl plan to see whether the account matches the files.\n';
  const notMade =
    notStarted === 0
      ? 'convergence was not checked'
      : `${notStarted === 1 ? 'the call not started was' : `the ${countOf(notStarted, 'call')} not started were`} not made, and convergence was not checked`;
  if (abandoned.length === 0) return `Interrupted: ${notMade}; run apply again to finish.\n`;
  const listed =
    abandoned.length > MOST_LISTED
      ? `${abandoned.slice(0, MOST_LISTED).join(', ')} and ${formatCount(abandoned.length - MOST_LISTED)} more`
      : listWords(abandoned);
  const lost =
    abandoned.length === 1
      ? `call ${listed} was abandoned in flight: it may have taken effect, or may still (its outcome is unknown)`
      : `calls ${listed} were abandoned in flight: each may have taken effect, or may still (their outcome is unknown)`;
  return `Interrupted: ${lost}; ${notMade}. Run guidectl plan to see where the account stands, then apply again to finish.\n`;
}

/** `#1`, `#1 and #2`, `#1, #2 and #3`. */
function listWords(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** Where the plan made now is in each of apply's output formats, for a refusal to point at. */
const PLAN_SHOWN: Readonly<Record<'human' | 'json' | 'json-stream', string>> = {
  human: 'the plan above',
  json: 'the plan made now (the "plan" of this JSON object)',
  'json-stream': 'the plan made now (the "plan" event)',
};

/**
 * Why apply will not make a plan's calls, in one line that says what to do; `format` is where the
 * plan made now was shown (human text above it, or the JSON), `timeZone` the user's for times.
 */
export function refusalMessage(
  refusal: Refusal,
  format: keyof typeof PLAN_SHOWN = 'human',
  timeZone?: string,
): string {
  switch (refusal.kind) {
    case 'guard':
      return guardMessage(refusal.guard);
    case 'plan-id':
      return refusal.file === undefined
        ? `refused: the plan made now has id ${refusal.actual}, not ${refusal.expected} (--plan-id): the files or the account changed since plan ${refusal.expected} was made, or it was made against another target (another base URL or database, another appid, or the same account reached with an access token instead of its appid and secret, or the reverse). Review ${PLAN_SHOWN[format]}; to apply it, pass --plan-id ${refusal.actual}.`
        : `refused: ${refusal.file} holds plan ${refusal.actual}, not ${refusal.expected} (--plan-id)`;
    case 'saved-plan-edited':
      return `refused: ${refusal.file} says plan ${refusal.saved}, but its files make plan ${refusal.now} against the same account: the saved plan was edited after it was made; make the plan again with guidectl plan --out`;
    case 'protection':
      return `refused: ${refusal.message}`;
    case 'quota':
      return `refused: ${refusal.sinceSaved === true ? "since it was saved, today's quotas changed: " : ''}${quotaRefusalText(refusal.short)}`;
    case 'quota-used-up':
      return `refused: ${quotaUsedUpText(refusal.used, refusal.resetsAt, timeZone)}`;
    default: {
      const unreachable: never = refusal;
      return unreachable;
    }
  }
}

/** Why a plan that cannot finish today is not started, and the ways on. */
function quotaRefusalText(short: readonly OperationNeed[]): string {
  const what = short
    .map((n) => `${n.operation} needs ${countOf(n.calls, 'call')} and ${formatCount(n.quota.remain)} remain`)
    .join('; ');
  return `this plan cannot finish today (${what}); the quotas reset at ${QUOTA_RESET}. Apply then, or pass --allow-partial to make now what fits (whole guides, with their configuration and memberships) and apply again after the reset to finish; the account's quotas may also be reset with clear_quota (ten times a month).`;
}

/**
 * Why a plan of which no call fits today is not started, with or without `--allow-partial`, in
 * the words of the report of an apply that met a used-up quota: starting it would only say that.
 */
function quotaUsedUpText(
  used: readonly OperationNeed[],
  resetsAt: number,
  timeZone: string | undefined,
): string {
  const what = used
    .map((n) => `${n.operation} needs ${countOf(n.calls, 'call')} and 0 remain today`)
    .join('; ');
  const at = shortLocalTime(Math.floor(resetsAt / 1000), timeZone);
  return `daily quota used up: ${what}, so no call of this plan can be made now, even with --allow-partial. The quotas reset at ${at}, ${QUOTA_RESET}. Run guidectl apply again after then. To finish sooner, reset the account's quotas with POST /cgi-bin/clear_quota (ten times a month), then apply again.`;
}

/** What the `--json` outputs of apply say of where the plan was made: its environment (`--env`) and target. */
export interface PlanShown {
  readonly environment?: EnvironmentInWords | undefined;
  readonly target?: TargetNow | undefined;
}

/** The extras of `planToJson` that say where a plan was made. */
function shownExtras({ environment, target }: PlanShown): PlanExtras {
  return { ...(environment && { environment }), ...(target && { target }) };
}

/** The plan as the `--json` outputs of apply hold it: with its id, where it was made, and guards. */
export function reviewedToJson(r: Reviewed, shown: PlanShown): Record<string, unknown> {
  const quota = r.quota === undefined ? {} : { quota: r.quota };
  const partial = r.partial === undefined ? {} : { partial: r.partial };
  return planToJson(r.plan, { planId: r.id, guards: r.guards, ...shownExtras(shown), ...quota, ...partial });
}

/** The `--json` object of an apply that made its calls (without `format_version`). */
export function appliedToJson(
  run: Applied,
  checkMessage: string | undefined,
  shown: PlanShown,
  timeZone?: string,
): Record<string, unknown> {
  const { drift, converged, quotaShortfall } = run;
  return {
    plan: reviewedToJson(run.reviewed, shown),
    outcomes: run.result.outcomes,
    converged: convergedToJson(run, checkMessage),
    ...(run.abandoned === 0 ? {} : { abandoned_writes: run.abandoned }),
    ...(run.drift === undefined ? {} : { verify: run.verify }),
    ...ifDefined('check_error', checkMessage),
    ...(drift === undefined || converged
      ? {}
      : { drift: planToJson(drift.plan, { planId: drift.planId, ...shownExtras(shown) }) }),
    ...(drift?.wordsReplaced === undefined
      ? {}
      : {
          sensitive_words_replaced: {
            semantics: 'append',
            target: 'replace',
            lost: drift.wordsReplaced.lost,
          },
        }),
    ...(quotaShortfall === undefined
      ? {}
      : { quota_shortfall: quotaShortfallToJson(quotaShortfall, timeZone) }),
  };
}

/**
 * The target replaced the sensitive words the plan appended (see `detectReplacedWords`): the
 * error, with the fix. The drift is not offered as calls to make, since under the same semantics
 * they would replace the list again.
 */
export function wordsReplacedMessage(lost: readonly string[]): string {
  const n = lost.length;
  return (
    `error: the target replaces the sensitive-word list instead of appending to it: the words appended replaced the list, and ${countOf(n, 'word')} that ${n === 1 ? 'was' : 'were'} to stay ${n === 1 ? 'is' : 'are'} gone (${lost.map((w) => JSON.stringify(w)).join(', ')}). ` +
    'Set semantics: replace under account.sensitive_words in the files, then apply again (one call then sets the whole list); applying again under append would replace the list again.'
  );
}

/**
 * The human report after the calls: the outcomes ({@link renderApplyResult}), then the
 * interruption, the writes that may still land, or convergence or drift.
 */
export function renderApplyReport(
  run: Applied,
  options: {
    readonly color?: boolean;
    readonly targetFlags?: string | undefined;
    readonly timeZone?: string | undefined;
  } = {},
): string {
  const { plan } = run.reviewed;
  const out = [renderApplyResult(plan, run.result, options)];
  if (run.quotaShortfall !== undefined) out.push(renderQuotaShortfall(run.quotaShortfall, options.timeZone));
  if (run.interrupted) {
    out.push(renderInterrupted(run.result));
  } else if (run.abandoned > 0) {
    out.push(
      `${countOf(run.abandoned, 'write')} got no answer even after waiting and may still take effect, so convergence is not claimed. Wait as long again as apply waited for ${run.abandoned === 1 ? 'it' : 'them'} (the failed ${run.abandoned === 1 ? 'call says' : 'calls say'} how long) before you run guidectl plan or apply again: an apply made sooner may make ${run.abandoned === 1 ? 'it' : 'them'} a second time. Copies that land all the same are found by the next apply, which cancels those of tasks and deletes those of groups.\n`,
    );
  } else if (!run.canCheck) {
    if (run.allDone)
      out.push('Every call of the saved plan succeeded (the files were not at hand to check convergence).\n');
  } else {
    out.push(convergenceText(run, options));
  }
  out.push(renderInvited(plan, run.result, options.targetFlags));
  return out.join('');
}

const MOST_NAMED = 3;

/**
 * The guides this apply added (their creations done): each was sent an invitation, which plan and
 * apply never see answered, since only getguideacct tells a guide's status and reading it for
 * every guide would double a plan's calls. Says so in one short line (the guides named when
 * there are few) with the command that shows the first one's status (with `targetFlags`, such as
 * ` --env staging --files envs/`, it reaches the same account); "" when none was added.
 */
export function renderInvited(plan: Plan, result: ApplyResult, targetFlags = ''): string {
  const guides = result.outcomes
    .filter((o) => WRITE_EFFECTS[o.operation].creates === 'guides' && o.status === 'done')
    .flatMap((o) => {
      const subject = plan.calls[o.index]?.subject;
      return subject?.kind === 'guide' ? [subject.address] : [];
    });
  const first = guides[0];
  if (first === undefined) return '';
  const named = guides.length <= MOST_NAMED ? ` (${guides.map(escapeControls).join(', ')})` : '';
  const key = first.startsWith('openid ')
    ? { guide_openid: first.slice('openid '.length) }
    : { guide_account: first };
  const each = guides.length === 1 ? 'it' : 'each';
  return `Invited ${countOf(guides.length, 'guide')}${named}; ${each} serves customers once it accepts in WeChat. Status: guidectl api getguideacct ${escapeControls(shellWord(JSON.stringify(key)))}${escapeControls(targetFlags)}\n`;
}

function convergenceText(run: Applied, options: { readonly color?: boolean }): string {
  const { drift, allDone } = run;
  if (drift === undefined) return '';
  if (drift.plan.calls.length === 0)
    return allDone ? 'Converged: the account matches the files.\n' : convergedAnyway(run.result.outcomes);
  if (drift.wordsReplaced !== undefined)
    return '\nNot converged: the target replaces the sensitive-word list (see the error above); set semantics: replace and apply again.\n';
  if (!allDone)
    return stillToDo(
      drift.plan,
      options,
      run.quotaShortfall === undefined ? 'once the failure is fixed' : 'after the quotas reset',
    );
  const heading =
    '\nDrift: every call succeeded, yet the account still differs from the files (for example sensitive words ' +
    'under the wrong semantics, or a change made by someone else meanwhile):\n\n';
  return heading + renderPlan(drift.plan, { ...options, planId: drift.planId });
}

const MOST_STILL_TO_DO = 5;

const TO_DO: Readonly<Record<ChangeAction, string>> = { create: 'add', update: 'change', delete: 'delete' };

/**
 * What a failed apply left undone, read back: counts by kind and the first few changes. The whole
 * plan again would be thousands of lines after a large change failed early; `guidectl plan` shows
 * it, and `apply --json` holds it (`drift`).
 */
function stillToDo(plan: Plan, options: { readonly color?: boolean }, when: string): string {
  const p = paint(options.color === true);
  const counts = new Map<string, { readonly change: Change; n: number }>();
  for (const change of plan.changes) {
    const key = `${change.resource} ${change.action}`;
    const seen = counts.get(key);
    if (seen === undefined) counts.set(key, { change, n: 1 });
    else seen.n++;
  }
  const kinds = [...counts.values()].map(
    ({ change, n }) => `${countOf(n, change.resource)} to ${TO_DO[change.action]}`,
  );
  const first = plan.changes.slice(0, MOST_STILL_TO_DO).map((c) => {
    const [name] = changeLines(c);
    const sign = c.action === 'create' ? p.green('+') : c.action === 'delete' ? p.red('-') : p.yellow('~');
    return `  ${sign} ${name?.text ?? c.address}`;
  });
  const more = plan.changes.length - first.length;
  return [
    '',
    `Still to do (run apply again ${when}): ${kinds.join(', ')} (${countOf(plan.calls.length, 'API call')}).`,
    ...first,
    ...(more > 0
      ? [
          `  … and ${formatCount(more)} more: guidectl plan shows every change; apply --json holds them under "drift".`,
        ]
      : []),
    '',
  ].join('\n');
}

/**
 * Read back, the account matches the files although some calls did not succeed: what they were
 * to change is there all the same (a write whose answer was lost took effect, or someone else made
 * the change meanwhile). Said as it is, since the failures above stand (the exit is still 1).
 */
function convergedAnyway(outcomes: readonly CallOutcome[]): string {
  const failed = outcomes.filter((o) => o.status === 'failed').length;
  const notStarted = outcomes.filter((o) => o.status === 'not-started').length;
  const parts = [
    ...(failed > 0 ? [`${countOf(failed, 'call')} failed`] : []),
    ...(notStarted > 0 ? [`${countOf(notStarted, 'call')} not started`] : []),
  ];
  return `Converged all the same: read back, the account matches the files, although ${parts.join(' and ')}: what ${failed + notStarted === 1 ? 'it was' : 'they were'} to change is there (a write whose answer was lost took effect, or the change was made meanwhile by someone else).\n`;
}

/**
 * The line said on stderr (above the progress line) when a call fails or the run is stopped, or
 * undefined. An abandoned call is not told as it fails: the report lists it once.
 */
export function callNote(event: CallsEvent): string | undefined {
  switch (event.type) {
    case 'failed':
      return event.abandoned
        ? undefined
        : `guidectl: call #${event.index + 1} (${event.operation}) failed: ${escapeControls(reasonAfter(event.operation, event.error))}\n`;
    case 'stop':
      return event.inFlight === 0
        ? 'guidectl: stopping: no call is in flight\n'
        : `guidectl: stopping: waiting for ${countOf(event.inFlight, 'call')} in flight; a second Ctrl-C or SIGTERM abandons ${event.inFlight === 1 ? 'it' : 'them'}\n`;
    case 'abandon':
      return `guidectl: abandoning ${countOf(event.inFlight, 'call')} in flight; ${event.inFlight === 1 ? 'its' : 'their'} outcome is unknown\n`;
    default:
      return undefined;
  }
}
