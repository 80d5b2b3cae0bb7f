import { diffArrays, diffLines } from 'diff';
import { countOf, formatCount } from '../core/count.js';
import { type PartialFit, type PlanQuota, planQuotaToJson } from '../core/daily-quota.js';
import type { DeleteKind } from '../core/desired.js';
import type { Diagnostic } from '../core/diagnostics.js';
import type { CallSubject, Change, ChangeAction, FieldChange, JsonValue, Plan } from '../core/plan-data.js';
import { planContentToJson } from '../core/plan-json.js';
import { ifDefined } from '../core/records.js';
import { type GuardResult, type GuardStatus, MIN_DELETE_LIMIT, type Setting } from '../core/safety.js';
import { type TargetNow, targetIdentityToJson } from '../core/target-identity.js';
import { diagnosticsToJson } from './diagnostic-text.js';
import { escapeControls, showJson } from './escape.js';
import { type Paint, paint } from './paint.js';
import { planQuotaLines } from './quota.js';

/**
 * An environment (`--env NAME`) and its target in words, never a secret: what the machine formats
 * carry as `"environment": {"name", "target"}`. `target` is absent only in a failure that came
 * before the target was resolved (see {@link environmentToJson}).
 */
export interface EnvironmentInWords {
  readonly name: string;
  readonly target: string;
}

/** An environment as far as it is known: its target once resolved. */
export interface EnvironmentSoFar {
  readonly name: string;
  readonly target?: string | undefined;
}

/** `"environment"` of the JSON outputs: the name, and the target when it is known. */
export function environmentToJson(environment: EnvironmentSoFar): Record<string, string> {
  const { name, target } = environment;
  return target === undefined ? { name } : { name, target };
}

/**
 * Why `plan --json` or `apply --json` made no plan, for machines: one object,
 * `{"format_version": 1, "error": "the files have errors", "diagnostics": [...]}` (each diagnostic as
 * in `renderDiagnosticsJson`), with `extra` keys after them (apply adds `outcomes: []` and
 * `converged: false`). `environment` (name, and target once resolved: {@link environmentToJson})
 * comes after `format_version`, where a plan has it.
 */
export function failureToJson(
  error: string,
  diagnostics: readonly Diagnostic[],
  options: {
    readonly cwd?: string;
    readonly extra?: Readonly<Record<string, unknown>>;
    readonly environment?: EnvironmentSoFar | undefined;
  } = {},
): Record<string, unknown> {
  return {
    format_version: 1,
    ...(options.environment === undefined ? {} : { environment: environmentToJson(options.environment) }),
    error,
    diagnostics: diagnosticsToJson(diagnostics, options),
    ...options.extra,
  };
}

/** What the renderers show besides the plan itself; each part is shown when given. */
export interface PlanExtras {
  /** The plan id (`planId` of `plan/`), printed after the summary line. */
  readonly planId?: string;
  /** The deletion guards; those of kinds the plan deletes are shown. */
  readonly guards?: readonly GuardResult[];
  /**
   * The environment planned (`--env NAME`) and its target in words (never a secret), for the
   * machine formats and the markdown comment; human text has its own heading.
   */
  readonly environment?: EnvironmentInWords;
  /**
   * The target read, in words and which account it is (never a secret), for the machine formats
   * and the markdown comment, with or without an environment: a reviewer sees which account was
   * planned, and when it was an empty local database.
   */
  readonly target?: TargetNow;
  /**
   * The warnings of the files and of the plan (human text has them on stderr): the machine formats
   * carry them, and with any the summary line does not say that the account matches the files.
   */
  readonly warnings?: readonly Diagnostic[];
  /** The folder the warnings' files are named relative to. */
  readonly cwd?: string;
  /** What the calls need of today's quotas, when they were read. */
  readonly quota?: PlanQuota;
  /** What an apply with `--allow-partial` makes today of a plan that cannot finish. */
  readonly partial?: PartialFit;
}

/**
 * The plan for people, in the manner of Terraform: `+` create, `~` update, `-` delete, each
 * field that changes, lists and long texts as line diffs, what is left alone, the deletion guards
 * that apply, the summary line, and the plan id. Human text may change between versions;
 * machines read {@link planToJson}.
 */
