import { diffArrays, diffLines } from 'diff';
import type { Change, ChangeAction, FieldChange, JsonValue, Plan, PlannedCall } from '../core/plan.js';
import { isGroupRef } from '../core/plan.js';
import { type Paint, paint } from './paint.js';

/**
 * The plan for people, in the manner of Terraform: `+` create, `~` update, `-` delete, each
 * field that changes, lists and long texts as line diffs, what is left alone, and the summary
 * line. Human text may change between versions; machines read {@link planToJson}.
 */
export function renderPlan(plan: Plan, options: { readonly color?: boolean } = {}): string {
  const p = paint(options.color === true);
  const out: string[] = [];
  if (plan.changes.length > 0) {
    out.push('guidectl will make these changes:', '');
    for (const change of plan.changes) out.push(...renderChange(change, p), '');
  }
  if (plan.unmanaged.length > 0) out.push(renderUnmanaged(plan), '');
  out.push(p.bold(summaryLine(plan)));
  return `${out.join('\n')}\n`;
}

/** `Plan: 3 to add, 2 to change, 1 to delete (14 API calls).` or `No changes.` */
export function summaryLine(plan: Plan): string {
  const { add, change, delete: del, calls } = plan.summary;
  if (calls === 0) return 'No changes. The account matches the files.';
  return `Plan: ${add} to add, ${change} to change, ${del} to delete (${calls} API call${calls === 1 ? '' : 's'}).`;
}

const SIGN: Record<ChangeAction, string> = { create: '+', update: '~', delete: '-' };

function color(action: ChangeAction, p: Paint): (s: string) => string {
  return action === 'create' ? p.green : action === 'update' ? p.yellow : p.red;
}

function renderChange(change: Change, p: Paint): string[] {
  const c = color(change.action, p);
  const name = change.resource === 'account' ? 'account' : `${change.resource} ${quoteName(change.address)}`;
  const lines = [`  ${c(SIGN[change.action])} ${p.bold(name)}`];
  for (const field of change.fields) lines.push(...renderField(field, change.action, p));
  return lines;
}

function quoteName(address: string): string {
  return /^[A-Za-z0-9_.-]+$/.test(address) || address.startsWith('openid ')
    ? address
    : JSON.stringify(address);
}

function renderField(field: FieldChange, action: ChangeAction, p: Paint): string[] {
  const indent = '      ';
  const { before, after } = field;
  if (Array.isArray(before) || Array.isArray(after)) {
    const b = asLines(before);
    const a = asLines(after);
    const sign = action === 'update' ? '~' : SIGN[action];
    const lines = [`${indent}${color(action, p)(sign)} ${field.field}:`];
    for (const part of diffArrays(b, a)) {
      for (const value of part.value) {
        if (part.added) lines.push(`${indent}    ${p.green('+')} ${value}`);
        else if (part.removed) lines.push(`${indent}    ${p.red('-')} ${value}`);
        else lines.push(`${indent}      ${p.dim(value)}`);
      }
    }
    if (b.length === 0 && a.length === 0) lines.push(`${indent}    (none)`);
    return lines;
  }
  if (before === undefined) return [`${indent}${p.green('+')} ${field.field}: ${show(after)}`];
  if (after === undefined) return [`${indent}${p.red('-')} ${field.field}: ${show(before)}`];
  const b = show(before);
  const a = show(after);
  if (
    typeof before === 'string' &&
    typeof after === 'string' &&
    (b.length + a.length > 100 || /\n/.test(before + after))
  ) {
    const lines = [`${indent}${p.yellow('~')} ${field.field}:`];
    for (const part of diffLines(`${before}\n`, `${after}\n`)) {
      for (const line of part.value.replace(/\n$/, '').split('\n')) {
        if (part.added) lines.push(`${indent}    ${p.green('+')} ${line}`);
        else if (part.removed) lines.push(`${indent}    ${p.red('-')} ${line}`);
        else lines.push(`${indent}      ${p.dim(line)}`);
      }
    }
    return lines;
  }
  return [`${indent}${p.yellow('~')} ${field.field}: ${b} → ${a}`];
}

function asLines(value: JsonValue | undefined): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return [show(value)];
  return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
}

function show(value: JsonValue | undefined): string {
  if (value === undefined) return '(none)';
  if (value === null) return 'null (none)';
  return JSON.stringify(value);
}

function renderUnmanaged(plan: Plan): string {
  const guides = plan.unmanaged.filter((u) => u.resource === 'guide').map((u) => u.address);
  const groups = plan.unmanaged.filter((u) => u.resource === 'group').map((u) => quoteName(u.address));
  const list = (names: string[]): string =>
    names.length <= 10 ? names.join(', ') : `${names.slice(0, 10).join(', ')} and ${names.length - 10} more`;
  const parts = [
    ...(guides.length > 0
      ? [`${guides.length} guide${guides.length === 1 ? '' : 's'} (${list(guides)})`]
      : []),
    ...(groups.length > 0
      ? [`${groups.length} group${groups.length === 1 ? '' : 's'} (${list(groups)})`]
      : []),
  ];
  return `Not in the files, left alone: ${parts.join(' and ')}. Set prune.guides or prune.groups to delete them.`;
}

/**
 * The plan for machines, `format_version` 1:
 * `{"format_version": 1, "summary": {…}, "changes": […], "calls": [{"operation", "body", "depends_on"}], "unmanaged": […]}`.
 * `calls` is the exact ordered list apply makes, `body` the exact wire body: ids as bare JSON
 * numbers, and `{"$group": name}` for the id of a group this plan creates.
 */
export function planToJson(plan: Plan): Record<string, unknown> {
  return {
    format_version: plan.formatVersion,
    summary: plan.summary,
    ...(plan.sensitiveWordSemantics === undefined
      ? {}
      : { sensitive_word_semantics: plan.sensitiveWordSemantics }),
    changes: plan.changes.map((c) => ({
      resource: c.resource,
      action: c.action,
      address: c.address,
      fields: c.fields,
    })),
    calls: plan.calls.map(callToJson),
    unmanaged: plan.unmanaged,
  };
}

function callToJson(call: PlannedCall): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(call.body)) {
    body[key] = isGroupRef(value)
      ? value
      : key === 'group_id' && typeof value === 'string'
        ? BigInt(value)
        : value;
  }
  return { operation: call.operation, body, depends_on: call.dependsOn };
}
