import { type OperationNeed, type PlanQuota, planQuotaToJson } from '../core/daily-quota.js';
import { DELETE_KINDS, type DeleteKind } from '../core/desired.js';
import { ENVIRONMENT_NAME } from '../core/environments.js';
import { UsageError } from '../core/errors.js';
import type { LiveReadScope } from '../core/live.js';
import {
  type Change,
  type FieldChange,
  type GroupRef,
  isPlannedOperation,
  type JsonValue,
  PLAN_FORMAT_VERSION,
  type Plan,
  type PlannedCall,
  type Unmanaged,
} from '../core/plan-data.js';
import { planContentToJson } from '../core/plan-json.js';
import { ifDefined, isRecord } from '../core/records.js';
import { type TargetIdentity, type TargetNow, targetIdentityToJson } from '../core/target-identity.js';
import { operationThat, WRITE_EFFECTS } from '../kinds/registry.js';
import { stringifyJsonPretty } from '../wire/json.js';
import { callSubject } from './call-subject.js';
import {
  decodeLiveFingerprints,
  type GuardSettings,
  guardSettingsToJson,
  type LiveFingerprints,
  PLAN_ID_LENGTH,
  type PlanBasis,
  type ProtectedNames,
  planId,
  protectedNamesToJson,
  readScopeToJson,
} from './digest.js';

/** The operation that creates a group, named in messages about `creates_group`. */
const GROUP_CREATION = operationThat('creates', 'groups') ?? '';

/**
 * The saved plan (`plan --out FILE`): everything `apply FILE` needs to make exactly the calls that
 * were reviewed, and to refuse when they are no longer right. It holds no token, secret or
 * credential — only the plan, digests, and where the files were.
 *
 * `format_version` 4, `kind` "guidectl-plan", then:
 * - `plan_id`: the id of the calls, the semantics, the digests, the read scope, `safety`,
 *   `protect`, `target_id` and the environment's name (checked on load: a file with any of
 *   these edited does not match it);
 * - `target`, `target_id`: the target the plan read, in words (shown, never acted on) and which
 *   account it is (`TargetIdentity`), which `apply FILE` compares with the target resolved then;
 * - `environment`?: `{name}`, for a plan of one environment of the files;
 * - `paths`: the files and folders the plan was made from, relative to the working directory;
 * - `desired_digest`, `live_digest`: SHA-256 of the normalised files and of the live state read;
 * - `read_scope`: what was read, so that apply reads exactly that again;
 * - `safety`, `protect`: the deletion-guard settings and protections of the files. Apply checks
 *   the saved protections when the files are not at hand; it never takes the guard settings from
 *   here (from the files when at hand, else the defaults, and apply's flags);
 * - `sensitive_word_semantics`?, `summary`, `changes`, `calls`, `unmanaged`: as `plan --json`;
 *   `summary`, `changes` and `unmanaged` are shown, never acted on, and covered by the plan id
 *   (the summary by counting the changes and calls), so that what is shown is what is applied;
 * - `live_fingerprints`: a short hash per live resource, to say what changed when stale.
 *
 * It holds no deletion-guard result nor acknowledgement: apply checks the guards itself, with the
 * files' settings and the flags given to apply.
 */
export const SAVED_PLAN_KIND = 'guidectl-plan';

/**
 * The saved plan's `format_version`: raised when a field changes meaning or goes away. 2: the plan
 * id covers the environment, which records its target's identity (`target_id`). 3: the plan id
 * covers the changes and unmanaged resources shown with the calls. 4: every plan records its
 * target (`target`, `target_id`, no longer under `environment`), and the plan id covers it.
 * Files of earlier versions are refused (see {@link decodeSavedPlan}).
 */
export const SAVED_PLAN_FORMAT_VERSION = 4;

/** Why a saved plan of an earlier format is refused: what its plan id did not cover. */
const EARLIER_FORMATS: Readonly<Record<number, string>> = {
  1: 'the changes it shows, so they could have been edited',
  2: 'the changes it shows, so they could have been edited',
  3: 'the target it was made against (a plan of files without environments could be applied to any account)',
};

/** The environment a saved plan was made for (`plan --env NAME --out FILE`). */
export interface SavedEnvironment {
  readonly name: string;
}