export function renderPlan(plan: Plan, options: { readonly color?: boolean } & PlanExtras = {}): string {
  const p = paint(options.color === true);
  const out: string[] = [];
  if (plan.changes.length > 0) {
    out.push('guidectl will make these changes:', '');
    for (const change of plan.changes) out.push(...changeLines(change).map((l) => paintLine(l, p)), '');
  }
  if (plan.unmanaged.length > 0) out.push(renderUnmanaged(plan), '');
  const guards = shownGuards(options.guards);
  if (guards.length > 0) {
    out.push('Deletion guards:');
    for (const g of guards) {
      const { status, text } = describeGuard(g);
      const word =
        status === 'refused' ? p.red(status) : status === 'allowed' ? p.yellow(status) : p.green(status);
      out.push(`  ${word}: ${text}`);
    }
    out.push('');
  }
  const quota = planQuotaLines(options.quota, options.partial);
  if (quota.length > 0) out.push(...quota, '');
  out.push(p.bold(summaryLine(plan, options.warnings?.length, options.guards)));
  if (options.planId !== undefined) out.push(`Plan id: ${options.planId}`);
  return `${out.join('\n')}\n`;
}

/**
 * `Plan: 3 to add, 2 to change, 1 to delete (14 API calls).` or `No changes.`, which says that the
 * account matches the files only when there is no warning: one may tell of a difference no call
 * can mend (a task already executed). With the guards, the entries of content lists the plan
 * removes are counted too (`…, 0 to delete, 401 list entries to remove (3 API calls).`): emptying
 * a list is a deletion, though each list is one resource that changes.
 */
export function summaryLine(plan: Plan, warnings = 0, guards: readonly GuardResult[] = []): string {
  const { add, change, delete: del, calls } = plan.summary;
  if (calls === 0 && warnings > 0)
    return `No changes to make, but ${countOf(warnings, 'warning')}: read ${warnings === 1 ? 'it' : 'them'} before taking the account as matching the files.`;
  if (calls === 0) return 'No changes. The account matches the files.';
  const entries = guards.filter((g) => isListKind(g.kind)).reduce((n, g) => n + g.deletes, 0);
  const removed = entries === 0 ? '' : `, ${countOf(entries, 'list entry', 'list entries')} to remove`;
  return `Plan: ${formatCount(add)} to add, ${formatCount(change)} to change, ${formatCount(del)} to delete${removed} (${countOf(calls, 'API call')}).`;
}

/**
 * One line of a change as shown: its indentation, its mark (`+` added, `-` removed, `~` changed,
 * none for context), and its text. The human text and the markdown diff are both made of these.
 */
export interface PlanLine {
  readonly indent: number;
  readonly mark?: '+' | '-' | '~';
  readonly text: string;
  /** `name`: the resource a change is about (bold); `context`: an unchanged list entry (dim). */
  readonly style?: 'name' | 'context';
}

const SIGN: Record<ChangeAction, '+' | '~' | '-'> = { create: '+', update: '~', delete: '-' };

/** The lines of one change: the resource, then each field that changes. */
export function changeLines(change: Change): PlanLine[] {
  const name =
    change.resource === 'account'
      ? 'account'
      : change.resource === 'task'
        ? `task ${escapeControls(change.address)}`
        : `${change.resource} ${quoteName(change.address)}`;
  const lines: PlanLine[] = [{ indent: 2, mark: SIGN[change.action], text: name, style: 'name' }];
  for (const field of change.fields) lines.push(...fieldLines(field, change.action));
  return lines;
}

function paintLine(line: PlanLine, p: Paint): string {
  const mark =
    line.mark === undefined
      ? ''
      : `${line.mark === '+' ? p.green('+') : line.mark === '-' ? p.red('-') : p.yellow('~')} `;
  const text =
    line.style === 'name' ? p.bold(line.text) : line.style === 'context' ? p.dim(line.text) : line.text;
  return `${' '.repeat(line.indent)}${mark}${text}`;
}

