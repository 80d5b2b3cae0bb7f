import { compareText, sortedText } from '../core/compare-text.js';
import {
  type DesiredAccount,
  type DesiredState,
  describeGuideId,
  describeTask,
  guideKey,
} from '../core/desired.js';
import { type Diagnostic, hasErrors } from '../core/diagnostics.js';
import { MAX_SENSITIVE_WORDS } from '../core/guide-rules.js';
import type { LiveGuide, LiveState } from '../core/live.js';
import {
  type CallBody,
  type FieldChange,
  type JsonValue,
  PLAN_FORMAT_VERSION,
  type Plan,
} from '../core/plan.js';
import { checkBodySize, splitByBytes } from '../kinds/call-size.js';
import { deleteCopies, matchGroups, planGroupCreations, planGroupDeletions } from '../kinds/group/plan.js';
import { planGuideDeletions, planGuides } from '../kinds/guide/plan.js';
import { planGuideConfig, welcomeBody } from '../kinds/guide-config/plan.js';
import { checkMembers, planMemberships } from '../kinds/membership/plan.js';
import { PlanBuilder, type SubjectOf } from '../kinds/plan-builder.js';
import { TASK_KIND } from '../kinds/task/index.js';
import { messageToJson, sameWelcomeList } from '../kinds/welcome.js';
import { callSubject } from './call-subject.js';

export interface PlanResult {
  /** Present exactly when there is no error. */
  readonly plan?: Plan;
  /** Plan errors (and warnings), each pinned to the place in the file that causes it. */
  readonly diagnostics: readonly Diagnostic[];
}

/** Names the subject of each call as `live` names its groups and tasks by id. */
function subjectsIn(live: LiveState): SubjectOf {
  const groupNames = new Map(live.groups.map((g) => [g.id, g.name]));
  const taskNames = new Map((live.tasks ?? []).map((t) => [t.id, describeTask(t.guide, t.name)]));
  return (operation, body) =>
    callSubject(
      operation,
      body,
      (id) => groupNames.get(id),
      (id) => taskNames.get(id),
    );
}

/**
 * Computes the plan that makes `live` match `desired`: the changes, and the exact ordered list of
 * calls. Pure: no I/O, no clock; the same input gives the same plan, byte for byte.
 *
 * Order of calls: groups created, guides created or updated, configuration (guides, then the
 * account), memberships (adds, then removes), tasks (adds and updates, then cancellations),
 * deletions (guides, then groups). Within each step
 * resources go by address (guides by key, groups by name), so moving a guide between files does
 * not change the plan.
 */
