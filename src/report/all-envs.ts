import { countOf, formatCount } from '../core/count.js';
import type { PlanQuota } from '../core/daily-quota.js';
import type { Diagnostic } from '../core/diagnostics.js';
import type { EnvironmentPlan } from '../core/environment-plan.js';
import { ifDefined } from '../core/records.js';
import { isRefused } from '../core/safety.js';
import { stringifyJsonPretty } from '../wire/json.js';
import { environmentStderrLine } from './all-envs-apply.js';
import { renderDiagnostics } from './diagnostic-text.js';
import { environmentHeading } from './envs.js';
import { escapeControlsKeepingLines } from './escape.js';
import {
  DEFAULT_MARKDOWN_BUDGET,
  environmentTitle,
  escapeMarkdown,
  GITHUB_COMMENT_LIMIT,
  MARKDOWN_MARKER,
  MARKDOWN_RESERVE,
  renderFailureMarkdown,
  renderPlanMarkdown,
} from './markdown.js';
import { failureToJson, planToJson, summaryLine } from './plan.js';
import {
  formatPlan,
  type PlanFormat,
  type PlanVerdictFlags,
  planVerdict,
  stderrLines,
} from './plan-output.js';
import { alignColumns } from './table.js';

/** The version of `plan --all-envs --json`; raised only when a key is renamed or removed. */
const ALL_ENVS_FORMAT_VERSION = 1;

export interface AllEnvsRenderOptions extends PlanVerdictFlags {
  readonly color?: boolean;
  readonly cwd?: string;
  readonly sources?: ReadonlyMap<string, string>;
}

/** What `plan --all-envs` prints, and its exit status. */
export interface AllEnvsOutput {
  readonly stdout: string;
  readonly stderr: string;
  readonly exit: 0 | 1 | 2;
}

/**
 * The exit status of `plan --all-envs`: 1 when any environment failed, was invalid or was
 * refused (or drifted under `--expect-no-changes`); else 2 when any has changes under
 * `--detailed-exitcode`; else 0. The stderr lines name the environment they are about.
 */
function verdictOf(environments: readonly EnvironmentPlan[], format: PlanFormat, flags: PlanVerdictFlags) {
  let exit: 0 | 1 | 2 = 0;
  let stderr = '';
  for (const { name, outcome } of environments) {
    if (outcome.kind !== 'planned') {
      exit = 1;
      if (outcome.kind === 'failed')
        stderr += environmentStderrLine(name, escapeControlsKeepingLines(outcome.message));
      else stderr += `guidectl: environment ${name}: the plan cannot be made\n`;
      continue;
    }
    const verdict = planVerdict(format, outcome.plan, outcome.guards, flags);
    stderr += stderrLines(verdict.messages, `environment ${name}: `);
    if (verdict.exit === 1) exit = 1;
    else if (verdict.exit === 2 && exit === 0) exit = 2;
  }
  return { exit, stderr };
}

/** `plan --all-envs` in `format`: one section per environment in the order declared, then (human, markdown) a summary table. */
export function renderAllEnvs(
  environments: readonly EnvironmentPlan[],
  format: PlanFormat,
  options: AllEnvsRenderOptions,
): AllEnvsOutput {
  const { exit, stderr } = verdictOf(environments, format, options);
  switch (format) {
    case 'json':
      return { stdout: `${stringifyJsonPretty(allEnvsToJson(environments, options))}\n`, stderr, exit };
    case 'markdown':
      return { stdout: allEnvsMarkdown(environments, options), stderr, exit };
    case 'human':
      return { stdout: allEnvsText(environments, options), stderr, exit };
    default: {
      const unreachable: never = format;
      return unreachable;
    }
  }
}

function diagnosticsText(
  diagnostics: readonly Diagnostic[],
  options: AllEnvsRenderOptions,
  color: boolean,
): string {
  return renderDiagnostics(diagnostics, {
    ...ifDefined('cwd', options.cwd),
    ...ifDefined('sources', options.sources),
    color,
  });
}