/** A guide or group as named in text: bare when plain, else quoted; never a raw control character. */
function quoteName(address: string): string {
  if (/^[A-Za-z0-9_.-]+$/.test(address)) return address;
  if (address.startsWith('openid ')) return escapeControls(address);
  return showJson(address);
}

function fieldLines(field: FieldChange, action: ChangeAction): PlanLine[] {
  const indent = 6;
  const { before, after } = field;
  if (Array.isArray(before) || Array.isArray(after)) {
    const b = asLines(before);
    const a = asLines(after);
    const lines: PlanLine[] = [{ indent, mark: SIGN[action], text: `${field.field}:` }];
    // A list made from nothing (or to nothing) is all additions (removals): what the diff would
    // say, without its cost for every new guide of a large first apply.
    const parts =
      b.length === 0
        ? [{ added: true, removed: false, value: a }]
        : a.length === 0
          ? [{ added: false, removed: true, value: b }]
          : diffArrays(b, a);
    for (const part of parts) {
      for (const value of part.value) {
        if (part.added) lines.push({ indent: indent + 4, mark: '+', text: value });
        else if (part.removed) lines.push({ indent: indent + 4, mark: '-', text: value });
        else lines.push({ indent: indent + 6, text: value, style: 'context' });
      }
    }
    if (b.length === 0 && a.length === 0) lines.push({ indent: indent + 4, text: '(none)' });
    return lines;
  }
  if (before === undefined) return [{ indent, mark: '+', text: `${field.field}: ${show(after)}` }];
  if (after === undefined) return [{ indent, mark: '-', text: `${field.field}: ${show(before)}` }];
  const b = show(before);
  const a = show(after);
  if (
    typeof before === 'string' &&
    typeof after === 'string' &&
    (b.length + a.length > 100 || /\n/.test(before + after))
  ) {
    const lines: PlanLine[] = [{ indent, mark: '~', text: `${field.field}:` }];
    for (const part of diffLines(`${before}\n`, `${after}\n`)) {
      for (const line of part.value.replace(/\n$/, '').split('\n')) {
        // Quoted, as short values are: a trailing space must show.
        const text = showJson(line);
        if (part.added) lines.push({ indent: indent + 4, mark: '+', text });
        else if (part.removed) lines.push({ indent: indent + 4, mark: '-', text });
        else lines.push({ indent: indent + 6, text, style: 'context' });
      }
    }
    return lines;
  }
  return [{ indent, mark: '~', text: `${field.field}: ${b} → ${a}` }];
}

function asLines(value: JsonValue | undefined): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return [show(value)];
  // Quoted, as a nickname is: "Hello " and "Hello" must not look alike.
  return value.map((v) => showJson(v));
}

function show(value: JsonValue | undefined): string {
  if (value === undefined) return '(none)';
  if (value === null) return 'null (none)';
  return showJson(value);
}

/** `Not in the files, left alone: 2 guides (a, b) and 1 group (c). Set prune…` */
export function renderUnmanaged(plan: Plan): string {
  const guides = plan.unmanaged.filter((u) => u.resource === 'guide').map((u) => escapeControls(u.address));
  const groups = plan.unmanaged.filter((u) => u.resource === 'group').map((u) => quoteName(u.address));
  const tasks = plan.unmanaged.filter((u) => u.resource === 'task').map((u) => escapeControls(u.address));
  const list = (names: string[]): string =>
    names.length <= 10
      ? names.join(', ')
      : `${names.slice(0, 10).join(', ')} and ${formatCount(names.length - 10)} more`;
  const parts = [
    ...(guides.length > 0 ? [`${countOf(guides.length, 'guide')} (${list(guides)})`] : []),
    ...(groups.length > 0 ? [`${countOf(groups.length, 'group')} (${list(groups)})`] : []),
  ];
  // A kind is left alone only while its prune entry is off: name the entries that are.
  const entries = [
    ...(guides.length > 0 ? ['prune.guides'] : []),
    ...(groups.length > 0 ? ['prune.groups'] : []),
  ];
  const them = guides.length + groups.length === 1 ? 'it' : 'them';
  const lines = [
    ...(parts.length > 0
      ? [
          `Not in the files, left alone: ${parts.join(' and ')}. Set ${entries.join(' or ')} to delete ${them}.`,
        ]
      : []),
    ...(tasks.length > 0
      ? [
          `Pending tasks not in the files, left alone: ${countOf(tasks.length, 'task')} (${list(tasks)}). Set prune.tasks to cancel them.`,
        ]
      : []),
  ];
  return lines.join('\n');
}

