import { countOf, formatCount } from '../core/count.js';
import { type Diagnostic, sortDiagnostics } from '../core/diagnostics.js';
import { displayPath } from '../core/paths.js';
import type { Change, Plan } from '../core/plan-data.js';
import type { GuardResult } from '../core/safety.js';
import { CHANGE_ORDER, WRITE_EFFECTS } from '../kinds/registry.js';
import { escapeControls } from './escape.js';
import {
  changeLines,
  describeGuard,
  type PlanExtras,
  type PlanLine,
  renderUnmanaged,
  shownGuards,
  summaryLine,
} from './plan.js';
import { planQuotaLines } from './quota.js';

/**
 * The hidden first line of every comment body guidectl writes, so that a CI step can find its
 * earlier comment on a pull request and update it instead of adding another.
 */
export const MARKDOWN_MARKER = '<!-- guidectl-plan -->';

/** GitHub refuses a comment body longer than this many characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;
/** What the renderer aims to stay under by default: the limit, with room for a CI step's own words. */
export const DEFAULT_MARKDOWN_BUDGET = 60_000;
/**
 * Room the renderers keep beyond what they have written, for the code fences, the closing tags
 * and the cut notice: a body of length L given L + this much is shown whole, uncut.
 */
export const MARKDOWN_RESERVE = 600;

export interface MarkdownOptions extends PlanExtras {
  /** Most characters (UTF-16 code units) of the body; default {@link DEFAULT_MARKDOWN_BUDGET}. */
  readonly maxLength?: number;
  /** Say that changes are drift (from `--expect-no-changes`): the account moved away from the files. */
  readonly drift?: boolean;
}

/**
 * `### NAME — TARGET`: the heading of an environment's plan, in `plan --env NAME --markdown` and in
 * each section of `plan --all-envs --markdown` (without ` — TARGET` when the target was not
 * resolved). Markdown's own characters of both are escaped.
 */
export function environmentTitle(environment: { readonly name: string; readonly target?: string }): string {
  const { name, target } = environment;
  return `### ${escapeMarkdown(name)}${target === undefined ? '' : ` — ${escapeMarkdown(target)}`}`;
}

/**
 * The plan as a pull-request comment body (GitHub-flavoured markdown):
 *
 * 1. the hidden marker {@link MARKDOWN_MARKER}, then (`environment`) `### NAME — TARGET`;
 * 2. the summary line, in bold — always there and never cut; then, without an environment,
 *    `Target: TARGET` (`target`);
 * 3. the plan id, and the deletion guards that apply (a refusal as a caution block);
 * 4. a table of changes per kind (`| kind | add | change | delete |`), and what is left alone;
 * 5. the details in a collapsed `<details>` section: the human plan as a `diff` code block.
 *
 * The details are cut between two changes before the body would pass `maxLength` (only a first
 * change too large on its own is cut within), with a notice of how many changes are not shown.
 * Everything above them is small and bounded, so the body stays under GitHub's 65,536-character
 * limit however large the plan.
 */
export function renderPlanMarkdown(plan: Plan, options: MarkdownOptions = {}): string {
  const budget = options.maxLength ?? DEFAULT_MARKDOWN_BUDGET;
  const head: string[] = [MARKDOWN_MARKER];
  // Which account was planned, as `plan --all-envs --markdown` heads each environment.
  const { environment, target } = options;
  if (environment !== undefined) head.push(environmentTitle(environment), '');
  head.push(`**${summaryLine(plan, options.warnings?.length, options.guards)}**`, '');
  // Without an environment's heading, the target is said under the summary, which stays first.
  if (environment === undefined && target !== undefined)
    head.push(`Target: ${escapeMarkdown(target.description)}`, '');
  if (options.drift === true && plan.calls.length > 0) {
    head.push(
      '**Drift:** the account no longer matches the files; applying this plan would bring it back.',
      '',
    );
  }
  head.push(...warningLines(options.warnings ?? [], options.cwd));
  if (options.planId !== undefined) head.push(`Plan id: \`${options.planId}\``, '');
  const quota = planQuotaLines(options.quota);
  if (quota.length > 0) head.push(...quota.map(escapeMarkdown), '');

  const guards = shownGuards(options.guards);
  const refused = guards.filter((g) => g.status === 'refused');
  if (refused.length > 0) {
    head.push('> [!CAUTION]', '> **Refused by a deletion guard.** Nothing will be applied as it is:');
    for (const g of refused) head.push(`> - ${guardText(g)}`);
    head.push('');
  }
  const passing = guards.filter((g) => g.status !== 'refused');
  if (passing.length > 0) {
    head.push('Deletion guards:', '');
    for (const g of passing) {
      head.push(`- **${g.status}**: ${guardText(g)}`);
    }
    head.push('');
  }

  if (plan.changes.length > 0) head.push(...summaryTable(plan), '');
  if (plan.unmanaged.length > 0) head.push(escapeMarkdown(renderUnmanaged(plan)), '');
  const top = head.join('\n');
  if (plan.changes.length === 0) return `${top}\n`;

  // The details, change by change, until the budget would be passed.
  const summary = `<details><summary>Details: ${countOf(plan.changes.length, 'change')}, ${countOf(plan.summary.calls, 'API call')}</summary>`;
  const lines: string[] = [];
  let used = top.length + summary.length + MARKDOWN_RESERVE;
  let shown = 0;
  let partial = false;
  for (const change of plan.changes) {
    const block = [...changeLines(change).map(diffLine), ''];
    const size = block.reduce((n, line) => n + line.length + 1, 0);
    if (used + size <= budget) {
      lines.push(...block);
      used += size;
      shown++;
      continue;
    }
    // Changes are shown whole; only a first change too large for the budget is shown in part.
    if (shown === 0) {
      for (const line of block) {
        if (used + line.length + 1 > budget) break;
        lines.push(line);
        used += line.length + 1;
      }
      partial = lines.length > 0;
    }
    break;
  }
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  const fence = fenceFor(lines);
  const notShown = plan.changes.length - shown;
  const body = [top, summary, '', `${fence}diff`, ...lines, fence, '', '</details>'];
  if (notShown > 0) {
    const rest = partial ? notShown - 1 : notShown;
    const what = partial
      ? `the first change is shown in part${rest > 0 ? ` and ${countOf(rest, 'more change')} ${rest === 1 ? 'is' : 'are'} not shown` : ''}`
      : `${countOf(rest, 'more change')} not shown`;
    body.push(
      '',
      `> … cut: ${what}, to stay under GitHub's ${formatCount(GITHUB_COMMENT_LIMIT)}-character limit; run \`guidectl plan\` locally or see the job log for the full plan.`,
    );
  }
  return `${body.join('\n')}\n`;
}