function allEnvsText(environments: readonly EnvironmentPlan[], options: AllEnvsRenderOptions): string {
  const color = options.color === true;
  const sections = environments.map(({ name, target, outcome }) => {
    const head = environmentHeading(name, target);
    switch (outcome.kind) {
      case 'planned': {
        const { plan, planId, guards, quota } = outcome;
        const extras = { planId, guards, drift: options.expectNoChanges, color, ...quotaOf(quota) };
        return head + formatPlan('human', plan, extras);
      }
      case 'invalid':
        return `${head}${diagnosticsText(outcome.diagnostics, options, color)}The plan cannot be made.\n`;
      case 'failed':
        return `${head}Failed: ${escapeControlsKeepingLines(outcome.message)}\n`;
      default: {
        const unreachable: never = outcome;
        return unreachable;
      }
    }
  });
  return `${sections.join('\n')}\n${summaryTable(environments)}`;
}

/** One row per environment: name, add, change, delete and plan id (or why there is none). */
function summaryRows(environments: readonly EnvironmentPlan[]): string[][] {
  return environments.map(({ name, outcome }) => {
    if (outcome.kind !== 'planned') return [name, '-', '-', '-', outcome.kind];
    const { add, change, delete: del } = outcome.plan.summary;
    const refused = isRefused(outcome.guards);
    return [
      name,
      formatCount(add),
      formatCount(change),
      formatCount(del),
      `${outcome.planId}${refused ? ' (refused)' : ''}`,
    ];
  });
}

function summaryTable(environments: readonly EnvironmentPlan[]): string {
  return alignColumns(
    ['ENVIRONMENT', 'ADD', 'CHANGE', 'DELETE', 'PLAN ID'],
    summaryRows(environments),
    new Set([1, 2, 3]),
  );
}

/**
 * `plan --all-envs --markdown`: one comment of at most {@link DEFAULT_MARKDOWN_BUDGET} characters
 * however many environments: the marker, a headline and the summary table (a row per environment),
 * then the first of these that fits:
 * 1. a section per environment with its plan, the room shared among them ({@link shareRoom});
 * 2. the same for the environments with changes or failures, one line each for those with none;
 * 3. one line per environment (its summary), pointing to the job log and `plan --env NAME`;
 * 4. the table alone, with that pointer;
 * 5. the table cut between two rows (only when it alone passes the budget: hundreds of long names).
 */
function allEnvsMarkdown(environments: readonly EnvironmentPlan[], options: AllEnvsRenderOptions): string {
  const budget = DEFAULT_MARKDOWN_BUDGET;
  const rows = summaryRows(environments).map(
    ([name, ...cells]) => `| ${escapeMarkdown(name ?? '')} | ${cells.map((c) => `\`${c}\``).join(' | ')} |`,
  );
  const head = commentHead(environments.length, rows);
  const room = budget - head.length;
  const all = environments.map((_, i) => i);
  const changed = all.filter((i) => !hasNoChanges(environments[i]));
  const sections: Sections = {
    environments,
    options,
    room,
    // Each body as it is with all the room: its length tells the room it needs to be shown whole.
    whole: environments.map((environment) => sectionBody(environment, options, room)),
  };
  const layouts = [
    () => detailedSections(sections, all),
    () => (changed.length === all.length ? undefined : detailedSections(sections, changed)),
    () => environmentLines(environments),
    () => `\n${POINTER}\n`,
  ];
  for (const layout of layouts) {
    const rest = layout();
    if (rest !== undefined && rest.length <= room) return head + rest;
  }
  return cutTable(environments.length, rows, budget);
}

/** The marker, the headline and the summary table of `rows`, ending with a blank line. */
function commentHead(count: number, rows: readonly string[]): string {
  return [
    MARKDOWN_MARKER,
    `**guidectl plan: ${count} environment${count === 1 ? '' : 's'}**`,
    '',
    '| environment | add | change | delete | plan id |',
    '|---|---:|---:|---:|---|',
    ...rows,
    '',
  ].join('\n');
}

/** A planned environment whose plan changes nothing (a failure or an invalid plan is news). */
function hasNoChanges(environment: EnvironmentPlan | undefined): boolean {
  return environment?.outcome.kind === 'planned' && environment.outcome.plan.changes.length === 0;
}

/** What the layouts with sections are made from. */
interface Sections {
  readonly environments: readonly EnvironmentPlan[];
  readonly options: AllEnvsRenderOptions;
  /** What may follow the summary table. */
  readonly room: number;
  /** Each environment's body rendered with all of `room`. */
  readonly whole: readonly string[];
}

/**
 * A `### NAME — TARGET` section with its plan for each environment of `shown` (indexes), the
 * others one line each under `### No changes`; undefined when the sections cannot each have
 * their share (at least MIN_SECTION, or what a smaller one needs) within the room.
 */