/** The guards worth showing: those of the kinds the plan deletes, and any that refuse. */
export function shownGuards(guards: readonly GuardResult[] | undefined): GuardResult[] {
  return (guards ?? []).filter((g) => g.deletes > 0 || g.status === 'refused');
}

/** Each kind in words: singular and plural. */
const NOUNS: Record<DeleteKind, readonly [string, string]> = {
  guides: ['guide', 'guides'],
  groups: ['group', 'groups'],
  memberships: ['membership', 'memberships'],
  tasks: ['pending task', 'pending tasks'],
  words: ['sensitive word', 'sensitive words'],
  quick_replies: ['quick reply', 'quick replies'],
  welcome_messages: ['welcome message', 'welcome messages'],
  offline_replies: ['offline reply', 'offline replies'],
};

function counted(n: number, kind: DeleteKind): string {
  const [singular, plural] = NOUNS[kind];
  return countOf(n, singular, plural);
}

function percent(share: number): string {
  return `${Number((share * 100).toFixed(4))}%`;
}

/** Why the threshold is what it is: `the smaller of 10 and 25% of live guides`. */
function thresholdReason(g: GuardResult): string {
  const max = originNote(
    g.maxDeletes,
    `safety.max_deletes.${g.kind}`,
    `--max-deletes ${g.kind}=${g.maxDeletes.value}`,
  );
  const share = originNote(
    g.maxDeleteShare,
    'safety.max_delete_share',
    `--max-delete-share ${g.maxDeleteShare.value}`,
  );
  const floored = Math.floor(g.maxDeleteShare.value * g.live + 1e-9) < MIN_DELETE_LIMIT;
  return (
    `the smaller of ${formatCount(g.maxDeletes.value)}${max} and ${percent(g.maxDeleteShare.value)}${share} of live ${NOUNS[g.kind][1]}` +
    (floored ? `, but at least ${MIN_DELETE_LIMIT}` : '')
  );
}

function originNote(setting: Setting, fileKey: string, flag: string): string {
  switch (setting.origin) {
    case 'default':
      return '';
    case 'file':
      return ` (${fileKey})`;
    case 'flag':
      return ` (${flag})`;
    default: {
      const unreachable: never = setting.origin;
      return unreachable;
    }
  }
}

/** The flag that allows exactly the deletions of a guard: `--allow-delete guides=12`. */
export function allowDeleteFlag(g: Pick<GuardResult, 'kind' | 'deletes'>): string {
  return `--allow-delete ${g.kind}=${g.deletes}`;
}

/** Whether a kind counts entries of a content list (removed by a write, not deleted by a call). */
function isListKind(kind: DeleteKind): boolean {
  switch (kind) {
    case 'words':
    case 'quick_replies':
    case 'welcome_messages':
    case 'offline_replies':
      return true;
    case 'guides':
    case 'groups':
    case 'memberships':
    case 'tasks':
      return false;
    default: {
      const unreachable: never = kind;
      return unreachable;
    }
  }
}

/**
 * One guard in words, naming the counts, the limit and why, and — when refused — the exact flag
 * that allows these deletions: `refused` + `the plan deletes 12 guides (of 40 live); the limit is
 * 10 (the smaller of 10 and 25% of live guides). To allow exactly these deletions, pass
 * --allow-delete guides=12.`
 */
