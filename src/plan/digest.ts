import { createHash, type Hash } from 'node:crypto';
import { compareText } from '../core/compare-text.js';
import { DELETE_KINDS, type DeleteKind, type DesiredState, taskKey } from '../core/desired.js';
import type { LiveReadScope, LiveState } from '../core/live.js';
import type { Plan, PlannedCall } from '../core/plan-data.js';
import { ifDefined } from '../core/records.js';
import type { CallDifference, LiveDifference } from '../core/safety.js';
import { type PlannedTarget, type TargetIdentity, targetIdentityToJson } from '../core/target-identity.js';
import type { FingerprintReader, KindDigest, LiveFingerprints, OwnDigest } from '../kinds/live-part.js';
import { KINDS, LIVE_ORDER } from '../kinds/registry.js';

export type { LiveFingerprints } from '../kinds/live-part.js';

/**
 * Digests that tie a saved plan to what it was computed from, and the plan id. Pure: the same
 * input gives the same text, byte for byte, on every machine.
 *
 * - The **plan id** is the first 12 hex digits of the SHA-256 of the canonical JSON of the calls
 *   and of the plan's {@link PlanBasis} (see {@link planId}): everything in a saved plan that
 *   changes what apply does.
 * - The **desired digest** covers the normalised desired state without source positions, with
 *   guides sorted by identity, groups by name and members by account: reformatting a file,
 *   moving a guide to another file or reordering a member list leaves it as it is; any change of
 *   meaning changes it.
 * - The **live digest** covers the live state as the plan read it (the read scope), in an order
 *   that does not depend on how the API listed it.
 */

/** Hex digits of a plan id. */
export const PLAN_ID_LENGTH = 12;

/**
 * JSON with object keys sorted by UTF-16 code units and no white space; `bigint` as bare digits;
 * `undefined` properties left out (as `JSON.stringify` does). Throws on values JSON cannot hold.
 */
export function canonicalJson(value: unknown): string {
  return canonicalWithout(value, undefined);
}

/**
 * {@link canonicalJson} leaving out the properties named `skip` at any depth (the desired digest
 * leaves out source positions this way rather than copying the whole state without them first).
 */
function canonicalWithout(value: unknown, skip: string | undefined): string {
  const writer = new CanonicalWriter(skip, undefined);
  writer.write(value);
  return writer.text;
}

/** How much canonical text is gathered before it goes to the hash. */
const HASH_CHUNK = 64 * 1024;

/**
 * Writes canonical JSON into `text`; with a hash, hands it the text every {@link HASH_CHUNK}
 * characters instead of making the whole text first, since the text of 100,000 guides' calls is
 * about 100 MB. Plain loops and one string, no closures: a digest runs once per process, mostly
 * before V8 optimises anything.
 */
class CanonicalWriter {
  text = '';

  constructor(
    private readonly skip: string | undefined,
    private readonly hash: Hash | undefined,
  ) {}

  write(value: unknown): void {
    if (value === null) {
      this.text += 'null';
      return;
    }
    switch (typeof value) {
      case 'string':
        this.text += JSON.stringify(value);
        break;
      case 'boolean':
        this.text += value ? 'true' : 'false';
        break;
      case 'number':
        if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} is not a JSON number`);
        this.text += JSON.stringify(value);
        break;
      case 'bigint':
        this.text += value.toString();
        break;
      case 'object':
        if (Array.isArray(value)) this.writeArray(value);
        else this.writeObject(value);
        if (this.hash !== undefined && this.text.length >= HASH_CHUNK) {
          this.hash.update(this.text, 'utf8');
          this.text = '';
        }
        break;
      default:
        throw new TypeError(`canonicalJson: a ${typeof value} is not JSON`);
    }
  }

  private writeArray(items: readonly unknown[]): void {
    this.text += '[';
    for (let i = 0; i < items.length; i++) {
      if (i > 0) this.text += ',';
      this.write(items[i]);
    }
    this.text += ']';
  }

  /** Keys sorted by UTF-16 code units (`sort()`'s own order, the order of `compareText`). */
  private writeObject(object: object): void {
    const keys = Object.keys(object).sort();
    this.text += '{';
    let first = true;
    for (const key of keys) {
      const v: unknown = Reflect.get(object, key);
      if (v === undefined || key === this.skip) continue;
      this.text += first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`;
      first = false;
      this.write(v);
    }
    this.text += '}';
  }
}