function detailedSections(from: Sections, shown: readonly number[]): string | undefined {
  const { environments, options, room, whole } = from;
  const quiet = environments.filter((_, i) => !shown.includes(i));
  const quietPart =
    quiet.length === 0 ? '' : `\n### No changes\n\n${quiet.map((e) => environmentLine(e, false)).join('')}`;
  const titles = shown.map((i) => sectionTitle(environments[i]));
  // What the bodies may take: the room less the titles, the line breaks before each section
  // (each body's marker line, taken out below, is counted in it) and the quiet lines.
  const bodies = room - quietPart.length - titles.reduce((n, title) => n + title.length + 1, 0);
  const wants = shown.map((i) => {
    const body = whole[i] ?? '';
    return body.includes(CUT_NOTICE) ? room : body.length + MARKDOWN_RESERVE;
  });
  const limits = shareRoom(wants, bodies, MIN_SECTION);
  if (limits.reduce((n, limit) => n + limit, 0) > bodies) return undefined;
  const parts = shown.map((i, k) => {
    const limit = limits[k] ?? MIN_SECTION;
    const environment = environments[i];
    const body =
      (wants[k] ?? room) <= limit || environment === undefined
        ? (whole[i] ?? '')
        : sectionBody(environment, options, limit);
    return `\n${titles[k] ?? ''}${body.replace(`${MARKDOWN_MARKER}\n`, '')}`;
  });
  return parts.join('') + quietPart;
}

function sectionTitle(environment: EnvironmentPlan | undefined): string {
  return environment === undefined ? '' : `${environmentTitle(environment)}\n\n`;
}

/** Where a plan not shown in the comment is. */
const POINTER = `> Plans not shown, to stay under GitHub's ${formatCount(GITHUB_COMMENT_LIMIT)}-character limit: each is in the job log, or run \`guidectl plan --env NAME\`.`;

/** Layout 3: the pointer, then `- **NAME** — TARGET: SUMMARY` per environment. */
function environmentLines(environments: readonly EnvironmentPlan[]): string {
  return `\n${POINTER}\n\n${environments.map((e) => environmentLine(e, true)).join('')}`;
}

/** One environment in one line: its name, its target and (with `summary`) how its plan came out. */
function environmentLine({ name, target, outcome }: EnvironmentPlan, summary: boolean): string {
  const where = target === undefined ? '' : ` — ${escapeMarkdown(target)}`;
  if (!summary) return `- **${escapeMarkdown(name)}**${where}\n`;
  let what: string;
  if (outcome.kind === 'planned') {
    const refused = isRefused(outcome.guards);
    what = `${summaryLine(outcome.plan, 0, outcome.guards)}${refused ? ' Refused by a deletion guard.' : ''}`;
  } else what = outcome.kind === 'failed' ? 'failed' : 'the plan cannot be made';
  return `- **${escapeMarkdown(name)}**${where}: ${what}\n`;
}