/**
 * A comment body for a plan that could not be made (errors in the files or the plan, or a failure
 * of the target): the marker, a bold headline, and the messages as a code block, cut like the
 * details of a plan.
 */
export function renderFailureMarkdown(
  headline: string,
  details: string,
  maxLength = DEFAULT_MARKDOWN_BUDGET,
): string {
  const top = `${MARKDOWN_MARKER}\n**${escapeMarkdown(headline)}**\n`;
  const lines = details.replace(/\n$/, '').split('\n');
  const kept: string[] = [];
  let used = top.length + MARKDOWN_RESERVE;
  for (const line of lines) {
    if (used + line.length + 1 > maxLength) break;
    kept.push(line);
    used += line.length + 1;
  }
  if (kept.length === 0) return `${top}`;
  const fence = fenceFor(kept);
  const cut = lines.length - kept.length;
  return [
    top,
    `${fence}text`,
    ...kept,
    fence,
    ...(cut > 0 ? ['', `> … cut: ${countOf(cut, 'more line')}; see the job log.`] : []),
    '',
  ].join('\n');
}

/** Most warnings a comment lists, so that its head stays small; the job log has them all. */
const MAX_WARNINGS_SHOWN = 10;

/** The warnings as a warning block, each `file:line:col: message (code)`, in the order of the files. */
function warningLines(warnings: readonly Diagnostic[], cwd: string | undefined): string[] {
  if (warnings.length === 0) return [];
  const lines = ['> [!WARNING]', `> **${countOf(warnings.length, 'warning')}:**`];
  for (const d of sortDiagnostics(warnings).slice(0, MAX_WARNINGS_SHOWN)) {
    const place = `${displayPath(d.file, cwd)}:${d.line}:${d.column}`;
    lines.push(`> - ${escapeMarkdown(escapeControls(`${place}: ${d.message}`))} (\`${d.code}\`)`);
  }
  const rest = warnings.length - MAX_WARNINGS_SHOWN;
  if (rest > 0) lines.push(`> - … and ${countOf(rest, 'more warning')}: see the job log.`);
  return [...lines, ''];
}

/** A guard in words, with the flags it names as code, ready to copy. */
function guardText(g: GuardResult): string {
  return escapeMarkdown(describeGuard(g).text).replace(
    /--(?:allow-delete|max-deletes) [a-z]+=[0-9]+|--max-delete-share [0-9.]+/g,
    (flag) => `\`${flag}\``,
  );
}

function summaryTable(plan: Plan): string[] {
  const rows = ['| kind | add | change | delete |', '|---|---:|---:|---:|'];
  for (const resource of CHANGE_ORDER) {
    const of = plan.changes.filter((c) => c.resource === resource);
    if (of.length === 0) continue;
    const n = (action: Change['action']): number => of.filter((c) => c.action === action).length;
    const kind = resource === 'account' ? 'account' : `${resource}s`;
    rows.push(
      `| ${kind} | ${formatCount(n('create'))} | ${formatCount(n('update'))} | ${formatCount(n('delete'))} |`,
    );
  }
  const adds = plan.calls.filter((c) => WRITE_EFFECTS[c.operation].creates === 'memberships').length;
  const removes = plan.calls.filter((c) => WRITE_EFFECTS[c.operation].deletes === 'memberships').length;
  if (adds + removes > 0) rows.push(`| memberships | ${formatCount(adds)} | 0 | ${formatCount(removes)} |`);
  return rows;
}

/**
 * A line of the human plan in a `diff` block: the mark moved to the first column (`!` for a
 * change, which GitHub colours apart from additions and removals), the text where it was, less
 * two columns.
 */
function diffLine(line: PlanLine): string {
  if (line.mark === undefined) return ` ${' '.repeat(Math.max(0, line.indent - 3))}${line.text}`;
  return `${line.mark === '~' ? '!' : line.mark}${' '.repeat(Math.max(0, line.indent - 1))}${line.text}`;
}

/** A code fence longer than any run of backticks in the lines, so that no text can close it. */
function fenceFor(lines: readonly string[]): string {
  let longest = 0;
  for (const line of lines)
    for (const run of line.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** Text shown as markdown, with what markdown or HTML would read as syntax escaped. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]<>#|~!]/g, (c) => `\\${c}`).replace(/&/g, '&amp;');
}