export function describeGuard(g: GuardResult): { readonly status: GuardStatus; readonly text: string } {
  const verb = g.kind === 'tasks' ? 'cancels' : isListKind(g.kind) ? 'removes' : 'deletes';
  const what = `the plan ${verb} ${counted(g.deletes, g.kind)} (of ${formatCount(g.live)} live)`;
  const fix = `To allow exactly these deletions, pass ${allowDeleteFlag(g)}.`;
  const allowance =
    g.allowance === undefined
      ? undefined
      : `--allow-delete ${g.kind}=${g.allowance.value} allows at most ${formatCount(g.allowance.value)}`;
  const threshold = `the limit is ${formatCount(g.threshold)} (${thresholdReason(g)})`;
  switch (g.status) {
    case 'refused':
      return { status: g.status, text: `${what}; ${allowance ?? threshold}. ${fix}` };
    case 'allowed':
      return {
        status: g.status,
        text: `${what}, above the limit of ${formatCount(g.threshold)} (${thresholdReason(g)}); ${allowance ?? ''}.`,
      };
    case 'ok':
      return { status: g.status, text: `${what}; ${allowance ?? threshold}.` };
    default: {
      const unreachable: never = g.status;
      return unreachable;
    }
  }
}

/** `refused: the plan deletes …` */
export function guardMessage(g: GuardResult): string {
  const { status, text } = describeGuard(g);
  return `${status}: ${text}`;
}

/**
 * The plan for machines, `format_version` 1: `{"format_version": 1, "plan_id", "environment"?,
 * "target"?, "target_id"?, "summary": {…},
 * "changes": […], "calls": [{"operation", "body", "depends_on", "creates_group"?}], "unmanaged":
 * […], "guards": […]}` — the plan's content as {@link planContentToJson} encodes it (for the saved
 * plan too), with the id and the guards around it.
 */
export function planToJson(plan: Plan, extras: PlanExtras = {}): Record<string, unknown> {
  const { summary, ...rest } = planContentToJson(plan);
  return {
    format_version: plan.formatVersion,
    ...ifDefined('plan_id', extras.planId),
    ...(extras.environment === undefined ? {} : { environment: environmentToJson(extras.environment) }),
    // As a saved plan records them.
    ...(extras.target === undefined
      ? {}
      : { target: extras.target.description, target_id: targetIdentityToJson(extras.target.identity) }),
    summary,
    ...rest,
    ...(extras.guards === undefined ? {} : { guards: extras.guards.map(guardToJson) }),
    ...(extras.quota === undefined ? {} : { quota: planQuotaToJson(extras.quota, extras.partial) }),
    ...(extras.warnings === undefined
      ? {}
      : {
          diagnostics: diagnosticsToJson(
            extras.warnings,
            extras.cwd === undefined ? {} : { cwd: extras.cwd },
          ),
        }),
  };
}

/** A guard for machines: counts, limits with where they came from, status and the message. */
export function guardToJson(g: GuardResult): Record<string, unknown> {
  return {
    kind: g.kind,
    deletes: g.deletes,
    live: g.live,
    limit: g.limit,
    threshold: g.threshold,
    max_deletes: { value: g.maxDeletes.value, from: g.maxDeletes.origin },
    max_delete_share: { value: g.maxDeleteShare.value, from: g.maxDeleteShare.origin },
    ...(g.allowance === undefined ? {} : { allow_delete: g.allowance.value }),
    status: g.status,
    message: guardMessage(g),
  };
}

/**
 * Whom a call is about, from its subject, in one safe line: `(guide_account="alice_wx")` or
 * `(guide_openid="oXYZ")`, `(group North)`, `(group North (id 1860131524965138433))` for a live
 * group, `(membership alice_wx in "North")`, or `(account)`.
 */
export function subjectText(subject: CallSubject | undefined): string {
  if (subject === undefined) return '(?)';
  switch (subject.kind) {
    case 'guide':
      // A guide's address is its account, or `openid X` (an account never holds a space).
      return subject.address.startsWith('openid ')
        ? `(guide_openid=${showJson(subject.address.slice('openid '.length))})`
        : `(guide_account=${showJson(subject.address)})`;
    case 'group':
    case 'membership':
    case 'task':
      return `(${subject.kind} ${escapeControls(subject.address)})`;
    case 'account':
      return '(account)';
    default: {
      const unreachable: never = subject.kind;
      return unreachable;
    }
  }
}