export interface SavedPlan {
  readonly planId: string;
  /**
   * The target the plan read: in words (`describeTarget`: a base URL and the names of the
   * credentials' variables, or a local database; never a secret), for messages, and which
   * account it is, which `apply FILE` compares with the target resolved then (and refuses when
   * they differ). The plan id covers the identity.
   */
  readonly target: TargetNow;
  /** Absent for a plan of files without environments. */
  readonly environment?: SavedEnvironment;
  readonly paths: readonly string[];
  readonly basis: PlanBasis;
  readonly plan: Plan;
  readonly liveFingerprints: LiveFingerprints;
  /**
   * What the calls needed of the day's quotas when the plan was made; absent when none was read.
   * Not covered by the plan id: apply reads the quotas again, and says when what it would do changed.
   */
  readonly quota?: PlanQuota;
}

export function encodeSavedPlan(saved: SavedPlan): string {
  const { plan, basis } = saved;
  const value = {
    format_version: SAVED_PLAN_FORMAT_VERSION,
    kind: SAVED_PLAN_KIND,
    plan_id: saved.planId,
    target: saved.target.description,
    target_id: targetIdentityToJson(saved.target.identity),
    ...(saved.environment === undefined ? {} : { environment: { name: saved.environment.name } }),
    paths: saved.paths,
    desired_digest: basis.desiredDigest,
    live_digest: basis.liveDigest,
    read_scope: readScopeToJson(basis.readScope),
    safety: guardSettingsToJson(basis.safety),
    protect: protectedNamesToJson(basis.protect),
    ...planContentToJson(plan),
    live_fingerprints: saved.liveFingerprints,
    ...(saved.quota === undefined ? {} : { quota: planQuotaToJson(saved.quota) }),
  };
  return `${stringifyJsonPretty(value)}\n`;
}

class Invalid extends Error {}

/**
 * Checks every part of a parsed saved plan and builds the plan apply runs. Refuses a file of
 * another kind or format version, a damaged or hand-edited one (wrong shapes, calls that depend
 * on later calls, counts that do not add up), and one whose calls do not hash to its plan id.
 */
export function decodeSavedPlan(value: unknown, shown: string): SavedPlan {
  const fail = (message: string): never => {
    throw new UsageError(`${shown}: ${message}`);
  };
  if (!isRecord(value)) return fail('not a saved plan (the file holds no JSON object)');
  if (value['kind'] !== SAVED_PLAN_KIND) {
    return fail(
      `not a saved plan: its "kind" is ${JSON.stringify(value['kind'] ?? null)}, not "${SAVED_PLAN_KIND}" (plan --json output cannot be applied; save a plan with guidectl plan --out FILE)`,
    );
  }
  const version = value['format_version'];
  const uncovered = typeof version === 'number' ? EARLIER_FORMATS[version] : undefined;
  if (uncovered !== undefined) {
    const name = isRecord(value['environment']) ? value['environment']['name'] : undefined;
    const env = typeof name === 'string' ? ` --env ${name}` : '';
    return fail(
      `it was made by an earlier guidectl (format_version ${version}), whose plan id did not cover ${uncovered}; make the plan again with guidectl plan${env} --out FILE`,
    );
  }
  if (version !== SAVED_PLAN_FORMAT_VERSION) {
    return fail(
      typeof version === 'number' && version > SAVED_PLAN_FORMAT_VERSION
        ? `format_version ${version} is newer than this guidectl reads (${SAVED_PLAN_FORMAT_VERSION}); upgrade guidectl`
        : `format_version ${JSON.stringify(version ?? null)} is not supported; this guidectl reads ${SAVED_PLAN_FORMAT_VERSION}`,
    );
  }
  try {
    const id = hex(value['plan_id'], PLAN_ID_LENGTH, 'plan_id');
    const liveFingerprints = decodeFingerprints(value['live_fingerprints']);
    const groupName = (groupId: string): string | undefined => liveFingerprints.groups[groupId]?.name;
    const taskName = (taskId: string): string | undefined => liveFingerprints.tasks?.[taskId]?.name;
    const calls = array(value['calls'], 'calls').map((c, i) => decodeCall(c, i, groupName, taskName));
    const plan: Plan = {
      formatVersion: PLAN_FORMAT_VERSION,
      summary: decodeSummary(value['summary']),
      changes: array(value['changes'], 'changes').map(decodeChange),
      calls,
      unmanaged: array(value['unmanaged'], 'unmanaged').map(decodeUnmanaged),
      ...decodeSemantics(value['sensitive_word_semantics']),
    };
    checkConsistent(plan);
    const environment = decodeEnvironment(value['environment']);
    const target: TargetNow = {
      description: text(value['target'], 'target'),
      identity: decodeIdentity(value['target_id']),
    };
    const basis: PlanBasis = {
      desiredDigest: hex(value['desired_digest'], 64, 'desired_digest'),
      liveDigest: hex(value['live_digest'], 64, 'live_digest'),
      readScope: decodeScope(value['read_scope']),
      safety: decodeSafety(value['safety']),
      protect: decodeProtect(value['protect']),
      target: target.identity,
      ...(environment === undefined ? {} : { environment: environment.name }),
    };
    const actual = planId(plan, basis);
    if (actual !== id) {
      const covered =
        environment === undefined
          ? 'its calls, changes, digests, read scope, safety settings, protections and target'
          : 'its calls, changes, digests, read scope, safety settings, protections, environment and target';
      return fail(
        `it does not match its plan id: ${covered} hash to ${actual}, the file says ${id}. The file was edited or damaged after it was made; make the plan again with guidectl plan --out`,
      );
    }
    return {
      planId: id,
      target,
      ...ifDefined('environment', environment),
      paths: array(value['paths'], 'paths').map((p, i) => text(p, `paths[${i}]`)),
      basis,
      plan,
      liveFingerprints,
      ...decodeQuota(value['quota']),
    };
  } catch (error) {
    if (error instanceof Invalid)
      return fail(
        `damaged or edited by hand: ${error.message}; make the plan again with guidectl plan --out`,
      );
    throw error;
  }
}

