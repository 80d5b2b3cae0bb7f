import {
  DELETE_KINDS,
  type DeleteKind,
  type DesiredState,
  describeGuideId,
  describeTask,
  guideKey,
  type ProtectedGuide,
  type ProtectedTask,
  type ProtectPolicy,
  type SafetyPolicy,
  type SourceRef,
  taskKey,
} from '../core/desired.js';
import type { Diagnostic } from '../core/diagnostics.js';
import type { LiveGroup, LiveState } from '../core/live.js';
import type { Plan, PlannedCall } from '../core/plan-data.js';
import { ifDefined } from '../core/records.js';
import {
  DEFAULT_MAX_DELETE_SHARE,
  DEFAULT_MAX_DELETES,
  type DeleteCounts,
  type GuardPolicy,
  type GuardResult,
  type GuardStatus,
  MIN_DELETE_LIMIT,
  type Setting,
} from '../core/safety.js';
import { operationThat, WRITE_EFFECTS } from '../kinds/registry.js';
import { guideIdOf } from '../wire/guide-identity.js';
import type { ProtectedNames } from './digest.js';
import { countListRemovals, countLiveEntries, type ListCounts } from './list-removals.js';

/**
 * The safety checks of a plan, on the plan object itself: the deletion guards (how many guides,
 * groups and memberships a plan deletes against how many are live) and protection (what the
 * files protect is never deleted nor removed from a group). Pure: data in, data out.
 */

/** Limits given as flags for one run; each overrides the file's `safety` section. */
export interface GuardFlags {
  readonly maxDeletes?: { readonly [K in DeleteKind]?: number };
  readonly maxDeleteShare?: number;
  /** `--allow-delete KIND=N`: this run may delete at most N of the kind, whatever the threshold. */
  readonly allowDelete?: { readonly [K in DeleteKind]?: number };
}

/** The settings that apply: flags over the file's `safety` section over the defaults. */
export function resolveGuardPolicy(
  safety: Pick<SafetyPolicy, 'maxDeletes' | 'maxDeleteShare'> | undefined,
  flags: GuardFlags = {},
): GuardPolicy {
  const pick = (flag: number | undefined, file: number | undefined, fallback: number): Setting =>
    flag !== undefined
      ? { value: flag, origin: 'flag' }
      : file !== undefined
        ? { value: file, origin: 'file' }
        : { value: fallback, origin: 'default' };
  const maxDeletes = (kind: DeleteKind): Setting =>
    pick(flags.maxDeletes?.[kind], safety?.maxDeletes[kind], DEFAULT_MAX_DELETES);
  const allowDelete: { [K in DeleteKind]?: Setting } = {};
  for (const kind of DELETE_KINDS) {
    const n = flags.allowDelete?.[kind];
    if (n !== undefined) allowDelete[kind] = { value: n, origin: 'flag' };
  }
  return {
    maxDeletes: {
      guides: maxDeletes('guides'),
      groups: maxDeletes('groups'),
      memberships: maxDeletes('memberships'),
      tasks: maxDeletes('tasks'),
      words: maxDeletes('words'),
      quick_replies: maxDeletes('quick_replies'),
      welcome_messages: maxDeletes('welcome_messages'),
      offline_replies: maxDeletes('offline_replies'),
    },
    maxDeleteShare: pick(flags.maxDeleteShare, safety?.maxDeleteShare, DEFAULT_MAX_DELETE_SHARE),
    allowDelete,
  };
}

/**
 * Deletions the plan makes, by kind: guides, groups, memberships and tasks counted on its calls;
 * the entries of content lists it removes from what `live` read (see `countListRemovals`), which
 * without `live` cannot be told and count 0.
 */
export function countDeletes(
  plan: Pick<Plan, 'calls' | 'sensitiveWordSemantics'>,
  live?: LiveState,
): DeleteCounts {
  const counts = { guides: 0, groups: 0, memberships: 0, tasks: 0 };
  for (const call of plan.calls) {
    const kind = WRITE_EFFECTS[call.operation].deletes;
    if (kind !== undefined) counts[kind] += 1;
  }
  const lists = live === undefined ? NO_ENTRIES : countListRemovals(plan, live);
  return { ...counts, ...lists };
}