/** The SHA-256 (hex) of `prefix` followed by the canonical JSON of `value`, without making the whole text. */
function sha256OfCanonical(prefix: string, value: unknown, skip?: string): string {
  const hash = createHash('sha256');
  const writer = new CanonicalWriter(skip, hash);
  writer.text = prefix;
  writer.write(value);
  return hash.update(writer.text, 'utf8').digest('hex');
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * A call as the plan id covers it: `{operation, body, depends_on, creates_group?}`, with 64-bit
 * ids as decimal strings (as the plan holds them) and `{"$group": name}` for a group the plan
 * creates.
 */
function callForId(call: PlannedCall): Record<string, unknown> {
  return {
    operation: call.operation,
    body: call.body,
    depends_on: call.dependsOn,
    ...ifDefined('creates_group', call.createsGroup),
  };
}

/**
 * What a plan was made from, as far as apply acts on it: the digests apply checks the files and
 * the account against, what it reads again, and the deletion-guard settings and protections of
 * the files (apply evaluates its checks with these when the files are not at hand). Covered by
 * the plan id with the calls, so that editing any of it in a saved plan is refused.
 */
export interface PlanBasis {
  readonly desiredDigest: string;
  readonly liveDigest: string;
  readonly readScope: LiveReadScope;
  readonly safety: GuardSettings;
  readonly protect: ProtectedNames;
  /**
   * The identity of the target the plan read: every plan the CLI makes has one (so that a plan,
   * saved or pinned by its id, is never applied to another account); absent only when a library
   * caller's live source does not say.
   */
  readonly target?: TargetIdentity;
  /** The environment the plan was made for (its name); absent for files without environments. */
  readonly environment?: string;
}

/** The limits the files' `safety` section sets; absent ones are the defaults. */
export interface GuardSettings {
  readonly maxDeletes: { readonly [K in DeleteKind]?: number };
  readonly maxDeleteShare?: number;
}

/** What the files protect, by name: guide accounts, guide openids, group names, tasks; each sorted. */
export interface ProtectedNames {
  readonly guides: readonly string[];
  readonly guideOpenids: readonly string[];
  readonly groups: readonly string[];
  /** Protected tasks as {@link taskKey}s; absent when none (so that older plan ids stay as they were). */
  readonly tasks?: readonly string[];
}

/** The basis of a plan made from `desired` against `live`, read with `readScope`. */
export function planBasis(
  desired: DesiredState,
  live: LiveState,
  readScope: LiveReadScope,
  made: PlannedTarget = {},
): PlanBasis {
  const safety = desired.safety;
  const protect = desired.protect;
  return {
    ...ifDefined('target', made.target),
    ...ifDefined('environment', made.environment),
    desiredDigest: desiredDigest(desired),
    liveDigest: liveDigest(live),
    readScope,
    safety: {
      maxDeletes: { ...safety?.maxDeletes },
      ...(safety?.maxDeleteShare === undefined ? {} : { maxDeleteShare: safety.maxDeleteShare }),
    },
    protect: {
      guides: (protect?.guides ?? [])
        .flatMap((g) => (g.id.kind === 'account' ? [g.id.account] : []))
        .sort(compareText),
      guideOpenids: (protect?.guides ?? [])
        .flatMap((g) => (g.id.kind === 'openid' ? [g.id.openid] : []))
        .sort(compareText),
      groups: (protect?.groups ?? []).map((g) => g.name).sort(compareText),
      ...(protect?.tasks === undefined
        ? {}
        : { tasks: protect.tasks.map((t) => taskKey(t.guide, t.name)).sort(compareText) }),
    },
  };
}

/** The read scope as JSON (sets as sorted lists), as saved plans hold it. */
export function readScopeToJson(scope: LiveReadScope): Record<string, unknown> {
  const list = (value: ReadonlySet<string> | 'all'): string[] | 'all' =>
    value === 'all' ? 'all' : [...value].sort(compareText);
  return {
    guide_configs: list(scope.guideConfigs),
    group_members: list(scope.groupMembers),
    offline_auto_reply: scope.offlineAutoReply,
    sensitive_words: scope.sensitiveWords,
    default_welcome: scope.defaultWelcome,
    // Only when tasks are read: the plan ids of plans without tasks stay as they were.
    ...(scope.tasks === undefined ? {} : { tasks: list(scope.tasks) }),
  };
}

/** The guard settings as JSON, as the files write them (`max_deletes`, `max_delete_share`). */
export function guardSettingsToJson(settings: GuardSettings): Record<string, unknown> {
  const max: Record<string, number> = {};
  for (const kind of DELETE_KINDS) {
    const n = settings.maxDeletes[kind];
    if (n !== undefined) max[kind] = n;
  }
  return {
    max_deletes: max,
    ...ifDefined('max_delete_share', settings.maxDeleteShare),
  };
}

/** The protections as JSON, as the files' `protect` list writes them. */
export function protectedNamesToJson(names: ProtectedNames): Record<string, unknown> {
  return {
    guides: names.guides,
    guide_openids: names.guideOpenids,
    groups: names.groups,
    ...ifDefined('tasks', names.tasks),
  };
}

/**
 * The plan id: the SHA-256 of the canonical JSON of the calls, the sensitive-word semantics, the
 * changes and unmanaged resources shown with them, and the {@link PlanBasis}, cut to 12 hex
 * digits. Two plans with the same id make the same calls in the same order with the same
 * dependencies, show the same changes (so a saved plan whose changes were edited to hide a call
 * no longer has the id that was reviewed), were made from the same meaning of the files against
 * the same account as read, and are checked by apply with the same guard settings and protections
 * — against the same target (its identity, {@link PlanBasis.target}) and, for a plan of an
 * environment, for the same environment. (The summary counts the changes and calls; a saved
 * plan's is checked against them.)
 */
export function planId(
  plan: Pick<Plan, 'calls' | 'sensitiveWordSemantics' | 'changes' | 'unmanaged'>,
  basis: PlanBasis,
): string {
  const value = {
    calls: plan.calls.map(callForId),
    changes: plan.changes,
    unmanaged: plan.unmanaged,
    sensitive_word_semantics: plan.sensitiveWordSemantics,
    desired_digest: basis.desiredDigest,
    live_digest: basis.liveDigest,
    read_scope: readScopeToJson(basis.readScope),
    safety: guardSettingsToJson(basis.safety),
    protect: protectedNamesToJson(basis.protect),
    ...(basis.target === undefined ? {} : { target_id: targetIdentityToJson(basis.target) }),
    ...ifDefined('environment', basis.environment),
  };
  return sha256OfCanonical('guidectl-plan-3\n', value).slice(0, PLAN_ID_LENGTH);
}

/** The SHA-256 (hex) of the meaning of the desired state; see the module comment. */
export function desiredDigest(desired: DesiredState): string {
  // Each kind's section in its canonical order; canonical JSON sorts the keys, so the order the
  // sections are put together in does not count.
  let normal = desired;
  for (const kind of Object.values(KINDS)) {
    if (typeof kind.desiredDigest === 'function') normal = { ...normal, ...kind.desiredDigest(desired) };
  }
  // Without source positions: `source` properties are left out at any depth.
  return sha256OfCanonical('guidectl-desired-1\n', normal, 'source');
}

/** The digest parts of the kinds that have one of their own, in {@link LIVE_ORDER}. */
const OWN_PARTS: readonly OwnDigest[] = LIVE_ORDER.flatMap((kind) => {
  const digest: KindDigest = KINDS[kind].digest;
  return 'partOf' in digest ? [] : [digest];
});

/** The live state in a canonical order: each kind's part as the kind canonicalises it. */
function canonicalLive(live: LiveState): unknown {
  let canonical: Readonly<Record<string, unknown>> = {};
  for (const part of OWN_PARTS) canonical = { ...canonical, ...part.canonical(live) };
  return canonical;
}

/** The SHA-256 (hex) of the live state as read (parts not read are absent, and so not covered). */
export function liveDigest(live: LiveState): string {
  return sha256OfCanonical('guidectl-live-1\n', canonicalLive(live));
}

/** Hex digits of a fingerprint of one live resource. */
const FINGERPRINT_LENGTH = 12;

const fingerprint = (value: unknown): string => sha256Hex(canonicalJson(value)).slice(0, FINGERPRINT_LENGTH);

/** The fingerprints of a read of nothing: each kind's part replaces its own, in this key order. */
const NO_FINGERPRINTS: LiveFingerprints = { guides: {}, groups: {}, account: {} };

/** The fingerprints a saved plan holds (`saved`), each kind's part read back by `read`. */
export function decodeLiveFingerprints(
  saved: Readonly<Record<string, unknown>>,
  read: FingerprintReader,
): LiveFingerprints {
  let fingerprints = NO_FINGERPRINTS;
  for (const part of OWN_PARTS) fingerprints = { ...fingerprints, ...part.decode(saved, read) };
  return fingerprints;
}

export function liveFingerprints(live: LiveState): LiveFingerprints {
  let fingerprints = NO_FINGERPRINTS;
  for (const part of OWN_PARTS) fingerprints = { ...fingerprints, ...part.fingerprints(live, fingerprint) };
  return fingerprints;
}

/**
 * What differs between the fingerprints saved with a plan and those of a new read: each kind's
 * resources in {@link LIVE_ORDER} (account settings, groups, guides, tasks), each by address.
 */
export function diffLiveFingerprints(before: LiveFingerprints, after: LiveFingerprints): LiveDifference[] {
  return OWN_PARTS.flatMap((part) => {
    const a = part.compared(before);
    const b = part.compared(after);
    const out: LiveDifference[] = [];
    for (const key of [...new Set([...a.keys(), ...b.keys()])].sort(compareText)) {
      const x = a.get(key);
      const y = b.get(key);
      const either = x ?? y;
      if (either === undefined || x?.hash === y?.hash) continue;
      const change = x === undefined ? 'added' : y === undefined ? 'removed' : 'changed';
      out.push({ resource: part.resource, address: either.address, change });
    }
    return out.sort((p, q) => compareText(p.address, q.address));
  });
}

/**
 * The calls that differ between two plans, as multisets of `{operation, body}` (order and
 * dependencies aside): what a saved plan would do that a plan made now would not, and the
 * other way round. Removed calls first, each group in plan order.
 */
export function diffCalls(saved: readonly PlannedCall[], now: readonly PlannedCall[]): CallDifference[] {
  const key = (call: PlannedCall): string => canonicalJson({ operation: call.operation, body: call.body });
  const count = new Map<string, number>();
  for (const call of now) count.set(key(call), (count.get(key(call)) ?? 0) + 1);
  const removed: CallDifference[] = [];
  for (const call of saved) {
    const k = key(call);
    const n = count.get(k) ?? 0;
    if (n > 0) count.set(k, n - 1);
    else removed.push({ change: 'removed', call });
  }
  const added: CallDifference[] = [];
  for (const call of now) {
    const k = key(call);
    const n = count.get(k) ?? 0;
    if (n > 0) {
      count.set(k, n - 1);
      added.push({ change: 'added', call });
    }
  }
  return [...removed, ...added];
}