/** Layout 5: as many rows of the table as fit, and how many are not shown. */
function cutTable(count: number, rows: readonly string[], budget: number): string {
  const notice = (left: number): string =>
    `\n> … cut: ${countOf(left, 'more environment')} not in the table, to stay under GitHub's ${formatCount(GITHUB_COMMENT_LIMIT)}-character limit; see the job log.\n`;
  let used = commentHead(count, []).length + notice(count).length;
  let kept = 0;
  for (const row of rows) {
    if (used + row.length + 1 > budget) break;
    used += row.length + 1;
    kept++;
  }
  return commentHead(count, rows.slice(0, kept)) + notice(count - kept);
}

/** The start of the line that says a section was cut (renderPlanMarkdown, renderFailureMarkdown). */
const CUT_NOTICE = '\n> … cut: ';
/** The least room a section with its plan gets (its summary and first changes); else layout 2 or 3. */
const MIN_SECTION = 2_000;

/** One environment's section body in at most `maxLength` characters (its marker line included). */
function sectionBody({ outcome }: EnvironmentPlan, options: AllEnvsRenderOptions, maxLength: number): string {
  if (outcome.kind === 'planned') {
    const { plan, planId, guards, quota } = outcome;
    const extras = { planId, guards, drift: options.expectNoChanges, maxLength, ...quotaOf(quota) };
    return renderPlanMarkdown(plan, extras);
  }
  const details =
    outcome.kind === 'failed'
      ? `guidectl: ${escapeControlsKeepingLines(outcome.message)}`
      : diagnosticsText(outcome.diagnostics, options, false);
  const headline = outcome.kind === 'failed' ? 'failed' : 'the plan cannot be made';
  return renderFailureMarkdown(headline, details, maxLength);
}

/**
 * Shares `room` among sections that want `wants` (water-filling): none gets more than it wants,
 * and what the small ones leave goes to the large ones, in equal shares of at least `floor`
 * (even when that passes `room`: the caller then lays the comment out another way).
 */
function shareRoom(wants: readonly number[], room: number, floor: number): number[] {
  const order = wants.map((_, i) => i).sort((a, b) => (wants[a] ?? 0) - (wants[b] ?? 0));
  const out = wants.map(() => 0);
  let left = room;
  let n = wants.length;
  for (const i of order) {
    const fair = Math.max(floor, Math.floor(left / n));
    const given = Math.min(wants[i] ?? 0, fair);
    out[i] = given;
    left -= given;
    n--;
  }
  return out;
}

/**
 * `plan --all-envs --json`: `{"format_version": 1, "environments": {NAME: PLAN}}` in the order
 * declared, each PLAN as `plan --env NAME --json` prints it (with `environment`: name and target),
 * or as it prints a failure (`{"format_version": 1, "environment", "error", "diagnostics"}`, the
 * target once resolved); each with `target` too, as format 1 had it before `environment`.
 */
function allEnvsToJson(environments: readonly EnvironmentPlan[], options: AllEnvsRenderOptions): object {
  const entries = environments.map(({ name, target, outcome }) => {
    const where = target === undefined ? {} : { target };
    const failed = {
      ...ifDefined('cwd', options.cwd),
      environment: { name, target },
    };
    switch (outcome.kind) {
      case 'planned': {
        const { plan, planId, guards, quota } = outcome;
        const named = target === undefined ? {} : { environment: { name, target } };
        return [name, { ...planToJson(plan, { planId, guards, ...named, ...quotaOf(quota) }), ...where }];
      }
      case 'invalid':
        return [name, { ...failureToJson('the plan cannot be made', outcome.diagnostics, failed), ...where }];
      case 'failed':
        return [name, { ...failureToJson(outcome.message, [], failed), ...where }];
      default: {
        const unreachable: never = outcome;
        return unreachable;
      }
    }
  });
  return { format_version: ALL_ENVS_FORMAT_VERSION, environments: Object.fromEntries(entries) };
}

/** The `quota` extra of a plan's renderers, when its quotas were read. */
function quotaOf(quota: PlanQuota | undefined): { quota?: PlanQuota } {
  return quota === undefined ? {} : { quota };
}