const NO_ENTRIES: ListCounts = { words: 0, quick_replies: 0, welcome_messages: 0, offline_replies: 0 };

/**
 * What is live, by kind: every guide, every group, the memberships of the groups whose members
 * were read (the groups the files manage; memberships are only ever removed from those), the
 * pending tasks of the guides whose tasks were read (only those can be cancelled), and the entries
 * of the content lists that were read.
 */
export function countLive(live: LiveState): DeleteCounts {
  return {
    guides: live.guides.length,
    groups: live.groups.length,
    memberships: live.groups.reduce((n, g) => n + (g.members?.length ?? 0), 0),
    tasks: (live.tasks ?? []).filter((t) => t.status === 'pending').length,
    ...countLiveEntries(live),
  };
}

/**
 * Checks each guard: the threshold of a kind is the smaller of `max_deletes` and
 * `max_delete_share` of the live count (at least {@link MIN_DELETE_LIMIT}); an allowance
 * replaces it. One result per kind, in the order of `DELETE_KINDS`.
 */
export function checkDeleteGuards(
  deletes: DeleteCounts,
  live: DeleteCounts,
  policy: GuardPolicy,
): GuardResult[] {
  return DELETE_KINDS.map((kind) => {
    const maxDeletes = policy.maxDeletes[kind];
    const share = policy.maxDeleteShare;
    // A small epsilon keeps 0.3 × 10 at 3 despite binary fractions.
    const shareLimit = Math.max(MIN_DELETE_LIMIT, Math.floor(share.value * live[kind] + 1e-9));
    const threshold = Math.min(maxDeletes.value, shareLimit);
    const allowance = policy.allowDelete[kind];
    const limit = allowance?.value ?? threshold;
    const n = deletes[kind];
    const status: GuardStatus = n > limit ? 'refused' : n > threshold ? 'allowed' : 'ok';
    return {
      kind,
      deletes: n,
      live: live[kind],
      maxDeletes,
      maxDeleteShare: share,
      shareLimit,
      threshold,
      ...ifDefined('allowance', allowance),
      limit,
      status,
    };
  });
}

/**
 * Protection, checked on the plan's calls: a protected guide is never deleted nor removed from a
 * group (by a removal, or by deleting a group that holds it); a protected group is never deleted. Each attempt is an error at the
 * place that asks for it, pointing at the place that protects. A protected name that is neither
 * in the files nor live is a warning (a misspelt protection protects nothing).
 *
 * For the check of deleted groups the members of those groups must have been read; a group whose
 * members were not read cannot be checked for protected guides (the CLI reads them whenever
 * `prune.groups` is on and a guide is protected).
 */
export function checkProtection(desired: DesiredState, live: LiveState, plan: Plan): Diagnostic[] {
  const protect = desired.protect;
  if (protect === undefined) return [];
  const diagnostics: Diagnostic[] = [];
  const ctx: ProtectionContext = {
    guides: new Map<string, ProtectedGuide>(protect.guides.map((g) => [guideKey(g.id), g])),
    groups: new Map(protect.groups.map((g) => [g.name, g])),
    liveGroups: new Map(live.groups.map((g) => [g.id, g])),
    desiredGroups: new Map(desired.groups.map((g) => [g.name, g])),
    deletedGroups: new Set(
      plan.calls.flatMap((c) =>
        WRITE_EFFECTS[c.operation].deletes === 'groups' && typeof c.body['group_id'] === 'string'
          ? [c.body['group_id']]
          : [],
      ),
    ),
    live,
    plan,
    error: (code, at, message, hint, related) => {
      diagnostics.push({
        ...at,
        severity: 'error',
        code,
        message,
        hint,
        ...(related === undefined ? {} : { related: [{ ...related.source, message: related.message }] }),
      });
    },
  };
  for (const call of plan.calls) {
    // Only deletions can take away what the files protect.
    const kind = WRITE_EFFECTS[call.operation].deletes;
    switch (kind) {
      case 'guides':
        protectGuideDelete(call, ctx);
        break;
      case 'memberships':
        protectMemberRemove(call, ctx);
        break;
      case 'groups':
        protectGroupDelete(call, ctx);
        break;
      case 'tasks':
        protectTaskCancel(call, ctx, protect.tasks ?? []);
        break;
      case undefined:
        break;
      default: {
        const unreachable: never = kind;
        return unreachable;
      }
    }
  }
  diagnostics.push(...unknownProtections(desired, live, protect));
  return diagnostics;
}

