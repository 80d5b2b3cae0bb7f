import { countOf } from '../core/count.js';
import type { Diagnostic } from '../core/diagnostics.js';
import type { Plan } from '../core/plan-data.js';
import { type GuardResult, isRefused } from '../core/safety.js';
import { shellWord } from '../core/shell-word.js';
import { namesNoAccount, type TargetIdentity, type TargetNow } from '../core/target-identity.js';
import { stringifyJsonPretty } from '../wire/json.js';
import { DEFAULT_BASE_URL } from '../wire/operations.js';
import type { OutputChunk } from './apply-output.js';
import { renderDiagnostics } from './diagnostic-text.js';
import { environmentHeading } from './envs.js';
import { escapeControls, escapeControlsKeepingLines } from './escape.js';
import { renderFailureMarkdown, renderPlanMarkdown } from './markdown.js';
import {
  allowDeleteFlag,
  type EnvironmentSoFar,
  failureToJson,
  guardMessage,
  type PlanExtras,
  planToJson,
  renderPlan,
} from './plan.js';

/** What `plan` and `show` print on stdout: human text, JSON (format_version 1), or a markdown comment. */
export type PlanFormat = 'human' | 'json' | 'markdown';

/**
 * A plan as text in `format`: as `plan` prints it, and `show` a saved one. `drift` (from
 * `--expect-no-changes`) is said in the markdown body only; `color` in human text only.
 */
export function formatPlan(
  format: PlanFormat,
  plan: Plan,
  extras: PlanExtras & { readonly drift?: boolean; readonly color?: boolean },
): string {
  switch (format) {
    case 'json':
      return `${stringifyJsonPretty(planToJson(plan, extras))}\n`;
    case 'markdown':
      return renderPlanMarkdown(plan, extras);
    case 'human':
      return renderPlan(plan, { color: extras.color === true, ...extras });
    default: {
      const unreachable: never = format;
      return unreachable;
    }
  }
}

/**
 * Why `plan` made no plan, on stdout for the machine formats (a markdown comment must still say
 * why there is no plan, quoting the diagnostics as plain text; JSON carries them as `validate
 * --json` does); '' for human text, which stderr has told.
 */
export function planFailureOutput(
  format: PlanFormat,
  headline: string,
  failure: {
    readonly diagnostics: readonly Diagnostic[];
    /** The files' texts, to quote the lines of the diagnostics. */
    readonly sources?: ReadonlyMap<string, string>;
    readonly cwd?: string;
    /** The environment planned (`--env NAME`), as far as it is known: its target once resolved. */
    readonly environment?: EnvironmentSoFar | undefined;
  },
): string {
  const cwd = failure.cwd === undefined ? {} : { cwd: failure.cwd };
  if (format === 'markdown') {
    const sources = failure.sources === undefined ? {} : { sources: failure.sources };
    const details = renderDiagnostics(failure.diagnostics, { ...cwd, ...sources });
    return renderFailureMarkdown(`guidectl plan failed: ${headline}`, details);
  }
  if (format === 'json') {
    const { environment } = failure;
    return `${stringifyJsonPretty(failureToJson(headline, failure.diagnostics, { ...cwd, environment }))}\n`;
  }
  return '';
}

/**
 * `plan` failed with an error (a read, the target) before printing its plan: the machine formats'
 * body, with the environment planned as far as it is known.
 */
export function planErrorOutput(format: PlanFormat, message: string, environment?: EnvironmentSoFar): string {
  if (format === 'markdown')
    return renderFailureMarkdown('guidectl plan failed', `guidectl: ${escapeControlsKeepingLines(message)}`);
  if (format === 'json') return `${stringifyJsonPretty(failureToJson(message, [], { environment }))}\n`;
  return '';
}

/**
 * Where `plan --out` saved the plan and how to apply it: on stdout after human text, else on
 * stderr. `made` is the plan's id and target: made with an access token, which names no account,
 * the plan is applied only with its id (`--plan-id`), so the command carries it. `made.flags` are
 * the target flags given to plan, as shell words: a saved plan is refused on another target. A
 * saved plan of an environment goes to that environment's target, so it needs none.
 */
