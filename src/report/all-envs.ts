import type { Diagnostic } from '../core/diagnostics.js';
import type { EnvironmentPlan } from '../core/environment-plan.js';
import { stringifyJsonPretty } from '../wire/json.js';
import { formatCount } from './count.js';
import { failureToJson, renderDiagnostics } from './diagnostics.js';
import { escapeControls, escapeControlsKeepingLines } from './escape.js';
import {
  DEFAULT_MARKDOWN_BUDGET,
  escapeMarkdown,
  MARKDOWN_MARKER,
  renderFailureMarkdown,
  renderPlanMarkdown,
} from './markdown.js';
import { planToJson } from './plan.js';
import { formatPlan, type PlanFormat, type PlanVerdictFlags, planVerdict } from './plan-output.js';
import { alignColumns } from './table.js';

/** The version of `plan --all-envs --json`; raised only when a key is renamed or removed. */
const ALL_ENVS_FORMAT_VERSION = 1;

export interface AllEnvsOptions extends PlanVerdictFlags {
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
        stderr += `guidectl: environment ${name}: ${escapeControlsKeepingLines(outcome.message)}\n`;
      else stderr += `guidectl: environment ${name}: the plan cannot be made\n`;
      continue;
    }
    const verdict = planVerdict(format, outcome.plan, outcome.guards, flags);
    for (const message of verdict.messages) stderr += `guidectl: environment ${name}: ${message}\n`;
    if (verdict.exit === 1) exit = 1;
    else if (verdict.exit === 2 && exit === 0) exit = 2;
  }
  return { exit, stderr };
}

/** `plan --all-envs` in `format`: one section per environment in the order declared, then (human, markdown) a summary table. */
export function renderAllEnvs(
  environments: readonly EnvironmentPlan[],
  format: PlanFormat,
  options: AllEnvsOptions,
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
  options: AllEnvsOptions,
  color: boolean,
): string {
  return renderDiagnostics(diagnostics, {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.sources === undefined ? {} : { sources: options.sources }),
    color,
  });
}

function allEnvsText(environments: readonly EnvironmentPlan[], options: AllEnvsOptions): string {
  const color = options.color === true;
  const sections = environments.map(({ name, target, outcome }) => {
    const head = `Environment ${name}${target === undefined ? '' : `: ${escapeControls(target)}`}\n\n`;
    switch (outcome.kind) {
      case 'planned': {
        const { plan, planId, guards } = outcome;
        return head + formatPlan('human', plan, { planId, guards, drift: options.expectNoChanges, color });
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
    const refused = outcome.guards.some((g) => g.status === 'refused');
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

function allEnvsMarkdown(environments: readonly EnvironmentPlan[], options: AllEnvsOptions): string {
  const rows = summaryRows(environments).map(
    ([name, ...cells]) => `| ${escapeMarkdown(name ?? '')} | ${cells.map((c) => `\`${c}\``).join(' | ')} |`,
  );
  const head = [
    MARKDOWN_MARKER,
    `**guidectl plan: ${environments.length} environment${environments.length === 1 ? '' : 's'}**`,
    '',
    '| environment | add | change | delete | plan id |',
    '|---|---:|---:|---:|---|',
    ...rows,
    '',
  ].join('\n');
  const titles = environments.map(
    ({ name, target }) =>
      `### ${escapeMarkdown(name)}${target === undefined ? '' : ` — ${escapeMarkdown(target)}`}\n\n`,
  );
  // What the sections' bodies may take: the budget less the head, the titles and the line
  // breaks between sections (each body's marker line, taken out below, is counted in it).
  const room = DEFAULT_MARKDOWN_BUDGET - head.length - titles.reduce((n, title) => n + title.length + 1, 0);
  // Each body as it is with the whole room, and the room it needs to be shown whole (uncut).
  const whole = environments.map((environment) => sectionBody(environment, options, room));
  const wants = whole.map((body) => (body.includes(CUT_NOTICE) ? room : body.length + SECTION_SLACK));
  const limits = shareRoom(wants, room, MIN_SECTION);
  const sections = environments.map((environment, i) => {
    const limit = limits[i] ?? MIN_SECTION;
    const body = (wants[i] ?? room) <= limit ? (whole[i] ?? '') : sectionBody(environment, options, limit);
    return (titles[i] ?? '') + body.replace(`${MARKDOWN_MARKER}\n`, '');
  });
  return `${head}\n${sections.join('\n')}`;
}

/** The start of the line that says a section was cut (renderPlanMarkdown, renderFailureMarkdown). */
const CUT_NOTICE = '\n> … cut: ';
/**
 * Room a body needs beyond its length to be rendered whole: the renderers keep this much (600
 * for a plan, 400 for a failure) for the fences, closing tags and the cut notice.
 */
const SECTION_SLACK = 600;
/** The least room a section gets, however many environments: its summary and first changes. */
const MIN_SECTION = 2_000;

/** One environment's section body in at most `maxLength` characters (its marker line included). */
function sectionBody({ outcome }: EnvironmentPlan, options: AllEnvsOptions, maxLength: number): string {
  if (outcome.kind === 'planned') {
    const { plan, planId, guards } = outcome;
    return renderPlanMarkdown(plan, { planId, guards, drift: options.expectNoChanges, maxLength });
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
 * and what the small ones leave goes to the large ones, in equal shares (at least `floor` each,
 * even when that passes `room`: with many environments, each still shows its summary).
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
 * declared, each PLAN as `plan --json` prints it (with `target`), or as it prints a failure
 * (`{"format_version": 1, "error", "diagnostics"}`).
 */
function allEnvsToJson(environments: readonly EnvironmentPlan[], options: AllEnvsOptions): object {
  const cwd = options.cwd === undefined ? {} : { cwd: options.cwd };
  const entries = environments.map(({ name, target, outcome }) => {
    const where = target === undefined ? {} : { target };
    switch (outcome.kind) {
      case 'planned': {
        const { plan, planId, guards } = outcome;
        return [name, { ...planToJson(plan, { planId, guards }), ...where }];
      }
      case 'invalid':
        return [name, { ...failureToJson('the plan cannot be made', outcome.diagnostics, cwd), ...where }];
      case 'failed':
        return [name, { ...failureToJson(outcome.message, [], cwd), ...where }];
      default: {
        const unreachable: never = outcome;
        return unreachable;
      }
    }
  });
  return { format_version: ALL_ENVS_FORMAT_VERSION, environments: Object.fromEntries(entries) };
}

/** `apply --all-envs`'s last lines: each environment and how it ended, in the order applied. */
export function renderEnvironmentApplies(
  results: readonly { readonly name: string; readonly status: string; readonly message?: string }[],
): string {
  const rows = results.map((r) => [
    r.name,
    r.status,
    r.message === undefined ? '' : escapeControls(r.message),
  ]);
  return alignColumns(['ENVIRONMENT', 'APPLY', ''], rows);
}
