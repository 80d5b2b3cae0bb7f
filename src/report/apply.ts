import type { ApplyResult, Plan } from '../core/plan.js';
import type { Refusal } from '../core/safety.js';
import { countOf, formatCount } from './count.js';
import { escapeControls } from './escape.js';
import { paint } from './paint.js';
import { callSubject, guardMessage } from './plan.js';

const MOST_LISTED = 20;

/**
 * The outcome of an apply for people: a summary line, then every failed call with its error and
 * the calls not started (the first twenty), each with its number in the plan.
 */
export function renderApplyResult(
  plan: Plan,
  result: ApplyResult,
  options: { readonly color?: boolean } = {},
): string {
  const p = paint(options.color === true);
  const done = result.outcomes.filter((o) => o.status === 'done').length;
  const failed = result.outcomes.filter((o) => o.status === 'failed');
  const notStarted = result.outcomes.filter((o) => o.status === 'not-started');
  const lines = [
    '',
    p.bold(
      `Apply: ${countOf(done, 'call')} done, ${formatCount(failed.length)} failed, ${formatCount(notStarted.length)} not started (of ${formatCount(plan.calls.length)}).`,
    ),
  ];
  for (const o of failed)
    lines.push(
      `  ${p.red('failed')}       #${o.index + 1} ${o.operation} ${callSubject(plan.calls[o.index])}: ${escapeControls(o.reason ?? '')}`,
    );
  for (const o of notStarted.slice(0, MOST_LISTED)) {
    lines.push(
      `  ${p.yellow('not started')}  #${o.index + 1} ${o.operation} ${callSubject(plan.calls[o.index])}: ${escapeControls(o.reason ?? '')}`,
    );
  }
  if (notStarted.length > MOST_LISTED)
    lines.push(`  … and ${formatCount(notStarted.length - MOST_LISTED)} more not started`);
  return `${lines.join('\n')}\n`;
}

/** Why apply will not make a plan's calls, in one line that says what to do. */
export function refusalMessage(refusal: Refusal): string {
  switch (refusal.kind) {
    case 'guard':
      return guardMessage(refusal.guard);
    case 'plan-id':
      return refusal.file === undefined
        ? `refused: the plan made now has id ${refusal.actual}, not ${refusal.expected} (--plan-id): the files or the account changed since plan ${refusal.expected} was made. Review the plan above; to apply it, pass --plan-id ${refusal.actual}.`
        : `refused: ${refusal.file} holds plan ${refusal.actual}, not ${refusal.expected} (--plan-id)`;
    case 'saved-plan-edited':
      return `refused: ${refusal.file} says plan ${refusal.saved}, but its files make plan ${refusal.now} against the same account: the saved plan was edited after it was made; make the plan again with guidectl plan --out`;
    case 'protection':
      return `refused: ${refusal.message}`;
    default: {
      const unreachable: never = refusal;
      return unreachable;
    }
  }
}
