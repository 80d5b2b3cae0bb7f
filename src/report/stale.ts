import { countOf, formatCount } from '../core/count.js';
import type { PlannedCall } from '../core/plan-data.js';
import type { StaleReport } from '../core/safety.js';
import { escapeControls } from './escape.js';
import { paint } from './paint.js';
import { subjectText } from './plan.js';

/** Lines listed of each kind before "… and N more". */
const MOST_LISTED = 20;

/**
 * `plan is stale`, for people: what changed in the account (from the fingerprints the plan
 * saved) and in the files, how a plan made now differs (calls it would no longer make, calls it
 * would add), and what to do.
 */
export function renderStale(report: StaleReport, options: { readonly color?: boolean } = {}): string {
  const p = paint(options.color === true);
  const reasons = [
    ...(report.live !== undefined ? ['the live state changed'] : []),
    ...(report.filesChanged ? [`the files (${escapeControls(report.paths.join(', '))}) changed`] : []),
  ];
  const lines = [
    `${p.red(p.bold('plan is stale'))}: ${reasons.join(' and ')} since plan ${report.savedPlanId} was made; nothing was changed.`,
  ];
  if (report.live !== undefined) {
    lines.push('', 'What changed in the account (of what the plan read):');
    const sign = { added: p.green('+'), removed: p.red('-'), changed: p.yellow('~') } as const;
    for (const d of report.live.slice(0, MOST_LISTED)) {
      const name = `${d.resource} ${escapeControls(d.address)}`;
      lines.push(`  ${sign[d.change]} ${name} (${d.change})`);
    }
    if (report.live.length > MOST_LISTED)
      lines.push(`  … and ${formatCount(report.live.length - MOST_LISTED)} more`);
    if (report.live.length === 0)
      lines.push('  (the same resources, read in a way that differs; plan again)');
  }
  if (report.now !== undefined) {
    const { planId, calls } = report.now;
    lines.push('');
    if (calls.length === 0) {
      lines.push(
        `A plan made now (id ${planId}) makes the same calls in another order or with other dependencies.`,
      );
    } else {
      lines.push(`A plan made now (id ${planId}) differs from the saved one:`);
      const removed = calls.filter((c) => c.change === 'removed');
      const added = calls.filter((c) => c.change === 'added');
      for (const c of removed.slice(0, MOST_LISTED))
        lines.push(`  ${p.red('-')} ${describeCall(c.call)}  ${p.dim('(saved, no longer planned)')}`);
      if (removed.length > MOST_LISTED)
        lines.push(`  … and ${countOf(removed.length - MOST_LISTED, 'more saved call')} no longer planned`);
      for (const c of added.slice(0, MOST_LISTED))
        lines.push(`  ${p.green('+')} ${describeCall(c.call)}  ${p.dim('(planned now, not saved)')}`);
      if (added.length > MOST_LISTED)
        lines.push(`  … and ${countOf(added.length - MOST_LISTED, 'more call')} planned now`);
    }
  } else if (report.nowErrors !== undefined) {
    lines.push(
      '',
      `A plan made now fails: ${countOf(report.nowErrors, 'plan error')}; run guidectl plan to see them`,
    );
  }
  const env = report.environment === undefined ? '' : ` --env ${escapeControls(report.environment)}`;
  lines.push('', `Make the plan again (guidectl plan${env} … --out FILE), review it, and apply that one.`);
  return `${lines.join('\n')}\n`;
}

/** A call in one line: its operation and whom it is about, `<operation> (guide_account="alice_wx")`. */
export function describeCall(call: PlannedCall): string {
  return `${call.operation} ${subjectText(call.subject)}`;
}