/** The quota a saved plan recorded; whether it fitted is worked out again from its numbers. */
function decodeQuota(value: unknown): { quota?: PlanQuota } {
  if (value === undefined) return {};
  const quota = record(value, 'quota');
  if (!bool(quota['read'], 'quota.read'))
    return { quota: { status: 'unreadable', reason: text(quota['reason'], 'quota.reason') } };
  const needs: OperationNeed[] = Object.entries(record(quota['operations'], 'quota.operations')).map(
    ([operation, v]) => {
      const where = `quota.operations.${operation}`;
      const need = record(v, where);
      return {
        operation,
        calls: count(need['calls'], `${where}.calls`),
        quota: {
          dailyLimit: count(need['daily_limit'], `${where}.daily_limit`),
          used: count(need['used'], `${where}.used`),
          remain: count(need['remain'], `${where}.remain`),
        },
      };
    },
  );
  return { quota: { status: 'read', needs, fitsToday: needs.every((n) => n.calls <= n.quota.remain) } };
}

function decodeEnvironment(value: unknown): SavedEnvironment | undefined {
  if (value === undefined) return undefined;
  const environment = record(value, 'environment');
  const name = text(environment['name'], 'environment.name');
  if (!ENVIRONMENT_NAME.test(name)) throw new Invalid('environment.name is not the name of an environment');
  return { name };
}

function decodeIdentity(value: unknown): TargetIdentity {
  const where = 'target_id';
  const identity = record(value, where);
  const kind = oneOf(identity['kind'], ['remote', 'embedded'], `${where}.kind`);
  if (kind === 'embedded') return { kind, database: text(identity['database'], `${where}.database`) };
  const digest = identity['appid_digest'];
  return {
    kind,
    baseUrl: text(identity['base_url'], `${where}.base_url`),
    ...(digest === undefined ? {} : { appidDigest: hex(digest, 16, `${where}.appid_digest`) }),
  };
}

function record(value: unknown, where: string): Record<string, unknown> {
  if (!isRecord(value)) throw new Invalid(`${where} is not an object`);
  return value;
}

function array(value: unknown, where: string): readonly unknown[] {
  if (!Array.isArray(value)) throw new Invalid(`${where} is not a list`);
  return value;
}

function text(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new Invalid(`${where} is not a string`);
  return value;
}

function count(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new Invalid(`${where} is not a whole number ≥ 0`);
  return value;
}

function bool(value: unknown, where: string): boolean {
  if (typeof value !== 'boolean') throw new Invalid(`${where} is not true or false`);
  return value;
}

function hex(value: unknown, length: number, where: string): string {
  if (typeof value !== 'string' || !new RegExp(`^[0-9a-f]{${length}}$`).test(value))
    throw new Invalid(`${where} is not ${length} lowercase hex digits`);
  return value;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], where: string): T {
  const found = allowed.find((a) => a === value);
  if (found === undefined) throw new Invalid(`${where} is not one of ${allowed.join(', ')}`);
  return found;
}