export function savedPlanNotice(
  format: PlanFormat,
  out: string,
  guards: readonly GuardResult[] = [],
  made?: { readonly planId: string; readonly target: TargetIdentity; readonly flags?: readonly string[] },
): OutputChunk {
  // A plan a guard refuses is saved too (for review); its command carries the allowance it needs.
  const allow = guards
    .filter((g) => g.status === 'refused')
    .map((g) => ` ${allowDeleteFlag(g)}`)
    .join('');
  const target = (made?.flags ?? []).map((word) => ` ${escapeControls(word)}`).join('');
  const saved = `Saved the plan to ${escapeControls(out)}; apply exactly these calls with: guidectl apply ${escapeControls(shellWord(out))}${target}${planIdFlag(made)}${allow}\n`;
  return format === 'human'
    ? { to: 'stdout', text: `\n${saved}` }
    : { to: 'stderr', text: `guidectl: ${saved}` };
}

/**
 * `show PLAN.json`: a saved plan as `plan` printed it; in human text under its environment's
 * heading, with a last line naming the files it was made from and the command that applies it.
 */
export function formatSavedPlan(
  format: PlanFormat,
  saved: {
    readonly planId: string;
    readonly plan: Plan;
    readonly paths: readonly string[];
    readonly target: TargetNow;
    readonly environment?: { readonly name: string };
  },
  file: string,
  color: boolean,
): string {
  const made = saved.environment && { name: saved.environment.name, target: saved.target.description };
  const environment = made === undefined ? {} : { environment: made };
  const { target } = saved;
  const text = formatPlan(format, saved.plan, { planId: saved.planId, color, target, ...environment });
  if (format !== 'human') return text;
  const heading = made === undefined ? '' : environmentHeading(made.name, made.target);
  const from = escapeControls(saved.paths.join(', ') || '(no paths)');
  const pin = planIdFlag({ planId: saved.planId, target: target.identity });
  const flags = made === undefined ? escapeControls(flagsReaching(target.identity)) : '';
  return `${heading}${text}\nSaved plan ${saved.planId}, made from ${from}; apply exactly these calls with: guidectl apply ${escapeControls(shellWord(file))}${flags}${pin}\n`;
}

/**
 * The flags that reach the target a saved plan of no environment was made against, since it is
 * refused on any other: its database in full, or a base URL other than WeChat's.
 */
function flagsReaching(target: TargetIdentity): string {
  switch (target.kind) {
    case 'embedded':
      return ` --local-db ${shellWord(target.database)}`;
    case 'remote':
      return target.baseUrl === DEFAULT_BASE_URL ? '' : ` --base-url ${shellWord(target.baseUrl)}`;
  }
}

/** ` --plan-id ID` for a plan made with an access token (see {@link savedPlanNotice}), else nothing. */
function planIdFlag(made: { readonly planId: string; readonly target: TargetIdentity } | undefined): string {
  return made !== undefined && namesNoAccount(made.target) ? ` --plan-id ${made.planId}` : '';
}

/** What `plan`'s exit status answers: refused by a guard, drift, or changes pending. */
export interface PlanVerdictFlags {
  readonly expectNoChanges: boolean;
  readonly detailedExitcode: boolean;
}

/** `messages` as lines of stderr: `guidectl: PREFIXmessage` each. */
export function stderrLines(messages: readonly string[], prefix = ''): string {
  return messages.map((m) => `guidectl: ${prefix}${m}\n`).join('');
}

/**
 * The exit status of a plan, and what stderr says of it (`messages`, each a line without its
 * `guidectl: ` prefix, written by {@link stderrLines}): 1 when a guard refuses it (the
 * human plan shows the refusals; other formats say them on stderr too) or, under
 * `--expect-no-changes`, when it has calls (drift); 2 for calls under `--detailed-exitcode`; else 0.
 */
export function planVerdict(
  format: PlanFormat,
  plan: Plan,
  guards: readonly GuardResult[],
  flags: PlanVerdictFlags,
): { readonly exit: 0 | 1 | 2; readonly messages: readonly string[] } {
  const verdict = (exit: 0 | 1 | 2, messages: string[]) => ({ exit, messages });
  const calls = plan.calls.length;
  if (isRefused(guards)) {
    const told = format === 'human' ? [] : guards.filter((g) => g.status === 'refused').map(guardMessage);
    return verdict(1, [...told, 'the plan is refused by a deletion guard; apply would not make it']);
  }
  if (flags.expectNoChanges && calls > 0) {
    const changes = plan.changes.length;
    return verdict(1, [
      `drift: the account differs from the files (${countOf(changes, 'change')}, ${countOf(calls, 'API call')} to bring it back); expected no changes`,
    ]);
  }
  return verdict(flags.detailedExitcode && calls > 0 ? 2 : 0, []);
}