export function planChanges(desired: DesiredState, live: LiveState): PlanResult {
  const liveGuides = new Map<string, LiveGuide>(live.guides.map((g) => [guideKey(g.id), g]));
  const desiredGuides = [...desired.guides].sort((a, b) => compareText(guideKey(a.id), guideKey(b.id)));
  const desiredKeys = new Set(desiredGuides.map((g) => guideKey(g.id)));
  const desiredGroups = [...desired.groups].sort((a, b) => compareText(a.name, b.name));

  const { matchedGroups, duplicates, warnings } = matchGroups(desiredGroups, live.groups);

  const liveAccounts = new Set(live.guides.flatMap((g) => (g.id.kind === 'account' ? [g.id.account] : [])));
  const diagnostics = checkMembers(desired, desiredGuides, desiredGroups, liveAccounts);
  if (diagnostics.length > 0) return { diagnostics };

  const b = new PlanBuilder(subjectsIn(live));

  // 1. Groups created.
  planGroupCreations(b, desiredGroups, matchedGroups);

  // 2. Guides created or updated.
  const { guideFields, addedAt } = planGuides(b, desiredGuides, liveGuides);

  // 3. Configuration: each guide's quick replies and welcome messages, then the account.
  const tooLarge: Diagnostic[] = [];
  for (const guide of desiredGuides) {
    const key = guideKey(guide.id);
    const fields = guideFields.get(key) ?? [];
    planGuideConfig(b, guide, liveGuides.get(key), fields, tooLarge);
    if (fields.length > 0) {
      b.change({
        resource: 'guide',
        action: addedAt.has(key) ? 'create' : 'update',
        address: describeGuideId(guide.id),
        fields,
      });
    }
  }
  planAccount(b, desired, live, tooLarge);

  // 4. Memberships of the groups the file names.
  const deletedAccounts = new Set(
    desired.prune.guides
      ? live.guides.flatMap((g) =>
          g.id.kind === 'account' && !desiredKeys.has(guideKey(g.id)) ? [g.id.account] : [],
        )
      : [],
  );
  const moves = planMemberships(b, desiredGroups, {
    matchedGroups,
    duplicates,
    addedAt,
    liveAccounts,
    deletedAccounts,
  });

  // 5. Tasks: added, updated, cancelled (after the guides they need are created).
  const tasks = TASK_KIND.plan(b, desired, live, {
    now: taskClock(desired, live),
    addedAt,
    guidesAfter: new Set([
      ...desiredKeys,
      ...(desired.prune.guides ? [] : live.guides.map((g) => guideKey(g.id))),
    ]),
  });
  if (tooLarge.length > 0 || hasErrors(tasks.diagnostics))
    return { diagnostics: [...tooLarge, ...tasks.diagnostics] };

  // 6. Deletions, or mentions of what is left alone.
  const unmanaged = [
    ...planGuideDeletions(b, desired, live, desiredKeys),
    ...planGroupDeletions(b, desired, live),
    ...tasks.unmanaged,
  ];
  deleteCopies(b, desiredGroups, duplicates, moves);

  const semantics = desired.account?.sensitiveWords?.semantics;
  return {
    diagnostics: [...warnings, ...tasks.diagnostics],
    plan: {
      formatVersion: PLAN_FORMAT_VERSION,
      summary: b.summary(),
      changes: b.sortedChanges(),
      calls: b.calls,
      unmanaged,
      ...(semantics === undefined ? {} : { sensitiveWordSemantics: semantics }),
    },
  };
}

/** The "now" of the task rules: when the live state was read. Tasks need it; a read without a clock is a bug. */
function taskClock(desired: DesiredState, live: LiveState): number {
  if (desired.tasks !== undefined && live.readAt === undefined)
    throw new Error('planChanges: tasks are managed but the live state has no readAt (the time of the read)');
  return live.readAt ?? 0;
}

/**
 * The account: offline reply and sensitive words through `setguideacctconfig`, the default
 * welcome through `setguideconfig` without a guide. Sensitive words follow the semantics the file
 * states: under `append`, add what is missing (`is_delete: false`) and delete what is extra
 * (`is_delete: true`), each in runs well under the request limit; under `replace`, one call sets
 * the whole list (an error in `errors` when that passes the limit).
 *
 * The add goes first, so that if a later call fails the account still holds every word of both
 * lists (a blocklist errs on the side of blocking); unless the two lists together pass the limit
 * of the account's words: the add would then be refused (9300814) on every apply, so the delete
 * goes first. Either way, no word that both lists hold is ever missing in between.
 */