/** A JSON value as the plan holds it: no `bigint` (only ids are that large, and only in bodies). */
function json(value: unknown, where: string): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Invalid(`${where} is not a JSON number`);
    return value;
  }
  if (Array.isArray(value)) return value.map((v: unknown, i) => json(v, `${where}[${i}]`));
  if (isRecord(value)) {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value)) out[k] = json(v, `${where}.${k}`);
    return out;
  }
  throw new Invalid(`${where} is not a JSON value`);
}

/**
 * A call, with its subject computed again from its body (and the names of the live groups the plan
 * read, from `live_fingerprints`): the plan id covers the body, not the subject, so the `target`
 * the file holds (for people and scripts reading it; none in files of older versions) is not read.
 */
function decodeCall(
  value: unknown,
  index: number,
  groupName: (id: string) => string | undefined,
  taskName: (id: string) => string | undefined,
): PlannedCall {
  const where = `calls[${index}]`;
  const call = record(value, where);
  const operation = text(call['operation'], `${where}.operation`);
  if (!isPlannedOperation(operation))
    throw new Invalid(`${where}.operation ${JSON.stringify(operation)} is not one a plan makes`);
  const body: Record<string, JsonValue | GroupRef> = {};
  for (const [key, v] of Object.entries(record(call['body'], `${where}.body`))) {
    if (key === 'group_id') body[key] = groupId(v, `${where}.body.group_id`);
    else if (key === 'task_id') body[key] = taskId(v, `${where}.body.task_id`);
    else body[key] = json(v, `${where}.body.${key}`);
  }
  const dependsOn = array(call['depends_on'], `${where}.depends_on`).map((d, i) => {
    const n = count(d, `${where}.depends_on[${i}]`);
    if (n >= index) throw new Invalid(`${where} depends on call ${n}, which is not an earlier call`);
    return n;
  });
  const creates = call['creates_group'];
  if (creates !== undefined && WRITE_EFFECTS[operation].creates !== 'groups')
    throw new Invalid(`${where}.creates_group is only for ${GROUP_CREATION}`);
  const subject = callSubject(operation, body, groupName, taskName);
  if (subject === undefined) throw new Invalid(`${where}.body does not name what ${operation} acts on`);
  return {
    operation,
    body,
    subject,
    dependsOn,
    ...(creates === undefined ? {} : { createsGroup: text(creates, `${where}.creates_group`) }),
  };
}

/** A group id: a bare JSON number (any size), a decimal string, or `{"$group": name}`. */
function groupId(value: unknown, where: string): string | GroupRef {
  if (typeof value === 'bigint' && value > 0n) return value.toString();
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return String(value);
  if (typeof value === 'string' && /^[1-9][0-9]*$/.test(value)) return value;
  if (isRecord(value) && Object.keys(value).length === 1 && typeof value['$group'] === 'string')
    return { $group: value['$group'] };
  throw new Invalid(`${where} is not a group id nor {"$group": name}`);
}

/** A task id: a bare JSON number (any size) or a decimal string. */
function taskId(value: unknown, where: string): string {
  if (typeof value === 'bigint' && value > 0n) return value.toString();
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return String(value);
  if (typeof value === 'string' && /^[1-9][0-9]*$/.test(value)) return value;
  throw new Invalid(`${where} is not a task id`);
}

function decodeSummary(value: unknown): Plan['summary'] {
  const s = record(value, 'summary');
  return {
    add: count(s['add'], 'summary.add'),
    change: count(s['change'], 'summary.change'),
    delete: count(s['delete'], 'summary.delete'),
    calls: count(s['calls'], 'summary.calls'),
  };
}

function decodeChange(value: unknown, index: number): Change {
  const where = `changes[${index}]`;
  const c = record(value, where);
  return {
    resource: oneOf(c['resource'], ['guide', 'group', 'account', 'task'], `${where}.resource`),
    action: oneOf(c['action'], ['create', 'update', 'delete'], `${where}.action`),
    address: text(c['address'], `${where}.address`),
    fields: array(c['fields'], `${where}.fields`).map((f, i): FieldChange => {
      const fw = `${where}.fields[${i}]`;
      const field = record(f, fw);
      return {
        field: text(field['field'], `${fw}.field`),
        ...(field['before'] === undefined ? {} : { before: json(field['before'], `${fw}.before`) }),
        ...(field['after'] === undefined ? {} : { after: json(field['after'], `${fw}.after`) }),
      };
    }),
  };
}

