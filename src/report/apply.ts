import type { ApplyResult, Plan } from '../core/plan.js';
import { countOf, formatCount } from './count.js';
import { escapeControls } from './escape.js';
import { paint } from './paint.js';
import { callSubject } from './plan.js';

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