function planAccount(b: PlanBuilder, desired: DesiredState, live: LiveState, errors: Diagnostic[]): void {
  const account = desired.account;
  if (account === undefined) return;
  const fields: FieldChange[] = [];
  const keep: Record<string, JsonValue> = {};
  const remove: Record<string, JsonValue> = {};
  let adds: string[][] = [];
  let drops: string[][] = [];

  if (account.offlineAutoReply !== undefined) {
    const before = live.account.offlineAutoReply ?? null;
    if (before !== account.offlineAutoReply) {
      // Deleted with is_delete: true, which every source agrees on (a null guide_auto_reply deletes
      // it too, by the API's contract, but SDKs send unset keys as null, so null is not relied on).
      if (account.offlineAutoReply === null) remove['guide_auto_reply'] = { content: before ?? '' };
      else keep['guide_auto_reply'] = { content: account.offlineAutoReply };
      fields.push({ field: 'offline_auto_reply', before, after: account.offlineAutoReply });
    }
  }

  let deleteFirst = false;
  const words = account.sensitiveWords;
  if (words !== undefined) {
    const before = live.account.sensitiveWords ?? [];
    const beforeSet = new Set(before);
    const afterSet = new Set(words.words);
    const missing = words.words.filter((w) => !beforeSet.has(w));
    const extra = sortedText(before.filter((w) => !afterSet.has(w)));
    if (missing.length > 0 || extra.length > 0) {
      fields.push({ field: 'sensitive_words', before: sortedText(before), after: [...words.words] });
      if (words.semantics === 'replace') {
        keep['black_keyword'] = { values: [...words.words] };
      } else {
        adds = splitByBytes(missing);
        drops = splitByBytes(extra);
        deleteFirst = before.length + missing.length > MAX_SENSITIVE_WORDS;
      }
    }
  }

  const addBodies = wordBodies(false, keep, adds);
  const dropBodies = wordBodies(true, remove, drops);
  const replace = words?.semantics === 'replace';
  for (const body of [...addBodies, ...dropBodies]) {
    const tooLarge = checkBodySize(
      body,
      account.source,
      replace
        ? 'under semantics: replace, all the sensitive words go in one setguideacctconfig request, which'
        : 'a setguideacctconfig request of the sensitive words',
      replace
        ? 'shorten or remove sensitive words; a target that appends (semantics: append) takes them in several requests'
        : 'one sensitive word this long cannot be sent in a request: shorten it',
    );
    if (tooLarge !== undefined) errors.push(tooLarge);
  }
  for (const body of deleteFirst ? [...dropBodies, ...addBodies] : [...addBodies, ...dropBodies])
    b.call('account', 'account', 'setguideacctconfig', body);

  planDefaultWelcome(b, account, live, fields, errors);
  if (fields.length > 0) b.change({ resource: 'account', action: 'update', address: 'account', fields });
}

/** The account's default welcome messages: one `setguideconfig` without a guide sets or deletes both. */
function planDefaultWelcome(
  b: PlanBuilder,
  account: DesiredAccount,
  live: LiveState,
  fields: FieldChange[],
  errors: Diagnostic[],
): void {
  if (account.defaultWelcome === undefined) return;
  const before = live.account.defaultWelcome ?? [];
  if (sameWelcomeList(account.defaultWelcome, before)) return;
  fields.push({
    field: 'default_welcome',
    before: before.map(messageToJson),
    after: account.defaultWelcome.map(messageToJson),
  });
  const body: CallBody =
    account.defaultWelcome.length === 0
      ? { is_delete: true, guide_auto_reply: { msgtype: 1 } }
      : { is_delete: false, ...welcomeBody(account.defaultWelcome) };
  const tooLarge = checkBodySize(
    body,
    account.source,
    'the setguideconfig request of the default welcome messages',
    'a welcome message this long cannot be sent in a request: shorten it',
  );
  if (tooLarge !== undefined) errors.push(tooLarge);
  b.call('account', 'account', 'setguideconfig', body);
}

/**
 * The `setguideacctconfig` bodies of one `is_delete`: `settings` (the offline reply, or the whole
 * list under `replace`) with the first run of words, or alone; then one body per further run.
 */
function wordBodies(isDelete: boolean, settings: Record<string, JsonValue>, runs: string[][]): CallBody[] {
  if (runs.length === 0)
    return Object.keys(settings).length > 0 ? [{ is_delete: isDelete, ...settings }] : [];
  return runs.map((run, i) => ({
    is_delete: isDelete,
    ...(i === 0 ? settings : {}),
    black_keyword: { values: run },
  }));
}