function decodeUnmanaged(value: unknown, index: number): Unmanaged {
  const u = record(value, `unmanaged[${index}]`);
  return {
    resource: oneOf(u['resource'], ['guide', 'group', 'task'], `unmanaged[${index}].resource`),
    address: text(u['address'], `unmanaged[${index}].address`),
  };
}

function decodeSemantics(value: unknown): { sensitiveWordSemantics?: 'append' | 'replace' } {
  if (value === undefined) return {};
  return { sensitiveWordSemantics: oneOf(value, ['append', 'replace'], 'sensitive_word_semantics') };
}

/** The summary must count the changes and calls it sits next to. */
function checkConsistent(plan: Plan): void {
  const n = (action: Change['action']): number => plan.changes.filter((c) => c.action === action).length;
  const { summary } = plan;
  if (
    summary.calls !== plan.calls.length ||
    summary.add !== n('create') ||
    summary.change !== n('update') ||
    summary.delete !== n('delete')
  ) {
    throw new Invalid('summary does not count the changes and calls of the file');
  }
  const created = new Set(plan.calls.flatMap((c) => (c.createsGroup === undefined ? [] : [c.createsGroup])));
  for (const [i, call] of plan.calls.entries()) {
    for (const v of Object.values(call.body)) {
      if (isRecord(v) && typeof v['$group'] === 'string' && !created.has(v['$group']))
        throw new Invalid(
          `calls[${i}] names group "${v['$group']}", which no ${GROUP_CREATION} call creates`,
        );
    }
  }
}

function decodeScope(value: unknown): LiveReadScope {
  const s = record(value, 'read_scope');
  const set = (v: unknown, where: string): ReadonlySet<string> | 'all' =>
    v === 'all' ? 'all' : new Set(array(v, where).map((x, i) => text(x, `${where}[${i}]`)));
  return {
    guideConfigs: set(s['guide_configs'], 'read_scope.guide_configs'),
    groupMembers: set(s['group_members'], 'read_scope.group_members'),
    offlineAutoReply: bool(s['offline_auto_reply'], 'read_scope.offline_auto_reply'),
    sensitiveWords: bool(s['sensitive_words'], 'read_scope.sensitive_words'),
    defaultWelcome: bool(s['default_welcome'], 'read_scope.default_welcome'),
    ...(s['tasks'] === undefined
      ? {}
      : {
          tasks: new Set(
            array(s['tasks'], 'read_scope.tasks').map((x, i) => text(x, `read_scope.tasks[${i}]`)),
          ),
        }),
  };
}

function decodeSafety(value: unknown): GuardSettings {
  const s = record(value, 'safety');
  const max = record(s['max_deletes'], 'safety.max_deletes');
  const maxDeletes: { [K in DeleteKind]?: number } = {};
  for (const kind of DELETE_KINDS) {
    if (max[kind] !== undefined) maxDeletes[kind] = count(max[kind], `safety.max_deletes.${kind}`);
  }
  const share = s['max_delete_share'];
  if (share !== undefined && !(typeof share === 'number' && share >= 0 && share <= 1))
    throw new Invalid('safety.max_delete_share is not a share from 0 to 1');
  return { maxDeletes, ...(typeof share === 'number' ? { maxDeleteShare: share } : {}) };
}

function decodeProtect(value: unknown): ProtectedNames {
  const p = record(value, 'protect');
  const names = (key: string): string[] =>
    array(p[key], `protect.${key}`).map((x, i) => text(x, `protect.${key}[${i}]`));
  return {
    guides: names('guides'),
    guideOpenids: names('guide_openids'),
    groups: names('groups'),
    ...(p['tasks'] === undefined ? {} : { tasks: names('tasks') }),
  };
}

function decodeFingerprints(value: unknown): LiveFingerprints {
  return decodeLiveFingerprints(record(value, 'live_fingerprints'), {
    strings(v, where) {
      const out: Record<string, string> = {};
      for (const [k, x] of Object.entries(record(v, where))) out[k] = text(x, `${where}.${k}`);
      return out;
    },
    named(v, where) {
      const out: Record<string, { name: string; hash: string }> = {};
      for (const [id, g] of Object.entries(record(v, where))) {
        const entry = record(g, `${where}.${id}`);
        out[id] = {
          name: text(entry['name'], `${where}.${id}.name`),
          hash: text(entry['hash'], `${where}.${id}.hash`),
        };
      }
      return out;
    },
  });
}