/** What the protection checks of one plan share: the protections, the groups, and where errors go. */
interface ProtectionContext {
  /** Protected guides, by key. */
  readonly guides: ReadonlyMap<string, ProtectedGuide>;
  /** Protected groups, by name. */
  readonly groups: ReadonlyMap<string, { readonly source: SourceRef }>;
  readonly liveGroups: ReadonlyMap<string, LiveGroup>;
  readonly desiredGroups: ReadonlyMap<string, { readonly source: SourceRef }>;
  /** Ids of the live groups the plan deletes. */
  readonly deletedGroups: ReadonlySet<string>;
  readonly live: LiveState;
  readonly plan: Plan;
  readonly error: (
    code: Diagnostic['code'],
    at: SourceRef,
    message: string,
    hint: string,
    related?: { source: SourceRef; message: string },
  ) => void;
}

/** The deletion of a protected guide. */
function protectGuideDelete(call: PlannedCall, ctx: ProtectionContext): void {
  const id = guideIdOf(call.body);
  const guard = id === undefined ? undefined : ctx.guides.get(guideKey(id));
  if (id === undefined || guard === undefined) return;
  ctx.error(
    'protected-guide-delete',
    guard.source,
    `guide ${describeGuideId(id)} is protected, but the plan would delete it: it is live, not under guides:, and prune.guides is on`,
    'declare the guide under guides: again, or remove its protection first if it really must go',
  );
}

/** The cancellation of a protected task (a live pending task of a protected guide and name). */
function protectTaskCancel(call: PlannedCall, ctx: ProtectionContext, tasks: readonly ProtectedTask[]): void {
  const id = call.body['task_id'];
  const task = ctx.live.tasks?.find((t) => t.id === id);
  if (task === undefined) return;
  const guard = tasks.find((p) => taskKey(p.guide, p.name) === taskKey(task.guide, task.name));
  if (guard === undefined) return;
  ctx.error(
    'protected-task-cancel',
    guard.source,
    `task ${describeTask(task.guide, task.name)} is protected, but the plan would cancel its live copy (id ${task.id})`,
    `a protected task is never cancelled: cancel that copy by hand (guidectl api ${operationThat('deletes', 'tasks') ?? ''}), or remove the protection first`,
  );
}

/** The removal of a protected guide from a group. */
function protectMemberRemove(call: PlannedCall, ctx: ProtectionContext): void {
  const account = call.body['guide_account'];
  const groupId = call.body['group_id'];
  if (typeof account !== 'string') return;
  const guard = ctx.guides.get(guideKey({ kind: 'account', account }));
  if (guard === undefined) return;
  const name = typeof groupId === 'string' ? ctx.liveGroups.get(groupId)?.name : undefined;
  const group = name === undefined ? undefined : ctx.desiredGroups.get(name);
  ctx.error(
    'protected-member-remove',
    group?.source ?? guard.source,
    `guide ${account} is protected, but the members of group "${name ?? String(groupId)}" leave it out, so the plan would remove it from the group`,
    `add ${account} to the members of the group, or remove its protection first`,
    group === undefined ? undefined : { source: guard.source, message: `${account} is protected here` },
  );
}

/** The deletion of a protected group, or of a group that holds a protected guide. */
function protectGroupDelete(call: PlannedCall, ctx: ProtectionContext): void {
  const groupId = call.body['group_id'];
  const group = typeof groupId === 'string' ? ctx.liveGroups.get(groupId) : undefined;
  if (group === undefined) return;
  // A copy of a group whose name another live group keeps: the name survives, and so do
  // the memberships the plan moves onto the kept group.
  const kept = ctx.live.groups.find((g) => g.name === group.name && !ctx.deletedGroups.has(g.id));
  const keptMembers = kept === undefined ? new Set<string>() : membersAfter(kept, ctx.plan);
  const guard = ctx.groups.get(group.name);
  if (guard !== undefined && kept === undefined) {
    ctx.error(
      'protected-group-delete',
      guard.source,
      `group "${group.name}" is protected, but the plan would delete it: it is live, not under groups:, and prune.groups is on`,
      'declare the group under groups: again, or remove its protection first if it really must go',
    );
  }
  for (const account of [...(group.members ?? [])].sort()) {
    const member = ctx.guides.get(guideKey({ kind: 'account', account }));
    if (member === undefined || keptMembers.has(account)) continue;
    ctx.error(
      'protected-member-remove',
      member.source,
      `guide ${account} is protected, but the plan would delete group "${group.name}" (prune.groups), which would remove the guide from it`,
      `declare group "${group.name}" under groups: to keep it, or remove the protection of ${account} first`,
    );
  }
}

/** A protection that names nothing protects nothing: most likely a typo (a warning each). */
function unknownProtections(desired: DesiredState, live: LiveState, protect: ProtectPolicy): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const known = new Set([
    ...desired.guides.map((g) => guideKey(g.id)),
    ...live.guides.map((g) => guideKey(g.id)),
  ]);
  for (const guard of protect.guides) {
    if (known.has(guideKey(guard.id))) continue;
    diagnostics.push({
      ...guard.source,
      severity: 'warning',
      code: 'protected-not-found',
      message: `protected guide ${describeGuideId(guard.id)} is neither in the files nor live, so nothing is protected`,
      hint: 'check the spelling of the account (or openid)',
    });
  }
  const knownGroups = new Set([...desired.groups.map((g) => g.name), ...live.groups.map((g) => g.name)]);
  for (const guard of protect.groups) {
    if (knownGroups.has(guard.name)) continue;
    diagnostics.push({
      ...guard.source,
      severity: 'warning',
      code: 'protected-not-found',
      message: `protected group "${guard.name}" is neither in the files nor live, so nothing is protected`,
      hint: 'check the spelling of the group name',
    });
  }
  return diagnostics;
}

/**
 * The protections of a saved plan whose files are not at hand, as {@link checkProtection} takes
 * them: each named guide and group, pointing at `source` (the saved plan).
 */
export function protectionFromNames(names: ProtectedNames, source: SourceRef): ProtectPolicy {
  return {
    guides: [
      ...names.guides.map((account): ProtectedGuide => ({ id: { kind: 'account', account }, source })),
      ...names.guideOpenids.map((openid): ProtectedGuide => ({ id: { kind: 'openid', openid }, source })),
    ],
    groups: names.groups.map((name) => ({ name, source })),
    ...(names.tasks === undefined
      ? {}
      : { tasks: names.tasks.flatMap((key) => protectedTaskOf(key, source)) }),
  };
}

/** A protected task from its {@link taskKey} (`account:alice_wx` NUL `Spring sale`). */
function protectedTaskOf(key: string, source: SourceRef): ProtectedTask[] {
  const cut = key.indexOf('\u0000');
  const guide = key.slice(0, cut);
  const name = key.slice(cut + 1);
  if (cut < 0) return [];
  if (guide.startsWith('account:'))
    return [{ guide: { kind: 'account', account: guide.slice(8) }, name, source }];
  if (guide.startsWith('openid:'))
    return [{ guide: { kind: 'openid', openid: guide.slice(7) }, name, source }];
  return [];
}

/** The members a live group has once the plan's membership calls on it are made. */
function membersAfter(group: LiveGroup, plan: Plan): Set<string> {
  const members = new Set(group.members ?? []);
  for (const call of plan.calls) {
    const account = call.body['guide_account'];
    if (call.body['group_id'] !== group.id || typeof account !== 'string') continue;
    const effect = WRITE_EFFECTS[call.operation];
    if (effect.creates === 'memberships') members.add(account);
    if (effect.deletes === 'memberships') members.delete(account);
  }
  return members;
}
